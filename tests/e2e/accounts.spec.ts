// The public account pages (docs/requirements.md §S2 sign-up, verify, login, forgot password, reset;
// §S4 registration, verify, login, password reset; §S5 their rules; §S8 their errors), with
// JavaScript on and off, at 360 px and 1280 px. The emails are REAL: this spec runs against the
// test server that sends mail by SMTP to the server the run starts (mail.ts, smtp-app.ts), and
// reads the verification codes and reset links from what that SMTP server received.
import AxeBuilder from "@axe-core/playwright";
import type { APIRequestContext, Locator, Page } from "@playwright/test";
import { MAIL_APP_URL, resetLinkOf, verificationCodeOf, waitForEmail } from "./mail.ts";
import {
  bannerOf,
  expect,
  formWith,
  isPhone,
  jsEnabled,
  shoot,
  submitButton,
  test,
  uniqueEmail,
  visit,
  waitForHydration,
  watchPosts,
} from "./support.ts";

test.use({ baseURL: MAIL_APP_URL });

const PASSWORD = "Passw0rd!";
const CODE_SUBJECT = "Your verification code";
const RESET_SUBJECT = "Reset your password";

const TEXT = {
  alreadyRegistered: "Looks like you already have an account with us.",
  retrieve: "Click here to retrieve your details.",
  incorrectLogin: "Incorrect email or password. Please try again or reset your password.",
  invalidCode: "Invalid verification code. Please try again or resend verification code.",
  resent: "Verification code resent! Please check your inbox or junk mail.",
  codeRule: "Verification Code must have exactly 6 digits.",
  allow: "Please allow up to 1 minute to receive your verification code",
  forgotIntro: "You will receive an email with a link to reset your password",
  forgotSent:
    "We've sent you an email with a link to reset your password. Please check your inbox and follow the instructions.",
};

interface Person {
  firstName: string;
  lastName: string;
  email: string;
  companyName: string;
}

function person(tag: string): Person {
  return { firstName: "Sam", lastName: "Signer", email: uniqueEmail(`accounts-${tag}`), companyName: "Acme Pty Ltd" };
}

function signUpForm(page: Page): Locator {
  return formWith(page, "Company Name");
}
function verifyForm(page: Page): Locator {
  return formWith(page, "Verification Code");
}
function loginForm(page: Page): Locator {
  return formWith(page, "Password");
}

async function fillSignUp(page: Page, who: Person, password = PASSWORD, confirmation = password) {
  const form = signUpForm(page);
  await form.getByLabel("First Name", { exact: true }).fill(who.firstName);
  await form.getByLabel("Last Name", { exact: true }).fill(who.lastName);
  await form.getByLabel("Email", { exact: true }).fill(who.email);
  await form.getByLabel("Company Name", { exact: true }).fill(who.companyName);
  await form.getByLabel("Password", { exact: true }).fill(password);
  await form.getByLabel("Confirm Password", { exact: true }).fill(confirmation);
}

/** Signs up through the page; lands on the verify page. */
async function signUp(page: Page, who: Person) {
  await visit(page, "/corporate/sign-up");
  await fillSignUp(page, who);
  await signUpForm(page).getByRole("button", { name: "Send 6-Digit Code" }).click();
  await expect(page).toHaveURL(/\/corporate\/verify\?/);
  if (jsEnabled()) await waitForHydration(page);
}

async function enterCode(page: Page, code: string) {
  const form = verifyForm(page);
  await form.getByLabel("Verification Code", { exact: true }).fill(code);
  await form.getByRole("button", { name: "Verify & Login" }).click();
}

/** A verified account made through the API (the code read from the SMTP server). */
async function createAccount(request: APIRequestContext, tag: string): Promise<Person> {
  const who = person(tag);
  const registered = await request.post("/api/Register", {
    data: { ...who, password: PASSWORD, captchaToken: "", isCaptchaV3: true },
  });
  expect(registered.status(), await registered.text()).toBe(200);
  const { userId, requestToken } = (await registered.json()) as { userId: string; requestToken: string };
  const code = verificationCodeOf(await waitForEmail(who.email, CODE_SUBJECT));
  const verified = await request.post("/api/Identity/VerifyEmail", {
    data: { userId, requestToken, verificationCode: code },
  });
  expect(verified.status(), await verified.text()).toBe(200);
  return who;
}

