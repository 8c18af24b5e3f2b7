// Settings › Profile and Company (ADR 0022 §1), in all four projects (JavaScript on and off, 360
// and 1280 px), on the test server that sends real email by SMTP: the code of an email change is
// read from the message the new address received, and the old address's notice too. A second
// browser context signed in as the same manager shows that a password change, or "Sign out of all
// other sessions", ends the other session while this one stays signed in.
import type { Browser, BrowserContext, Page } from "@playwright/test";
import { createManager, expect, type Manager, PASSWORD, signIn, test } from "./fixtures.ts";
import { MAIL_APP_URL, verificationCodeOf, waitForEmail } from "./mail.ts";
import { uniqueEmail, visit } from "./support.ts";

test.use({ baseURL: MAIL_APP_URL });

const NEW_PASSWORD = "Fresh#Pass2026";

function toast(page: Page) {
  return page.getByRole("region", { name: /Notifications/ });
}

function section(page: Page, name: string) {
  return page.getByRole("region", { name });
}

/** Another browser (its own cookies) with this project's viewport and JavaScript setting, signed in as `manager`. */
async function otherBrowser(browser: Browser, manager: Manager): Promise<{ context: BrowserContext; page: Page }> {
  const use = test.info().project.use;
  const context = await browser.newContext({
    baseURL: MAIL_APP_URL,
    viewport: use.viewport,
    javaScriptEnabled: use.javaScriptEnabled,
    locale: "en-AU",
    timezoneId: "Australia/Sydney",
  });
  const page = await context.newPage();
  await signIn(page, manager);
  await page.goto("/portal/dashboard");
  await expect(page).toHaveURL(/\/portal\/dashboard$/);
  return { context, page };
}

test("the name: sign-up's rules, then the header greets the new name", async ({ page, manager: _ }) => {
  await visit(page, "/portal/settings");
  const name = section(page, "Your name");
  await name.getByLabel("First Name").fill("   ");
  await name.getByRole("button", { name: "Save name" }).click();
  await expect(name.getByText("First Name is required.")).toBeVisible();

  await name.getByLabel("First Name").fill("Rosalind");
  await name.getByLabel("Last Name").fill("Lee");
  await name.getByRole("button", { name: "Save name" }).click();
  await expect(toast(page)).toContainText("Your name is saved");
  await expect(page.getByRole("banner")).toContainText("Welcome Rosalind");
  await expect(section(page, "Your name").getByLabel("Last Name")).toHaveValue("Lee");
  // Every page's header reads it.
  await visit(page, "/portal/dashboard");
  await expect(page.getByRole("banner")).toContainText("Welcome Rosalind");
});

test("an email change: the code from the email to the new address switches it, and the old address is told", {
  tag: "@journey",
}, async ({ page, manager }) => {
  const newEmail = uniqueEmail("settings-new");
  await visit(page, "/portal/settings");
  const email = section(page, "Email address");
  await expect(email).toContainText(`You sign in with ${manager.email}.`);

  // A wrong current password: its message, and no code sent.
  await email.getByLabel("New Email").fill(newEmail);
  await email.getByLabel("Current Password").fill("Wrong#Pass1");
  await email.getByRole("button", { name: "Send code" }).click();
  await expect(section(page, "Email address").getByText("Your current password is incorrect.")).toBeVisible();

  await section(page, "Email address").getByLabel("New Email").fill(newEmail);
  await section(page, "Email address").getByLabel("Current Password").fill(PASSWORD);
  await section(page, "Email address").getByRole("button", { name: "Send code" }).click();
  await expect(toast(page)).toContainText(`We emailed a 6-digit code to ${newEmail}.`);
  const codeStep = section(page, "Email address");
  await expect(codeStep).toContainText(`We emailed a 6-digit code to ${newEmail}.`);
  const code = verificationCodeOf(await waitForEmail(newEmail, "Confirm your new email address"));

  // A wrong code first: its message; the address stays.
  const wrong = code === "000000" ? "111111" : "000000";
  await codeStep.getByLabel("Verification Code").fill(wrong);
  await codeStep.getByRole("button", { name: "Confirm new email" }).click();
  await expect(
    section(page, "Email address").getByText("Invalid verification code. Please try again or resend code again."),
  ).toBeVisible();

  await section(page, "Email address").getByLabel("Verification Code").fill(code);
  await section(page, "Email address").getByRole("button", { name: "Confirm new email" }).click();
  await expect(toast(page)).toContainText(`You now sign in with ${newEmail}.`);
  await expect(section(page, "Email address")).toContainText(`You sign in with ${newEmail}.`);

  const notice = await waitForEmail(manager.email, "Your sign-in email address was changed");
  expect(notice.text).toContain(newEmail);
  // The new address signs in; the old one no longer does.
  const login = (userName: string) =>
    page.request.post("/api/Identity/login", { data: { userName, password: PASSWORD, captchaToken: "" } });
  expect((await login(newEmail)).status()).toBe(200);
  expect((await login(manager.email)).status()).toBe(400);
});

