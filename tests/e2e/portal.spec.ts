// The portal shell (docs/requirements.md §S2 Portal, Company-details onboarding, Dashboard, Help (portal);
// §S4 portal gate and onboarding video; §S5 company details and contact; §S8): the gate, Step 3,
// the dashboard with its Getting Started video, Quick Links and reward history, the header and
// its phone menu, portal Help, logout; with JavaScript on and off, at 360 px and 1280 px.
//
// Every test gets a fresh signed-in manager (fixtures.ts): onboarded (`manager`), or stopped
// before Step 3 or the video (`newManager`), then opens the dashboard where the login lands.
import type { Locator, Page } from "@playwright/test";
import { ABN_MESSAGES } from "../../modules/companies/abn.ts";
import { COMPANY_SIZES, INDUSTRIES } from "../../modules/companies/schema.ts";
import { E2E_URLS } from "./env.ts";
import { expect, type Manager, test, VALID_ABN } from "./fixtures.ts";
import {
  expectNoAxeViolations,
  expectNoHorizontalScroll,
  formWith,
  isPhone,
  jsEnabled,
  submitButton,
  uniqueToken,
  visit,
  waitForHydration,
  watchPosts,
} from "./support.ts";

/** 11 digits whose check digits are wrong. */
const WRONG_CHECK_DIGITS_ABN = "12345678901";
const SUPPORT_EMAIL = "support@rewards.localhost";
const DASHBOARD = "/portal/dashboard";
/** A manager who has saved neither Step 3 nor seen the Getting Started video. */
const BEFORE_STEP_3 = { companyDetails: false, videoWatched: false };

function companyForm(page: Page): Locator {
  return formWith(page, "ABN");
}

async function fillCompanyDetails(
  page: Page,
  values: { name?: string; abn?: string; size?: string; industry?: string },
): Promise<void> {
  const form = companyForm(page);
  if (values.name !== undefined) await form.getByLabel("Company Name", { exact: true }).fill(values.name);
  if (values.abn !== undefined) await form.getByLabel("ABN", { exact: true }).fill(values.abn);
  if (values.size !== undefined) await form.getByLabel("Company Size", { exact: true }).selectOption(values.size);
  if (values.industry !== undefined) await form.getByLabel("Industry", { exact: true }).selectOption(values.industry);
}

async function expectOnboardingScreen(page: Page, account: Manager) {
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(`Welcome, ${account.firstName}`);
  await expect(page.getByRole("heading", { name: "Step 3: Add Your Company Details" })).toBeVisible();
  await expect(page.getByRole("form", { name: "Add Your Company Details" })).toBeVisible();
  // Onboarding mode: no 'Welcome <first name>' greeting, no dashboard.
  await expect(page.getByText(`Welcome ${account.firstName}`, { exact: true })).toHaveCount(0);
  await expect(page.getByRole("heading", { name: "Quick Links" })).toHaveCount(0);
}

/** The menu under 768 px, or the header bar on desktop: where the portal's links live. */
async function portalNavigation(page: Page): Promise<Locator> {
  if (!isPhone()) return page.getByRole("banner");
  await page
    .getByRole("banner")
    .getByRole(jsEnabled() ? "button" : "link", { name: "Menu", exact: true })
    .click();
  const menu = page.getByRole("dialog", { name: "Menu" });
  await expect(menu).toBeVisible();
  return menu;
}