async function logIn(page: Page, email: string, password: string) {
  await visit(page, "/corporate/login");
  const form = loginForm(page);
  await form.getByLabel("Email", { exact: true }).fill(email);
  await form.getByLabel("Password", { exact: true }).fill(password);
  await form.getByRole("button", { name: "Login", exact: true }).click();
}

async function sessionCookie(page: Page): Promise<string | undefined> {
  return (await page.context().cookies()).find((c) => /session$/.test(c.name))?.value;
}

async function logOut(page: Page) {
  await visit(page, "/corporate/logout");
  await page.getByRole("button", { name: "Logout", exact: true }).click();
  await expect(page).toHaveURL(/\/corporate\/login$/);
}

async function expectNoHorizontalScroll(page: Page) {
  if (!isPhone()) return;
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth, `scrollWidth at innerWidth ${innerWidth}`).toBeLessThanOrEqual(innerWidth);
}

/** axe (JavaScript on only: analyze() hangs with it off) and the 360 px width check. */
async function expectAccessible(page: Page) {
  await expectNoHorizontalScroll(page);
  if (!jsEnabled()) return;
  const results = await new AxeBuilder({ page }).analyze();
  const summary = results.violations.map((v) => ({
    rule: v.id,
    help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
  }));
  expect(summary, "axe violations").toEqual([]);
}

