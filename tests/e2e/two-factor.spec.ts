// Two-factor sign-in (ADR 0042) in the browser, with JavaScript on and off, at 360 px and
// 1280 px: set-up on Settings › Security (the key read from the page, codes computed here with the
// same library as the server, the current password asked for and a wrong one refused), the recovery codes shown once, logout, login with a code, login
// with a recovery code (once), and an Owner's requirement forcing set-up at a Manager's next login.
import type { APIRequestContext, Locator, Page } from "@playwright/test";
import { Secret, TOTP } from "otpauth";
import { createManager, expect, PASSWORD, signIn, test } from "./fixtures.ts";
import { expectNoHorizontalScroll, uniqueEmail, visit } from "./support.ts";

const SECURITY = "/portal/settings/security";

/** The code an authenticator app shows `offsetSeconds` from now for the key on the page. */
function codeFor(secretText: string, offsetSeconds = 0): string {
  return TOTP.generate({
    secret: Secret.fromBase32(secretText.replace(/\s/g, "")),
    timestamp: Date.now() + offsetSeconds * 1000,
  });
}

function formWithLabel(page: Page, label: string): Locator {
  return page.locator("form").filter({ has: page.getByLabel(label, { exact: true }) });
}

async function logIn(page: Page, email: string, password = PASSWORD) {
  await visit(page, "/corporate/login");
  const form = formWithLabel(page, "Email");
  await form.getByLabel("Email", { exact: true }).fill(email);
  await form.getByLabel("Password", { exact: true }).fill(password);
  await form.getByRole("button", { name: "Login", exact: true }).click();
}

async function logOut(page: Page) {
  await visit(page, "/corporate/logout");
  await page.getByRole("button", { name: "Logout", exact: true }).click();
  await expect(page).toHaveURL(/\/corporate\/login$/);
}

/**
 * Sets an app up on the page in front of it (Settings › Security or the forced set-up): answers the
 * key. `password`: the security page asks for the current password with the code (a session alone
 * enrols no second factor, ADR 0042), and a wrong one is refused first; the forced
 * set-up has no such field (its login challenge was opened with the password).
 */
async function confirmApp(page: Page, submit: string, password?: string): Promise<string> {
  await expect(page.getByRole("img", { name: /QR code/ })).toBeVisible();
  const secretText = (await page.getByTestId("two-factor-secret").textContent()) ?? "";
  expect(secretText.replace(/\s/g, "")).toMatch(/^[A-Z2-7]{32}$/);
  const form = () => formWithLabel(page, "Authentication code");
  const fill = async (code: string, typed?: string) => {
    if (typed !== undefined) await form().getByLabel("Current Password", { exact: true }).fill(typed);
    await form().getByLabel("Authentication code", { exact: true }).fill(code);
    await form().getByRole("button", { name: submit }).click();
  };
  if (password === undefined) {
    await expect(form().getByLabel("Current Password", { exact: true })).toHaveCount(0);
  } else {
    // The right code with a wrong password: refused by the server, and nothing turns on.
    await fill(codeFor(secretText), "Wrong#Pass1");
    await expect(page.getByText("Incorrect password. Please try again.")).toBeVisible();
    await expect(page.getByTestId("two-factor-status")).toHaveText("Being set up");
  }
  // A wrong code: a clear message, and nothing turns on.
  await fill(String((Number(codeFor(secretText)) + 500_000) % 1_000_000).padStart(6, "0"), password);
  await expect(page.getByText("Invalid authentication code. Please try again.")).toBeVisible();
  await fill(codeFor(secretText), password);
  return secretText;
}

