// Single sign-on (ADR 0046) in the four projects (JavaScript on and off, 360 px and 1280 px),
// against a real OpenID Connect provider (oidc-provider, started by playwright.config.ts from
// tests/e2e/oidc-provider-server.ts): an Owner configures it in Settings › Single sign-on and tests
// the connection; a new colleague presses "Sign in with your company account", signs in on the
// provider's own login page, comes back through the callback and lands in the portal as a
// Manager; with single sign-on required, the colleague's password sign-in is refused with the
// message naming the button, and the break-glass Owner still signs in with a password.
import type { Browser, Page } from "@playwright/test";
import { SSO_BUTTON_LABEL, SSO_DETAILS } from "../../modules/single-sign-on/schema.ts";
import { TEST_CLIENT_ID, TEST_CLIENT_SECRET } from "../support/oidc-provider.ts";
import { expect, test } from "./fixtures.ts";
import { expectNoAxeViolations, expectNoHorizontalScroll, isPhone, jsEnabled, uniqueToken, visit } from "./support.ts";

const PAGE = "/portal/settings/single-sign-on";
const ISSUER = `http://127.0.0.1:${Number(process.env.E2E_OIDC_PORT ?? 3333)}`;

/** A browser of its own (its own cookies) in this project's viewport and JavaScript setting. */
async function otherBrowser(browser: Browser, baseURL: string | undefined): Promise<Page> {
  const context = await browser.newContext({
    baseURL,
    javaScriptEnabled: jsEnabled(),
    viewport: isPhone() ? { width: 360, height: 800 } : { width: 1280, height: 900 },
  });
  return context.newPage();
}

function toast(page: Page) {
  return page.getByRole("region", { name: /Notifications/ });
}

test("an Owner sets up single sign-on; a new colleague signs in through the provider as a Manager; once required, their password is refused and the break-glass Owner still signs in", {
  tag: "@journey",
}, async ({ page, browser, baseURL, manager: owner }) => {
  test.setTimeout(120_000);
  const domain = `sso-${uniqueToken()}.test`.toLowerCase();
  const colleagueEmail = `nina.colleague@${domain}`;

  // The Owner configures the provider.
  await visit(page, PAGE);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Single sign-on");
  await expect(
    page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Single sign-on" }),
  ).toBeVisible();
  await expect(page.getByTestId("sso-redirect-uri")).toHaveText(`${baseURL}/corporate/sso/callback`);
  await page.getByLabel("Issuer URL").fill(ISSUER);
  await page.getByLabel("Client ID").fill(TEST_CLIENT_ID);
  await page.getByLabel("Client secret").fill(TEST_CLIENT_SECRET);
  await page.getByLabel("Email domains").fill(domain);
  await page.getByRole("button", { name: "Save single sign-on" }).click();
  await expect(toast(page)).toContainText("Single sign-on saved");
  await expect(page.getByTestId("sso-break-glass")).toContainText(owner.email);
  await expectNoHorizontalScroll(page);
  if (jsEnabled()) await expectNoAxeViolations(page);

  await page.getByRole("button", { name: "Test the connection" }).click();
  await expect(page.getByTestId("sso-test-result")).toHaveText(SSO_DETAILS.testOk);

  // A new colleague signs in with their company account.
  const colleague = await otherBrowser(browser, baseURL);
  await visit(colleague, "/corporate/login");
  await colleague.getByLabel("Email").fill(colleagueEmail);
  await colleague.getByRole("button", { name: SSO_BUTTON_LABEL }).click();
  // The provider's own login page.
  await expect(colleague).toHaveURL(new RegExp(`^${ISSUER}/interaction/`));
  await colleague.locator('input[name="login"]').fill(colleagueEmail);
  await colleague.locator('input[name="password"]').fill("any password at the provider");
  await colleague.getByRole("button", { name: "Sign-in" }).click();
  await expect(colleague).toHaveURL(/\/portal\/dashboard$/);

  // The Owner sees them among the managers, as a Manager.
  await visit(page, "/portal/settings/managers");
  const row = page.getByRole("listitem").filter({ hasText: colleagueEmail });
  await expect(row).toContainText("Manager");

  // The Owner requires single sign-on (the secret field left empty keeps the secret).
  await visit(page, PAGE);
  await page.getByLabel(/Require single sign-on/).check();
  await page.getByRole("button", { name: "Save single sign-on" }).click();
  await expect(toast(page)).toContainText("Single sign-on saved");
  await expect(page.getByLabel(/Require single sign-on/)).toBeChecked();

  // The colleague's password sign-in is refused, naming the button.
  const refused = await otherBrowser(browser, baseURL);
  await visit(refused, "/corporate/login");
  await refused.getByLabel("Email").fill(colleagueEmail);
  await refused.getByLabel("Password").fill("Some#Password2025");
  await refused.getByRole("button", { name: "Login", exact: true }).click();
  await expect(refused.getByRole("alert")).toContainText(SSO_DETAILS.required);
  await expect(refused).toHaveURL(/\/corporate\/login$/);

  // And so is a password reset for them.
  await visit(refused, "/corporate/forgot-password-request");
  await refused.getByLabel("Email").fill(colleagueEmail);
  await refused.getByRole("button", { name: "Send Reset Password Link" }).click();
  await expect(refused.getByRole("alert")).toContainText(SSO_DETAILS.required);

  // The break-glass Owner still signs in with the password.
  const breakGlass = await otherBrowser(browser, baseURL);
  await visit(breakGlass, "/corporate/login");
  await breakGlass.getByLabel("Email").fill(owner.email);
  await breakGlass.getByLabel("Password").fill(owner.password);
  await breakGlass.getByRole("button", { name: "Login", exact: true }).click();
  await expect(breakGlass).toHaveURL(/\/portal\/dashboard$/);
});