test.describe("sign-up", () => {
  test("banner, the 4 steps (hidden on a phone), 'Step 1: Sign Up', SPEC's fields and limits", async ({ page }) => {
    await visit(page, "/corporate/sign-up");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Sign Up");
    await expect(bannerOf(page)).toContainText("Register to get started");
    const steps = page.getByRole("heading", { name: "Get started in 4 easy steps" });
    if (isPhone()) await expect(steps).toBeHidden();
    else {
      await expect(steps).toBeVisible();
      for (const step of ["Sign Up", "Verify Email & Login", "Add Company Details", "Watch Onboarding Video"]) {
        await expect(page.getByText(new RegExp(`Step \\d: ${step}`)).first()).toBeVisible();
      }
    }
    await expect(page.getByRole("heading", { name: "Step 1: Sign Up" })).toBeVisible();
    const form = signUpForm(page);
    const limits = { "First Name": 64, "Last Name": 64, Email: 256, "Company Name": 100 };
    for (const [label, max] of Object.entries(limits)) {
      const field = form.getByLabel(label, { exact: true });
      await expect(field, label).toHaveAttribute("maxlength", String(max));
      await expect(field, label).toHaveAttribute("required", "");
    }
    await expect(form.getByLabel("Email", { exact: true })).toHaveAttribute("type", "email");
    const password = form.getByLabel("Password", { exact: true });
    await expect(password).toHaveAttribute("type", "password");
    await expect(password).toHaveAttribute("pattern", String.raw`(?=.*\d)(?=.*[a-z])(?=.*\W).{6,}`);
    await expect(form.getByLabel("Confirm Password", { exact: true })).toHaveAttribute("type", "password");
    await expect(form.getByText(/email you a 6-digit code .*next screen/i)).toBeVisible();
    await expect(submitButton(form)).toHaveText("Send 6-Digit Code");
    await expectAccessible(page);
  });

  test("password checklist and submit with JavaScript; the server lists the unmet rules without", async ({ page }) => {
    await visit(page, "/corporate/sign-up");
    const form = signUpForm(page);
    const submit = form.getByRole("button", { name: "Send 6-Digit Code" });
    const who = person("rules");
    if (jsEnabled()) {
      await expect(submit).toBeDisabled();
      const checklist = form.getByRole("list", { name: /password needs/i });
      await expect(checklist).toHaveCount(0);
      await form.getByLabel("Password", { exact: true }).fill("abc");
      await expect(checklist).toBeVisible();
      const item = (label: string) => checklist.getByRole("listitem").filter({ hasText: label });
      for (const label of [
        "At least 8 characters",
        "At least one special character",
        "At least one number",
        "At least one capital letter",
        "Passwords match",
      ]) {
        await expect(item(label), label).toHaveAttribute("data-met", "false");
      }
      await fillSignUp(page, who, PASSWORD, "Passw0rd?");
      for (const label of ["At least 8 characters", "At least one special character", "At least one number"]) {
        await expect(item(label), label).toHaveAttribute("data-met", "true");
      }
      await expect(item("At least one capital letter")).toHaveAttribute("data-met", "true");
      await expect(item("Passwords match")).toHaveAttribute("data-met", "false");
      await expect(submit).toBeDisabled();
      await form.getByLabel("Confirm Password", { exact: true }).fill(PASSWORD);
      await expect(item("Passwords match")).toHaveAttribute("data-met", "true");
      await expect(submit).toBeEnabled();
      await expectAccessible(page);
    } else {
      // Passes the browser's pattern (digit, lower case, non-word, 6+) but not SPEC's rules.
      await fillSignUp(page, who, "abc12!x", "abc12!y");
      await submit.click();
      await expect(page.getByText("Password must be at least 8 characters.")).toBeVisible();
      await expect(page.getByText("Password must contain at least one capital letter.")).toBeVisible();
      await expect(page.getByText("Passwords do not match.")).toBeVisible();
      await expect(form.getByLabel("Password", { exact: true })).toBeFocused();
      // The typed values come back, never the passwords.
      await expect(form.getByLabel("Email", { exact: true })).toHaveValue(who.email);
      await expect(form.getByLabel("Password", { exact: true })).toHaveValue("");
      await expectNoHorizontalScroll(page);
    }
  });

  test("Terms and Privacy: dialogs with JavaScript, links to the policy pages without", async ({ page }) => {
    await visit(page, "/corporate/sign-up");
    const form = signUpForm(page);
    if (jsEnabled()) {
      for (const title of ["Terms and Conditions", "Privacy Policy"]) {
        await form.getByRole("link", { name: title }).click();
        const dialog = page.getByRole("dialog", { name: title });
        await expect(dialog).toBeVisible();
        await page.keyboard.press("Escape");
        await expect(dialog).toBeHidden();
      }
    } else {
      await expect(form.getByRole("link", { name: "Terms and Conditions" })).toHaveAttribute(
        "href",
        "/policies/terms-and-conditions",
      );
      await expect(form.getByRole("link", { name: "Privacy Policy" })).toHaveAttribute(
        "href",
        "/policies/privacy-policy",
      );
    }
  });

  test("a used email: the message and the link to retrieve the details", async ({ page, request }) => {
    const existing = await createAccount(request, "duplicate");
    await visit(page, "/corporate/sign-up");
    await fillSignUp(page, { ...existing, firstName: "Other" });
    await signUpForm(page).getByRole("button", { name: "Send 6-Digit Code" }).click();
    const alert = page.getByRole("alert").filter({ hasText: TEXT.alreadyRegistered });
    await expect(alert).toBeVisible();
    await expect(alert).toBeFocused();
    await expect(alert.getByRole("link", { name: TEXT.retrieve })).toHaveAttribute(
      "href",
      "/corporate/forgot-password-request",
    );
    await expect(page).toHaveURL(/\/corporate\/sign-up$/);
    await expectAccessible(page);
  });
});