/** Closes the Getting Started video: the dialog's Close button, or the section's Close form without JavaScript. */
async function closeGettingStarted(page: Page) {
  const close = page.getByRole("button", { name: "Close", exact: true });
  if (jsEnabled()) {
    await close.click();
  } else {
    const reloaded = page.waitForEvent("load");
    await close.click();
    await reloaded;
  }
  await expect(page.getByRole("heading", { name: "Quick Links" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Getting Started" })).toHaveCount(0);
}

function catalogueHref(account: Manager): RegExp {
  const base = E2E_URLS.catalogue.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`^${base}\\?CompanyID=${account.companyId}&UniqueCode=${account.userId}$`);
}

test.describe("portal gate", () => {
  test("without a session every portal page goes to the login page", async ({ page }) => {
    for (const path of ["/portal", "/portal/dashboard", "/portal/help", "/portal/onboarding-add-company-details"]) {
      await page.goto(path);
      await expect(page, path).toHaveURL(/\/corporate\/login$/);
    }
  });

  test("without company details every portal page shows Step 3, company name prefilled", async ({
    page,
    newManager,
  }) => {
    const account = await newManager(BEFORE_STEP_3);
    await visit(page, DASHBOARD);
    await expectOnboardingScreen(page, account);
    const form = companyForm(page);
    await expect(form.getByLabel("Company Name", { exact: true })).toHaveValue(account.companyName);
    await expect(page.getByText("You'll have an onboarding video on the next screen →")).toBeVisible();
    await expect(submitButton(form)).toHaveText("Save & Continue");

    for (const path of ["/portal", "/portal/help", "/portal/onboarding-add-company-details", "/Portal/Help"]) {
      await visit(page, path);
      await expectOnboardingScreen(page, account);
    }
    await expect(page.locator("details")).toHaveCount(0); // not the Help page's FAQs
  });

  test("Step 3 fields: Company Size as 'N employees', SPEC's industries, 'Select...' placeholders", async ({
    page,
    newManager,
  }) => {
    await newManager(BEFORE_STEP_3);
    await visit(page, DASHBOARD);
    const form = companyForm(page);
    const abn = form.getByLabel("ABN", { exact: true });
    await expect(abn).toHaveAttribute("maxlength", "11");
    await expect(abn).toHaveAttribute("inputmode", "numeric");
    await expect(form.getByLabel("Company Name", { exact: true })).toHaveAttribute("maxlength", "100");

    const sizes = form.getByLabel("Company Size", { exact: true }).locator("option");
    await expect(sizes).toHaveText(["Select...", ...COMPANY_SIZES.map((size) => `${size} employees`)]);
    const industries = form.getByLabel("Industry", { exact: true }).locator("option");
    await expect(industries).toHaveText(["Select...", ...INDUSTRIES]);
  });
});

test.describe("company details (Step 3)", () => {
  test("blank fields are refused before anything is posted", async ({ page, newManager }) => {
    await newManager(BEFORE_STEP_3);
    await visit(page, DASHBOARD);
    await fillCompanyDetails(page, { name: "" });
    const posts = watchPosts(page);
    await submitButton(companyForm(page)).click();
    if (jsEnabled()) {
      for (const message of [
        "Company Name is required.",
        "ABN is required.",
        "Enterprise size is required.",
        "Industry is required.",
      ]) {
        await expect(page.getByText(message, { exact: true }), message).toBeVisible();
      }
    } else {
      // The browser's own required check stops the post.
      const name = companyForm(page).getByLabel("Company Name", { exact: true });
      expect(await name.evaluate((input: HTMLInputElement) => input.validity.valueMissing)).toBe(true);
    }
    await page.waitForTimeout(300);
    expect(posts, "POST requests sent").toEqual([]);
  });

  test("SPEC's messages: a blank company name and an ABN that is not 11 digits", async ({ page, newManager }) => {
    await newManager(BEFORE_STEP_3);
    await visit(page, DASHBOARD);
    // A space passes the browser's required check; the form and the server trim it.
    await fillCompanyDetails(page, { name: " ", abn: "1234", size: "1-10", industry: "Education" });
    await submitButton(companyForm(page)).click();
    await expect(page.getByText("Company Name is required.", { exact: true })).toBeVisible();
    await expect(page.getByText("ABN must have exactly 11 digits.", { exact: true })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Step 3: Add Your Company Details" })).toBeVisible();
  });

  test("an ABN with wrong check digits is refused with a clear message", async ({ page, newManager }) => {
    await newManager(BEFORE_STEP_3);
    await visit(page, DASHBOARD);
    await fillCompanyDetails(page, { abn: WRONG_CHECK_DIGITS_ABN, size: "51-200", industry: "Finance" });
    await submitButton(companyForm(page)).click();
    await expect(page.getByText(ABN_MESSAGES.checkDigits, { exact: true })).toBeVisible();
    await expect(companyForm(page).getByLabel("ABN", { exact: true })).toHaveAttribute("aria-invalid", "true");
    await visit(page, "/portal/dashboard");
    await expect(page.getByRole("heading", { name: "Step 3: Add Your Company Details" })).toBeVisible();
  });

  test("Save & Continue leads to the dashboard; the Getting Started video shows once", async ({
    page,
    request,
    newManager,
  }) => {
    const account = await newManager(BEFORE_STEP_3);
    await visit(page, DASHBOARD);
    await fillCompanyDetails(page, { name: "Penny's Widgets", abn: VALID_ABN, size: "201-500", industry: "Retail" });
    await submitButton(companyForm(page)).click();

    // With JavaScript the Getting Started dialog is modal: the page behind it is inert, so read it by tag.
    await expect(page.locator("h1")).toHaveText("Dashboard");
    await expect(page).toHaveURL(/\/portal\/dashboard$/);
    await expect(page.getByText(`Welcome ${account.firstName}`, { exact: true })).toBeAttached();
    await expect(page.getByText("Step 3: Add Your Company Details")).toHaveCount(0);

    if (jsEnabled()) {
      await waitForHydration(page);
      const dialog = page.getByRole("dialog", { name: "Getting Started" });
      await expect(dialog).toBeVisible();
      await expect(dialog.locator("video, iframe")).toHaveCount(1);
      const posts = watchPosts(page);
      // Every way of closing records the flag: Escape on the phone, the Close button on desktop.
      if (isPhone()) await page.keyboard.press("Escape");
      else await dialog.getByRole("button", { name: "Close", exact: true }).click();
      await expect(dialog).toBeHidden();
      await expect.poll(() => posts.some((url) => new URL(url).pathname.startsWith("/portal/dashboard"))).toBe(true);
    } else {
      const section = page.getByRole("region", { name: "Getting Started" });
      await expect(section).toBeVisible();
      await expect(section.locator("video, iframe")).toHaveCount(1);
      await closeGettingStarted(page);
    }
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Dashboard");
    await expect(page.getByText(`Welcome ${account.firstName}`, { exact: true })).toBeVisible();

    // Recorded on the server: not shown again, in this session or the next.
    await expect(async () => {
      await visit(page, "/portal/dashboard");
      await expect(page.getByRole("heading", { name: "Quick Links" })).toBeVisible({ timeout: 1_000 });
      await expect(page.getByRole("heading", { name: "Getting Started" })).toHaveCount(0, { timeout: 1_000 });
    }).toPass({ timeout: 10_000 });
    const watched = await request.post("/api/Identity/login", {
      data: { userName: account.email, password: account.password, captchaToken: "", isCaptchaV3: true },
    });
    expect((await watched.json()).appSettings).toEqual({
      hasProvidedCompanyDetails: true,
      hasWatchedOnboardingVideo: true,
    });

    // Step 3 is done: its address now leads to the dashboard.
    await visit(page, "/portal/onboarding-add-company-details");
    await expect(page).toHaveURL(/\/portal\/dashboard$/);
  });
});

test("a toast confirms the save when the onboarding video was already watched", async ({ page, newManager }) => {
  await newManager({ companyDetails: false });
  await visit(page, DASHBOARD);
  await fillCompanyDetails(page, { abn: VALID_ABN, size: "1-10", industry: "Other" });
  await submitButton(companyForm(page)).click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Dashboard");
  const toast = page.getByRole("region", { name: /Notifications/ }).getByText("Company details saved");
  await expect(toast).toBeVisible();
  if (jsEnabled()) {
    await page.getByRole("button", { name: "Dismiss notification" }).click();
    await expect(toast).toBeHidden();
  }
  await expect(page.getByRole("heading", { name: "Getting Started" })).toHaveCount(0);
});

test.describe("dashboard", () => {
  test("Quick Links: four tiles", async ({ page, manager: account }) => {
    await visit(page, DASHBOARD);
    await expect(page.getByRole("heading", { name: "Getting Started" })).toHaveCount(0);
    const tiles = page.getByRole("region", { name: "Quick Links" }).getByRole("link");
    await expect(tiles).toHaveCount(4);
    await expect(tiles.nth(0)).toHaveAccessibleName("View My Team Members");
    await expect(tiles.nth(0)).toHaveAttribute("href", "/portal/my-team");
    await expect(tiles.nth(1)).toHaveAccessibleName("Add a Team Member");
    await expect(tiles.nth(1)).toHaveAttribute("href", "/portal/my-team");
    await expect(tiles.nth(2)).toHaveAccessibleName("Reward My Team");
    await expect(tiles.nth(2)).toHaveAttribute("href", "/portal/reward-my-team");
    await expect(tiles.nth(3)).toHaveAccessibleName(/^View Reward Catalogue/);
    await expect(tiles.nth(3)).toHaveAttribute("href", catalogueHref(account));
    await expect(tiles.nth(3)).toHaveAttribute("target", "_blank");
  });

  test("Most Recent Reward History: a table, empty until rewards exist", async ({ page, manager: _ }) => {
    await visit(page, DASHBOARD);
    await expect(page.getByRole("heading", { name: "Most Recent Reward History" })).toBeVisible();
    await expect(page.getByText("Here are all of your most recent rewards")).toBeVisible();
    const table = page.getByRole("table", { name: "Most Recent Reward History" });
    await expect(table.locator("thead th")).toHaveText(["Date", "Campaign / Reward Name", "Released"]);
    // Date and name are hidden on small screens.
    for (const name of ["Date", "Campaign / Reward Name"]) {
      const header = table.getByRole("columnheader", { name, exact: true });
      if (isPhone()) await expect(header).toBeHidden();
      else await expect(header).toBeVisible();
    }
    await expect(table.getByRole("columnheader", { name: "Released" })).toBeVisible();
    await expect(table.getByRole("cell", { name: "No data to display" })).toBeVisible();
  });
});

test.describe("header and menu", () => {
  test("logo, My Team, Reward My Team, Help, View Rewards (new tab) and Logout", async ({ page, manager: account }) => {
    await visit(page, DASHBOARD);
    await expect(page.getByRole("banner").getByRole("link", { name: "Reward Portal" })).toHaveAttribute(
      "href",
      "/portal/dashboard",
    );
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Dashboard");
    await expect(page.getByText(`Welcome ${account.firstName}`, { exact: true })).toBeVisible();

    const nav = await portalNavigation(page);
    await expect(nav.getByRole("link", { name: "My Team", exact: true })).toHaveAttribute("href", "/portal/my-team");
    await expect(nav.getByRole("link", { name: "Reward My Team", exact: true })).toHaveAttribute(
      "href",
      "/portal/reward-my-team",
    );
    await expect(nav.getByRole("link", { name: "Help", exact: true })).toHaveAttribute("href", "/portal/help");
    const viewRewards = nav.getByRole("link", { name: /^View Rewards/ });
    await expect(viewRewards).toHaveAttribute("href", catalogueHref(account));
    await expect(viewRewards).toHaveAttribute("target", "_blank");
    await expect(nav.getByRole("button", { name: "Logout" })).toBeVisible();

    await nav.getByRole("link", { name: "Help", exact: true }).click();
    await expect(page).toHaveURL(/\/portal\/help$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Help");
    await expect(page.getByRole("dialog", { name: "Menu" })).toBeHidden();
  });

  test("the phone menu opens as a dialog and closes again", async ({ page, newManager }) => {
    test.skip(!isPhone(), "under 768 px only");
    await newManager();
    await visit(page, DASHBOARD);
    const menu = await portalNavigation(page);
    await expectNoHorizontalScroll(page);
    await menu.getByRole(jsEnabled() ? "button" : "link", { name: "Close menu" }).click();
    await expect(menu).toBeHidden();
    if (jsEnabled()) await expect(page.getByRole("button", { name: "Menu", exact: true })).toBeFocused();
  });

  test("Logout ends the session", async ({ page, manager: _ }) => {
    await visit(page, DASHBOARD);
    const nav = await portalNavigation(page);
    await nav.getByRole("button", { name: "Logout" }).click();
    await expect(page).toHaveURL(/\/corporate\/login$/);
    await page.goto("/portal/dashboard");
    await expect(page).toHaveURL(/\/corporate\/login$/);
  });

  test("the footer carries the licence line", async ({ page, manager: _ }) => {
    await visit(page, DASHBOARD);
    await expect(page.getByRole("contentinfo")).toContainText("licensed exclusively to a marketing company");
  });
});

test.describe("portal Help", () => {
  test("title 'Help', the How It Works video and the ten FAQs", async ({ page, manager: _ }) => {
    await visit(page, "/portal/help");
    await expect(page).toHaveTitle("Help");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Help");
    const howItWorks = page.getByRole("region", { name: "How It Works" });
    await expect(howItWorks.locator("video, iframe")).toHaveCount(1);
    await expect(page.getByRole("main").locator("details")).toHaveCount(10);
  });

  test("Contact Us: the message only, SPEC's messages, then the thank-you state", { tag: "@journey" }, async ({
    page,
    manager: _,
  }) => {
    await visit(page, "/portal/help");
    const form = formWith(page, "Message");
    const message = form.getByLabel("Message", { exact: true });
    await expect(message).toHaveAttribute("maxlength", "256");
    for (const label of ["First Name", "Last Name", "Email"]) {
      await expect(form.getByLabel(label, { exact: true }), label).toHaveCount(0);
    }

    await message.fill("   ");
    await submitButton(form).click();
    await expect(page.getByText("Message is required.", { exact: true })).toBeVisible();

    if (jsEnabled()) {
      await message.evaluate((element) => element.removeAttribute("maxlength"));
      await message.fill("x".repeat(257));
      await submitButton(form).click();
      await expect(page.getByText("Message must be less than 256 characters.", { exact: true })).toBeVisible();
    }

    const text = `Portal help ${uniqueToken()}: how do I add my team?`;
    await formWith(page, "Message").getByLabel("Message", { exact: true }).fill(text);
    await submitButton(formWith(page, "Message")).click();
    await expect(page.getByRole("heading", { name: "Thank You!" })).toBeVisible();
    await expect(page).toHaveURL(/\/portal\/help\?sent=1#contact$/);

    await expect(async () => {
      await page.goto("/dev/mailbox");
      const mail = page.getByRole("article").filter({ hasText: text });
      await expect(mail).toBeVisible({ timeout: 1_000 });
      await expect(mail).toContainText(SUPPORT_EMAIL);
    }).toPass({ timeout: 10_000 });
  });
});

test.describe("portal pages at 360 px and with axe", () => {
  test("Step 3", async ({ page, newManager }) => {
    await newManager(BEFORE_STEP_3);
    await visit(page, DASHBOARD);
    if (isPhone()) await expectNoHorizontalScroll(page);
    if (jsEnabled()) await expectNoAxeViolations(page);
  });

  test("dashboard with the Getting Started video, then without", async ({ page, newManager }) => {
    await newManager({ videoWatched: false });
    await visit(page, DASHBOARD);
    await expect(page.getByText("Getting Started", { exact: true })).toBeVisible();
    if (isPhone()) await expectNoHorizontalScroll(page);
    if (jsEnabled()) await expectNoAxeViolations(page);
    await closeGettingStarted(page);
    if (isPhone()) await expectNoHorizontalScroll(page);
    if (jsEnabled()) await expectNoAxeViolations(page);
  });

  test("Help", async ({ page, manager: _ }) => {
    await visit(page, "/portal/help");
    if (isPhone()) await expectNoHorizontalScroll(page);
    if (jsEnabled()) await expectNoAxeViolations(page);
  });

  test("the phone menu open", async ({ page, newManager }) => {
    test.skip(!isPhone() || !jsEnabled(), "phone with JavaScript (axe hangs without it)");
    await newManager();
    await visit(page, DASHBOARD);
    await portalNavigation(page);
    await page.waitForTimeout(500); // the slide-in transition
    await expectNoAxeViolations(page);
  });
});