test("a password change ends the other session; this one stays signed in", { tag: "@journey" }, async ({
  page,
  browser,
  manager,
}) => {
  const other = await otherBrowser(browser, manager);
  await visit(page, "/portal/settings");
  const password = section(page, "Password");

  // A weak new password (it passes the browser's pattern, not sign-up's rules), then a wrong
  // current one: each its message, nothing changes.
  await password.getByLabel("Current Password").fill(PASSWORD);
  await password.getByLabel("New Password", { exact: true }).fill("abc12!xy");
  await password.getByLabel("Confirm New Password").fill("abc12!xy");
  await password.getByRole("button", { name: "Change password" }).click();
  await expect(section(page, "Password").getByText("Password must contain at least one capital letter.")).toBeVisible();

  await section(page, "Password").getByLabel("Current Password").fill("Wrong#Pass1");
  await section(page, "Password").getByLabel("New Password", { exact: true }).fill(NEW_PASSWORD);
  await section(page, "Password").getByLabel("Confirm New Password").fill(NEW_PASSWORD);
  await section(page, "Password").getByRole("button", { name: "Change password" }).click();
  await expect(section(page, "Password").getByText("Your current password is incorrect.")).toBeVisible();
  await other.page.goto("/portal/dashboard");
  await expect(other.page).toHaveURL(/\/portal\/dashboard$/);

  await section(page, "Password").getByLabel("Current Password").fill(PASSWORD);
  await section(page, "Password").getByLabel("New Password", { exact: true }).fill(NEW_PASSWORD);
  await section(page, "Password").getByLabel("Confirm New Password").fill(NEW_PASSWORD);
  await section(page, "Password").getByRole("button", { name: "Change password" }).click();
  await expect(toast(page)).toContainText("Your password is changed");

  // The other browser's next page is the login page; this one carries on.
  await other.page.goto("/portal/dashboard");
  await expect(other.page).toHaveURL(/\/corporate\/login$/);
  await visit(page, "/portal/settings");
  await expect(page).toHaveURL(/\/portal\/settings$/);
  const sessions = section(page, "Active sessions").getByTestId("session-list").getByRole("listitem");
  await expect(sessions).toHaveCount(1);
  await expect(sessions.first()).toContainText("This session");
  await other.context.close();

  const login = (password: string) =>
    page.request.post("/api/Identity/login", { data: { userName: manager.email, password, captchaToken: "" } });
  expect((await login(PASSWORD)).status()).toBe(400);
  expect((await login(NEW_PASSWORD)).status()).toBe(200);
});