test.describe("verify", () => {
  test("sign up → the emailed code → verify → the dashboard", { tag: "@journey" }, async ({ page }) => {
    const who = person("journey");
    await signUp(page, who);
    const url = new URL(page.url());
    // Register's userId is a random UUID, not a counter (nobody can aim a code at a stranger).
    expect(url.searchParams.get("userId")).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(url.searchParams.get("requestToken")).toBeTruthy();

    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Verify");
    await expect(bannerOf(page)).toContainText("Enter the 6-Digit code we emailed you");
    await expect(page.getByRole("heading", { name: "Step 2: Verify Email" })).toBeVisible();
    await expect(page.getByText(TEXT.allow)).toBeVisible();
    await expect(page.getByRole("button", { name: "Resend code" })).toBeVisible();
    await expect(page.getByText(/next screen.*company details/)).toBeVisible();
    const code = verifyForm(page).getByLabel("Verification Code", { exact: true });
    await expect(code).toHaveAttribute("inputmode", "numeric");
    await expect(code).toHaveAttribute("maxlength", "6");
    await expect(code).toHaveAttribute("autocomplete", "one-time-code");
    await expectAccessible(page);

    const email = await waitForEmail(who.email, CODE_SUBJECT);
    expect(email.to).toEqual([who.email]);
    await enterCode(page, verificationCodeOf(email));
    await expect(page).toHaveURL(/\/portal\/dashboard$/);
    expect(await sessionCookie(page)).toBeTruthy();
  });

  test("a wrong code, then resend: the green message, a new token in the address, the new code verifies", {
    tag: "@journey",
  }, async ({ page }) => {
    const who = person("resend");
    await signUp(page, who);
    const first = verificationCodeOf(await waitForEmail(who.email, CODE_SUBJECT));
    const wrong = first === "000000" ? "111111" : "000000";

    await enterCode(page, wrong);
    const alert = page.getByRole("alert").filter({ hasText: "Invalid verification code." });
    await expect(alert).toHaveText(TEXT.invalidCode);
    await expect(alert).toBeFocused();
    await expectAccessible(page);

    const before = new URL(page.url()).searchParams.get("requestToken");
    await alert.getByRole("button", { name: "resend verification code" }).click();
    await expect(page.getByRole("status").filter({ hasText: TEXT.resent })).toBeVisible();
    await expect.poll(() => new URL(page.url()).searchParams.get("requestToken")).not.toBe(before);
    await expect(page.getByText(TEXT.invalidCode)).toHaveCount(0);
    if (jsEnabled()) await waitForHydration(page);

    const second = verificationCodeOf(await waitForEmail(who.email, CODE_SUBJECT, 2));
    if (second !== first) {
      // The first code stopped working when the new one was sent.
      await enterCode(page, first);
      await expect(page.getByRole("alert")).not.toBeEmpty();
      await expect(page).toHaveURL(/\/corporate\/verify\?/);
    }
    await enterCode(page, second);
    await expect(page).toHaveURL(/\/portal\/dashboard$/);
  });

  test("the code must have exactly 6 digits", async ({ page }) => {
    await signUp(page, person("digits"));
    const posts = watchPosts(page);
    await enterCode(page, "12345");
    if (jsEnabled()) await expect(page.getByText(TEXT.codeRule)).toBeVisible();
    else {
      // The browser's own check (pattern [0-9]{6}) keeps the post from leaving.
      const field = verifyForm(page).getByLabel("Verification Code", { exact: true });
      expect(await field.evaluate((el: HTMLInputElement) => el.validity.patternMismatch)).toBe(true);
    }
    await page.waitForTimeout(300);
    expect(posts).toEqual([]);
  });

  test("without userId or requestToken, or with a malformed userId, the page goes to /error", async ({ page }) => {
    for (const path of [
      "/corporate/verify",
      "/corporate/verify?userId=1",
      "/corporate/verify?requestToken=abc",
      "/corporate/verify?userId=1&requestToken=abc",
      "/corporate/verify?userId=not-a-uuid&requestToken=abc",
    ]) {
      await page.goto(path);
      await expect(page, path).toHaveURL(/\/error$/);
    }
  });
});

