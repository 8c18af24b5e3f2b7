// The signed-in set-up shared by the specs whose subject is a portal page (not the account flows:
// accounts.spec.ts proves sign-up, verification and login through the forms). Each test gets a
// fresh program manager made the honest way over HTTP: Register, VerifyEmail with the code the
// app really emailed (the dev mailbox, or the run's SMTP server for specs on the mail server),
// PUT /api/Companies and the onboarding-video flag; then the real login form posted over HTTP
// from the test's browser context, whose cookie jar keeps the session. No page is opened: the
// test visits the page it is about.
import { basename } from "node:path";
import type { APIRequestContext, Page } from "@playwright/test";
import { MAIL_APP_URL, verificationCodeOf, waitForEmail } from "./mail.ts";
import { test as base, expect, uniqueEmail, uniqueToken } from "./support.ts";

export const PASSWORD = "Passw0rd!";
export const VALID_ABN = "51824753556";

export interface Manager {
  email: string;
  password: string;
  firstName: string;
  lastName: string;
  companyName: string;
  userId: number;
  companyId: number;
  accessToken: string;
  /** The Authorization header of the manager's API calls. */
  headers: { authorization: string };
}

/** How far through onboarding the new manager is: both steps done unless told otherwise. */
export interface Onboarding {
  /** Step 3 saved (PUT /api/Companies). */
  companyDetails?: boolean;
  /** The Getting Started video recorded as watched. */
  videoWatched?: boolean;
}

export interface Member {
  id?: number;
  firstName: string;
  lastName: string;
  email: string;
}

/** The 6-digit code of the newest verification email to `email` in the dev mailbox. */
async function devMailboxCode(request: APIRequestContext, email: string): Promise<string> {
  let code = "";
  await expect
    .poll(
      async () => {
        const html = await (await request.get("/dev/mailbox")).text();
        // Newest first: the first message to this address holds the current code.
        const message = html.split("<article").find((part) => part.includes(email));
        code = message?.match(/Verification code:\s*(\d{6})/)?.[1] ?? "";
        return code;
      },
      { message: `verification email to ${email}`, timeout: 15_000 },
    )
    .toMatch(/^\d{6}$/);
  return code;
}

/** Where the server behind `baseURL` sends its mail: the run's SMTP server, or the dev mailbox. */
async function verificationCode(request: APIRequestContext, baseURL: string | undefined, email: string) {
  if (baseURL === MAIL_APP_URL) return verificationCodeOf(await waitForEmail(email, "Your verification code"));
  return devMailboxCode(request, email);
}

/** A verified program manager made through the API, as far through onboarding as `onboarding` says. */
export async function createManager(
  request: APIRequestContext,
  baseURL: string | undefined,
  { companyDetails = true, videoWatched = true }: Onboarding = {},
): Promise<Manager> {
  const email = uniqueEmail(basename(test.info().file, ".spec.ts"));
  const firstName = "Penny";
  const lastName = "Manager";
  const companyName = `Acme ${uniqueToken()} Pty Ltd`;
  const registered = await request.post("/api/Register", {
    data: { firstName, lastName, email, companyName, password: PASSWORD, captchaToken: "", isCaptchaV3: true },
  });
  expect(registered.status(), await registered.text()).toBe(200);
  const { userId, requestToken } = (await registered.json()) as { userId: string; requestToken: string };

  const verified = await request.post("/api/Identity/VerifyEmail", {
    data: { userId, requestToken, verificationCode: await verificationCode(request, baseURL, email) },
  });
  expect(verified.status(), await verified.text()).toBe(200);
  const { accessToken } = (await verified.json()) as { accessToken: string };
  const headers = { authorization: `Bearer ${accessToken}` };

  if (companyDetails) {
    const saved = await request.put("/api/Companies/", {
      headers,
      data: { name: companyName, ABN: VALID_ABN, size: "11-50", industry: "Retail" },
    });
    expect(saved.status(), await saved.text()).toBe(200);
  }
  if (videoWatched) {
    const watched = await request.post("/api/Identity/onboarding-video-watched", { headers });
    expect(watched.ok(), await watched.text()).toBe(true);
  }
  const details = await request.get("/api/Users/MyDetails", { headers });
  expect(details.status(), await details.text()).toBe(200);
  const me = (await details.json()) as { id: number; companyId: number };
  return {
    email,
    password: PASSWORD,
    firstName,
    lastName,
    companyName,
    userId: me.id,
    companyId: me.companyId,
    accessToken,
    headers,
  };
}