// ADR 0046, amended: every issuer single sign-on accepts is reachable from the login form, also
// without JavaScript (Chrome applies form-action to the redirect that answers its post). The run's
// second provider (tests/e2e/oidc-provider-server.ts) is on 127.0.0.2, which the login page's old
// form-action (localhost and 127.0.0.1 only) did not allow; it wants client_secret_post, sends the
// email claims from UserInfo only and leaves the email claim out of its discovery document.
const OTHER_LOOPBACK_ISSUER = `http://127.0.0.2:${Number(process.env.E2E_OIDC_PORT ?? 3333)}`;

test("a provider on another loopback address, with client_secret_post, is reached from the login form and signs a colleague in", {
  tag: "@journey",
}, async ({ page, browser, baseURL, manager: _ }) => {
  test.setTimeout(90_000);
  const reachable = await fetch(`${OTHER_LOOPBACK_ISSUER}/.well-known/openid-configuration`).then(
    (r) => r.ok,
    () => false,
  );
  test.skip(!reachable, "this machine's loopback has no 127.0.0.2");
  const domain = `sso-${uniqueToken()}.test`.toLowerCase();
  const colleagueEmail = `pat.colleague@${domain}`;

  await visit(page, PAGE);
  await page.getByLabel("Issuer URL").fill(OTHER_LOOPBACK_ISSUER);
  await page.getByLabel("Client ID").fill(TEST_CLIENT_ID);
  await page.getByLabel("Client secret").fill(TEST_CLIENT_SECRET);
  await page.getByLabel("Client authentication").selectOption("client_secret_post");
  await page.getByLabel("Email domains").fill(domain);
  await page.getByRole("button", { name: "Save single sign-on" }).click();
  await expect(toast(page)).toContainText("Single sign-on saved");
  await expect(page.getByLabel("Client authentication")).toHaveValue("client_secret_post");
  await page.getByRole("button", { name: "Test the connection" }).click();
  await expect(page.getByTestId("sso-test-result")).toHaveText(SSO_DETAILS.testOk);
  // Its discovery document does not list the email claim: a note beside the success.
  await expect(page.getByTestId("sso-test-notes")).toHaveText(SSO_DETAILS.testNoteEmailClaimUnlisted);

  const colleague = await otherBrowser(browser, baseURL);
  await visit(colleague, "/corporate/login");
  await colleague.getByLabel("Email").fill(colleagueEmail);
  await colleague.getByRole("button", { name: SSO_BUTTON_LABEL }).click();
  await expect(colleague).toHaveURL(new RegExp(`^${OTHER_LOOPBACK_ISSUER}/interaction/`));
  await colleague.locator('input[name="login"]').fill(colleagueEmail);
  await colleague.locator('input[name="password"]').fill("any password at the provider");
  await colleague.getByRole("button", { name: "Sign-in" }).click();
  await expect(colleague).toHaveURL(/\/portal\/dashboard$/);
  // The address came from UserInfo: the Owner sees the colleague among the managers.
  await visit(page, "/portal/settings/managers");
  await expect(page.getByRole("listitem").filter({ hasText: colleagueEmail })).toContainText("Manager");
});

test("a domain without single sign-on is told so on the login page, and nothing leaves the site", async ({ page }) => {
  await visit(page, "/corporate/login");
  await page.getByLabel("Email").fill(`someone@no-sso-${uniqueToken()}.test`);
  await page.getByRole("button", { name: SSO_BUTTON_LABEL }).click();
  await expect(page.getByRole("alert")).toContainText(SSO_DETAILS.notConfigured);
  await expect(page).toHaveURL(/\/corporate\/login$/);
});

test("a forged callback (a state this browser was not sent off with) shows a clear error page and signs no one in", async ({
  page,
}) => {
  const response = await visit(page, "/corporate/sso/callback?code=forged-code&state=forged-state");
  expect(response?.status()).toBe(400);
  await expect(page.getByRole("heading", { name: "The sign-in did not complete" })).toBeVisible();
  await expect(page.getByRole("alert")).toContainText(SSO_DETAILS.failed);
  await expectNoHorizontalScroll(page);
  if (jsEnabled()) await expectNoAxeViolations(page);
  await page.getByRole("link", { name: "Back to the login page" }).click();
  await expect(page).toHaveURL(/\/corporate\/login$/);
});