test.describe("login and logout", () => {
  test("page: banner, 'Enter your Login Details', fields, the forgot-password link", async ({ page }) => {
    await visit(page, "/corporate/login");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Login");
    await expect(bannerOf(page)).toContainText(
      "Login and start rewarding your hard-working staff members or customers",
    );
    await expect(page.getByRole("heading", { name: "Enter your Login Details" })).toBeVisible();
    const form = loginForm(page);
    await expect(form.getByLabel("Email", { exact: true })).toHaveAttribute("type", "email");
    await expect(form.getByLabel("Password", { exact: true })).toHaveAttribute("type", "password");
    await expect(submitButton(form)).toHaveText("Login");
    await expect(form.getByRole("link", { name: "Oops! I forgot my password" })).toHaveAttribute(
      "href",
      "/corporate/forgot-password-request",
    );
    await expectAccessible(page);
  });

  test("wrong password → the banner; logout → login with a new session id → the dashboard", {
    tag: "@journey",
  }, async ({ page, request }) => {
    const who = await createAccount(request, "login");
    await logIn(page, who.email, "Wrong-Passw0rd!");
    const alert = page.getByRole("alert").filter({ hasText: "Incorrect email or password." });
    await expect(alert).toHaveText(TEXT.incorrectLogin);
    await expect(alert).toBeFocused();
    await expect(alert.getByRole("link", { name: "reset your password" })).toHaveAttribute(
      "href",
      "/corporate/forgot-password-request",
    );
    await expectAccessible(page);
    if (jsEnabled()) {
      // docs/requirements.md §S4: editing email or password clears the banner.
      await loginForm(page).getByLabel("Password", { exact: true }).fill("x");
      await expect(page.getByText(TEXT.incorrectLogin)).toHaveCount(0);
    }

    const anonymous = await sessionCookie(page);
    await logIn(page, who.email, PASSWORD);
    await expect(page).toHaveURL(/\/portal\/dashboard$/);
    const signedIn = await sessionCookie(page);
    expect(signedIn).toBeTruthy();
    expect(signedIn).not.toBe(anonymous);

    // Signed in, the login page goes straight to the dashboard.
    await page.goto("/corporate/login");
    await expect(page).toHaveURL(/\/portal\/dashboard$/);

    await logOut(page);
    expect(await sessionCookie(page), "the session cookie is gone").toBeUndefined();
    // Signed out, the login page stays (no session to send to the dashboard).
    await page.goto("/corporate/login");
    await expect(page).toHaveURL(/\/corporate\/login$/);

    await logIn(page, who.email, PASSWORD);
    await expect(page).toHaveURL(/\/portal\/dashboard$/);
    expect(await sessionCookie(page)).not.toBe(signedIn);
  });

  test("an unverified account: a wrong password says what it says for any account; the right one → a new code → verify → the dashboard", {
    tag: "@journey",
  }, async ({ page, request }) => {
    const who = person("unverified");
    const registered = await request.post("/api/Register", {
      data: { ...who, password: PASSWORD, captchaToken: "", isCaptchaV3: true },
    });
    expect(registered.status()).toBe(200);
    const signUpLink = (await registered.json()) as { userId: string; requestToken: string };
    await waitForEmail(who.email, CODE_SUBJECT);

    await logIn(page, who.email, "Wrong#Pass1");
    await expect(page.getByRole("alert").filter({ hasText: "Incorrect" })).toHaveText(TEXT.incorrectLogin);
    await expect(page).toHaveURL(/\/corporate\/login$/);

    await logIn(page, who.email, PASSWORD);
    await expect(page).toHaveURL(/\/corporate\/verify\?/);
    const url = new URL(page.url());
    expect([...url.searchParams.keys()]).toEqual(["userId", "requestToken"]);
    expect(url.searchParams.get("userId")).toBe(signUpLink.userId);
    expect(url.searchParams.get("requestToken")).not.toBe(signUpLink.requestToken);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Verify");
    await expect(page.getByRole("heading", { name: "Step 2: Verify Email" })).toBeVisible();
    await expect(page.getByText(TEXT.allow)).toBeVisible();
    await expectAccessible(page);
    await shoot(page, "login-unverified-verify");
    if (jsEnabled()) await waitForHydration(page);

    // The code of this login (the second email), not sign-up's, which it voided.
    await enterCode(page, verificationCodeOf(await waitForEmail(who.email, CODE_SUBJECT, 2)));
    await expect(page).toHaveURL(/\/portal\/dashboard$/);
    expect(await sessionCookie(page)).toBeTruthy();
  });

  test("the button shows 'Please wait' while the post runs (JavaScript)", async ({ page, request }) => {
    test.skip(!jsEnabled(), "the busy state is a JavaScript enhancement");
    const who = await createAccount(request, "busy");
    await page.route(
      (url) => url.pathname.startsWith("/corporate/login"),
      async (route) => {
        if (route.request().method() === "POST") await new Promise((r) => setTimeout(r, 800));
        await route.continue();
      },
    );
    await visit(page, "/corporate/login");
    const form = loginForm(page);
    await form.getByLabel("Email", { exact: true }).fill(who.email);
    await form.getByLabel("Password", { exact: true }).fill(PASSWORD);
    await form.getByRole("button", { name: "Login", exact: true }).click();
    const busy = form.getByRole("button", { name: "Please wait" });
    await expect(busy).toBeDisabled();
    await expect(busy).toHaveAttribute("aria-busy", "true");
    await expect(page).toHaveURL(/\/portal\/dashboard$/);
  });
});