test("sign out of all other sessions: the list shows them, then only this one", { tag: "@journey" }, async ({
  page,
  browser,
  manager,
}) => {
  const other = await otherBrowser(browser, manager);
  await visit(page, "/portal/settings");
  const list = section(page, "Active sessions").getByTestId("session-list").getByRole("listitem");
  // The API verification's login, this browser's and the other's.
  await expect(list).toHaveCount(3);
  await expect(list.filter({ hasText: "This session" })).toHaveCount(1);
  await expect(list.first()).toContainText("127.0.0.1");

  await section(page, "Active sessions").getByRole("button", { name: "Sign out of all other sessions" }).click();
  await expect(toast(page)).toContainText("Signed out of all other sessions");
  await expect(list).toHaveCount(1);
  await expect(list.first()).toContainText("This session");
  await expect(section(page, "Active sessions")).toContainText("You have no other sessions.");

  await other.page.goto("/portal/my-team");
  await expect(other.page).toHaveURL(/\/corporate\/login$/);
  await visit(page, "/portal/my-team");
  await expect(page).toHaveURL(/\/portal\/my-team$/);
  await other.context.close();
});

test("company details: the Owner edits them with onboarding's rules (ABN check digits)", async ({ page, manager }) => {
  await visit(page, "/portal/settings/company");
  const form = section(page, "Company details");
  await expect(form.getByLabel("Company Name")).toHaveValue(manager.companyName);
  await expect(form.getByLabel("ABN")).toHaveValue("51824753556");

  await form.getByLabel("ABN").fill("51824753557");
  await form.getByRole("button", { name: "Save company details" }).click();
  await expect(section(page, "Company details").getByText("ABN is not valid; please check the number.")).toBeVisible();

  const renamed = `${manager.companyName} Group`;
  await section(page, "Company details").getByLabel("Company Name").fill(renamed);
  await section(page, "Company details").getByLabel("ABN").fill("53004085616");
  await section(page, "Company details").getByRole("button", { name: "Save company details" }).click();
  await expect(toast(page)).toContainText("Company details saved");
  await expect(section(page, "Company details").getByLabel("Company Name")).toHaveValue(renamed);
  await expect(section(page, "Company details").getByLabel("ABN")).toHaveValue("53004085616");
});

test("company details: a Manager reads them and who may change them, with no form", async ({ page, request }) => {
  const manager = await createManager(request, MAIL_APP_URL);
  // Made a Manager the way an Owner would: a second Owner demotes them (ADR 0022 §3 keeps one Owner).
  await demote(request, manager);
  await signIn(page, manager);
  await visit(page, "/portal/settings/company");
  const details = section(page, "Company details");
  await expect(details).toContainText("Only an Owner of your company can change the company details.");
  await expect(details).toContainText(manager.companyName);
  await expect(details.getByRole("button")).toHaveCount(0);
  await expect(page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Company" })).toHaveCount(
    0,
  );
});

/**
 * Turns `manager` into a Manager through the Managers API: an invited second Owner of the same
 * company changes their role (the invitation's link read from the email it sent).
 */
async function demote(request: Parameters<typeof createManager>[0], manager: Manager) {
  const inviteeEmail = uniqueEmail("settings-owner");
  const invited = await request.post("/api/Managers/invites", {
    headers: manager.headers,
    data: { email: inviteeEmail, role: "owner" },
  });
  expect(invited.status(), await invited.text()).toBe(201);
  const invite = await waitForEmail(
    inviteeEmail,
    `${manager.firstName} ${manager.lastName} invited you to ${manager.companyName} on Reward Portal`,
  );
  const token = decodeURIComponent(/accept-invite\?token=([^\s&"<]+)/.exec(invite.text)?.[1] ?? "");
  expect(token).not.toBe("");
  const accepted = await request.post("/api/ManagerInvites/accept", {
    data: { token, firstName: "Otto", lastName: "Owner", password: PASSWORD, confirmPassword: PASSWORD },
  });
  expect(accepted.status(), await accepted.text()).toBe(200);
  const { accessToken } = (await accepted.json()) as { accessToken: string };
  const demoted = await request.put(`/api/Managers/${manager.userId}/role`, {
    headers: { authorization: `Bearer ${accessToken}` },
    data: { role: "manager" },
  });
  expect(demoted.ok(), await demoted.text()).toBe(true);
}