/** The names and values of the inputs of the form that posts to `action` in `html`. */
function formInputs(html: string, action: string): Record<string, string> {
  const form = html.split("<form").find((part) => part.includes(`action="${action}"`));
  if (!form) throw new Error(`no form posting to ${action}`);
  const fields: Record<string, string> = {};
  for (const [input] of form.slice(0, form.indexOf("</form>")).matchAll(/<input\b[^>]*>/g)) {
    const name = /\bname="([^"]*)"/.exec(input)?.[1];
    if (!name) continue;
    const value = /\bvalue="([^"]*)"/.exec(input)?.[1] ?? "";
    fields[name] = value
      .replaceAll("&quot;", '"')
      .replaceAll("&#x27;", "'")
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">")
      .replaceAll("&amp;", "&");
  }
  return fields;
}

/**
 * Signs `manager` in through the real login form, posted over HTTP from the page's browser
 * context (its honeypot and captcha inputs as served, and the Origin a browser sends with a form
 * post: an anonymous form is checked by it), so the session cookie lands in the browser. Success answers the redirect to the dashboard (docs/requirements.md §S2 Login).
 */
export async function signIn(page: Page, manager: Manager): Promise<void> {
  const action = "/corporate/login";
  const loginPage = await page.request.get(action);
  expect(loginPage.status()).toBe(200);
  const response = await page.request.post(action, {
    headers: { origin: new URL(loginPage.url()).origin },
    form: { ...formInputs(await loginPage.text(), action), userName: manager.email, password: manager.password },
    maxRedirects: 0,
  });
  expect(response.status(), await response.text()).toBe(302);
  expect(response.headers().location).toBe("/portal/dashboard");
}

/** A team member with an address no other test uses. */
export function member(firstName: string, lastName: string): Member {
  return { firstName, lastName, email: `${firstName}.${lastName}.${uniqueToken()}@example.com`.toLowerCase() };
}

/** Creates team members through the API's bulk call and answers them with their ids. */
export async function addMembers(request: APIRequestContext, manager: Manager, users: Member[]): Promise<Member[]> {
  const res = await request.post("/api/Users/create-user-bulk-upload", { headers: manager.headers, data: { users } });
  expect(res.status(), await res.text()).toBe(200);
  const list = await request.get("/api/Users?pageNumber=1&pageSize=100&search=", { headers: manager.headers });
  const { items } = (await list.json()) as { items: Array<{ id: number; email: string }> };
  return users.map((user) => ({ ...user, id: items.find((item) => item.email === user.email)?.id }));
}

interface ManagerFixtures {
  /**
   * A fresh program manager, onboarded and signed in in this test's browser context. A test that
   * needs only the session asks for it as `manager: _`.
   */
  manager: Manager;
  /** Makes a fresh program manager at the given point of onboarding and signs them in. */
  newManager: (onboarding?: Onboarding) => Promise<Manager>;
}

export const test = base.extend<ManagerFixtures>({
  newManager: async ({ page, request, baseURL }, use) => {
    await use(async (onboarding) => {
      const manager = await createManager(request, baseURL, onboarding);
      await signIn(page, manager);
      return manager;
    });
  },
  manager: async ({ newManager }, use) => {
    await use(await newManager());
  },
});

export { expect };