test.describe("forgot and reset password", () => {
  test("forgot → the emailed link → reset → login with the new password", { tag: "@journey" }, async ({
    page,
    request,
  }) => {
    const who = await createAccount(request, "reset");
    await visit(page, "/corporate/login");
    await loginForm(page).getByRole("link", { name: "Oops! I forgot my password" }).click();
    await expect(page).toHaveURL(/\/corporate\/forgot-password-request$/);
    if (jsEnabled()) await waitForHydration(page);
    await expect(page.getByText(TEXT.forgotIntro)).toBeVisible();
    await expectAccessible(page);
    const form = formWith(page, "Email");
    await form.getByLabel("Email", { exact: true }).fill(who.email);
    await form.getByRole("button", { name: "Send Reset Password Link" }).click();
    await expect(page).toHaveURL(/\?sent=1$/);
    await expect(page.getByText(TEXT.forgotSent)).toBeVisible();
    await expectAccessible(page);

    const link = resetLinkOf(await waitForEmail(who.email, RESET_SUBJECT));
    expect(link.origin).toBe(MAIL_APP_URL);
    await visit(page, `${link.pathname}${link.search}`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Reset Password");
    const reset = formWith(page, "Choose a password");
    const submit = reset.getByRole("button", { name: "Reset Password" });
    const newPassword = "N3w-Passw0rd!";
    await reset.getByLabel("Choose a password", { exact: true }).fill(newPassword);
    if (jsEnabled()) {
      await expect(reset.getByRole("list", { name: /password needs/i })).toBeVisible();
      await expect(submit).toBeDisabled();
    }
    await reset.getByLabel("Confirm password", { exact: true }).fill(newPassword);
    if (jsEnabled()) await expect(submit).toBeEnabled();
    await expectAccessible(page);
    await submit.click();
    await expect(page).toHaveURL(/\/corporate\/login$/);
    await expect(page.getByText("Password reset", { exact: true })).toBeVisible();

    await logIn(page, who.email, PASSWORD);
    await expect(page.getByText(TEXT.incorrectLogin)).toBeVisible();
    await logIn(page, who.email, newPassword);
    await expect(page).toHaveURL(/\/portal\/dashboard$/);

    // The link works once.
    await logOut(page);
    await visit(page, `${link.pathname}${link.search}`);
    await reset.getByLabel("Choose a password", { exact: true }).fill("An0ther-Passw0rd!");
    await reset.getByLabel("Confirm password", { exact: true }).fill("An0ther-Passw0rd!");
    await submit.click();
    await expect(page.getByRole("alert")).toContainText(
      "This password reset link has already been used. Please request a new one.",
    );
  });

  test("forgot request: 'Email is required.' and no format rule", async ({ page }) => {
    await visit(page, "/corporate/forgot-password-request");
    const form = formWith(page, "Email");
    const field = form.getByLabel("Email", { exact: true });
    await expect(field).toHaveAttribute("required", "");
    await expect(field).not.toHaveAttribute("type", "email");
    if (jsEnabled()) {
      await form.getByRole("button", { name: "Send Reset Password Link" }).click();
      await expect(page.getByText("Email is required.")).toBeVisible();
      await expect(field).toBeFocused();
    }
    // An address nobody has gets the same answer (nothing reveals whether it exists).
    await field.fill(`nobody.${Date.now()}@example.com`);
    await form.getByRole("button", { name: "Send Reset Password Link" }).click();
    await expect(page.getByText(TEXT.forgotSent)).toBeVisible();
  });

  test("without passwordResetToken the reset page goes to /error", async ({ page }) => {
    await page.goto("/corporate/forgot-password");
    await expect(page).toHaveURL(/\/error$/);
  });
});