async function readRecoveryCodes(page: Page): Promise<string[]> {
  const panel = page.getByTestId("recovery-codes");
  await expect(panel).toBeVisible();
  await expect(panel).toContainText("They are shown only now.");
  const codes = await panel.getByRole("listitem").allTextContents();
  expect(codes).toHaveLength(10);
  for (const code of codes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
  return codes;
}

test("set up on the security page; logout; login with a code; login with a recovery code, which works once", {
  tag: "@journey",
}, async ({ page, manager }) => {
  // Four logins and three logouts in one story: more than one page's time on a busy machine.
  test.slow();
  await visit(page, SECURITY);
  await expect(page.getByTestId("two-factor-status")).toHaveText("Off");
  await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
  await expect(page.getByTestId("two-factor-status")).toHaveText("Being set up");
  await expectNoHorizontalScroll(page);
  const secretText = await confirmApp(page, "Turn on two-factor sign-in", manager.password);

  await expect(page.getByTestId("two-factor-status")).toContainText("On since");
  await expect(page.getByTestId("two-factor-status")).toContainText("10 recovery codes left");
  const codes = await readRecoveryCodes(page);
  await expectNoHorizontalScroll(page);
  // Shown once: the next load has them no more.
  await visit(page, SECURITY);
  await expect(page.getByTestId("recovery-codes")).toHaveCount(0);

  await logOut(page);
  await logIn(page, manager.email);
  await expect(page).toHaveURL(/\/corporate\/login-code$/);
  // The challenge is in a cookie, not in the address.
  expect(page.url()).not.toContain("challenge");
  await expectNoHorizontalScroll(page);
  // The code of the set-up's step was used: the app's next code (30 s ahead) is the one to type.
  const codeForm = formWithLabel(page, "Authentication code");
  await codeForm.getByLabel("Authentication code", { exact: true }).fill(codeFor(secretText, 30));
  await codeForm.getByRole("button", { name: "Verify & Login" }).click();
  await expect(page).toHaveURL(/\/portal\/dashboard$/);

  await logOut(page);
  await logIn(page, manager.email);
  await expect(page).toHaveURL(/\/corporate\/login-code$/);
  await page.getByText("Lost your phone? Use a recovery code").click();
  const recovery = formWithLabel(page, "Recovery code");
  await recovery.getByLabel("Recovery code", { exact: true }).fill(codes[0] ?? "");
  await recovery.getByRole("button", { name: "Use recovery code" }).click();
  await expect(page).toHaveURL(/\/portal\/dashboard$/);
  await visit(page, SECURITY);
  await expect(page.getByTestId("two-factor-status")).toContainText("9 recovery codes left");

  // The same recovery code a second time: refused.
  await logOut(page);
  await logIn(page, manager.email);
  await expect(page).toHaveURL(/\/corporate\/login-code$/);
  await page.getByText("Lost your phone? Use a recovery code").click();
  const again = formWithLabel(page, "Recovery code");
  await again.getByLabel("Recovery code", { exact: true }).fill(codes[0] ?? "");
  await again.getByRole("button", { name: "Use recovery code" }).click();
  await expect(page.getByText("Invalid recovery code. Please check it and try again.")).toBeVisible();
  await expect(page).toHaveURL(/\/corporate\/login-code$/);
});

/** The token of the newest invitation link emailed to `email` (the dev mailbox). */
async function inviteToken(request: APIRequestContext, email: string): Promise<string> {
  let token = "";
  await expect
    .poll(
      async () => {
        const html = await (await request.get("/dev/mailbox")).text();
        const message = html.split("<article").find((part) => part.includes(email));
        token = message?.match(/accept-invite\?token=([A-Za-z0-9_-]+)/)?.[1] ?? "";
        return token;
      },
      { message: `invitation email to ${email}`, timeout: 15_000 },
    )
    .not.toBe("");
  return token;
}

test("an Owner requiring it: a Manager without an app sets one up at the next login before any session", {
  tag: "@journey",
}, async ({ page, request, baseURL }) => {
  test.slow();
  const owner = await createManager(request, baseURL);
  // A Manager of the Owner's company, by invitation.
  const managerEmail = uniqueEmail("two-factor-manager");
  const invited = await request.post("/api/Managers/invites", {
    headers: owner.headers,
    data: { email: managerEmail, role: "manager" },
  });
  expect(invited.status(), await invited.text()).toBe(201);
  const accepted = await request.post("/api/ManagerInvites/accept", {
    data: {
      token: await inviteToken(request, managerEmail),
      firstName: "Max",
      lastName: "Manager",
      password: PASSWORD,
      confirmPassword: PASSWORD,
    },
  });
  expect(accepted.status(), await accepted.text()).toBe(200);

  // The Owner turns the requirement on from the security page.
  await signIn(page, owner);
  await visit(page, SECURITY);
  const requirement = page.getByRole("region", { name: "Require two-factor sign-in for your company" });
  await expect(requirement.getByTestId("company-two-factor-status")).toHaveText("Not required");
  await requirement.getByRole("button", { name: "Require two-factor sign-in" }).click();
  await expect(
    page
      .getByRole("region", { name: "Require two-factor sign-in for your company" })
      .getByTestId("company-two-factor-status"),
  ).toHaveText("Required");
  await logOut(page);

  // The Manager's next login: set up first, no session before.
  await logIn(page, managerEmail);
  await expect(page).toHaveURL(/\/corporate\/two-factor-setup$/);
  await expect(page.getByRole("heading", { name: "Set up two-factor sign-in" })).toBeVisible();
  await visit(page, "/portal/dashboard");
  await expect(page).toHaveURL(/\/corporate\/login$/);
  await logIn(page, managerEmail);
  await expect(page).toHaveURL(/\/corporate\/two-factor-setup$/);
  await expectNoHorizontalScroll(page);
  await confirmApp(page, "Turn on & Login");

  // Signed in, on the security page with the recovery codes shown once; no owner controls.
  await expect(page).toHaveURL(/\/portal\/settings\/security/);
  await readRecoveryCodes(page);
  await expect(page.getByTestId("two-factor-status")).toContainText("On since");
  await expect(page.getByText("Your company requires two-factor sign-in for every manager.")).toBeVisible();
  await expect(page.getByRole("region", { name: "Require two-factor sign-in for your company" })).toHaveCount(0);
  // Turning it off is not offered while the company requires it.
  await expect(page.getByRole("button", { name: "Turn off" })).toHaveCount(0);
});
