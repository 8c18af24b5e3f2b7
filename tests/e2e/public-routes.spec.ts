// docs/requirements.md §S2 public routes: every page renders SPEC's texts; redirects, the error page, health checks.
import { E2E_URLS } from "./env.ts";
import { bannerOf, expect, imageOrText, isPhone, test, visit } from "./support.ts";

test.describe("landing page /", () => {
  test("hero: headline, retailer sub-text and Create Free Account", async ({ page }) => {
    await visit(page, "/");
    await expect(page.getByRole("heading", { level: 1, name: "Reward your people instantly" })).toBeVisible();
    const main = page.getByRole("main");
    await expect(main.getByText(/eGift cards?/i).first()).toBeVisible();
    await expect(main.getByText(/over 100/i).first()).toBeVisible();
    await expect(main.getByRole("link", { name: "Create Free Account" }).first()).toHaveAttribute(
      "href",
      "/corporate/sign-up",
    );
  });

  test("has the sections glanceBrands, howItWorks, glanceCatalogue, features, WhyChoose and footer", async ({
    page,
  }) => {
    await visit(page, "/");
    for (const id of ["glanceBrands", "howItWorks", "glanceCatalogue", "features", "WhyChoose", "footer"]) {
      await expect(page.locator(`[id="${id}"]`), `#${id}`).toHaveCount(1);
      await expect(page.locator(`[id="${id}"]`), `#${id}`).toBeVisible();
    }
  });

  test("How it Works lists the four steps", async ({ page }) => {
    await visit(page, "/");
    const section = page.locator("#howItWorks");
    for (const step of ["Create Account", "Add Recipients", "Pay with Ease", "Send Rewards"]) {
      await expect(section.getByText(step).first(), step).toBeVisible();
    }
  });

  test("the catalogue glance shows the latest rewards from the catalogue API and its two buttons", async ({
    page,
    request,
  }) => {
    const answer = await request.get("/api/Catalogue/latest-reward");
    expect(answer.status()).toBe(200);
    const items = (await answer.json()) as Array<{ brand: string; imageURL: string; clickURL: string }>;
    expect(items.length, "seeded latest rewards").toBeGreaterThanOrEqual(12);

    await visit(page, "/");
    const section = page.locator("#glanceCatalogue");
    const first = items[0]!;
    await expect(imageOrText(section, first.brand)).toBeAttached();
    await expect(section.locator(`a[href="${first.clickURL}"]`).first()).toBeAttached();
    await expect(section.getByRole("link", { name: "Reward My Team" })).toHaveAttribute("href", "/corporate/sign-up");
    const browse = section.getByRole("link", { name: "Browse All Rewards" });
    await expect(browse).toHaveAttribute("href", E2E_URLS.catalogue);
    await expect(browse).toHaveAttribute("target", "_blank");
  });

  test("why choose us: the statistics, the 1994 history and the ISO certifications", async ({ page }) => {
    await visit(page, "/");
    const section = page.locator('[id="WhyChoose"]');
    for (const text of ["65%", "44%", "2.7x", "37%", "1994", "ISO 9001", "ISO 27001"]) {
      await expect(section.getByText(text).first(), text).toBeVisible();
    }
  });

  test("call to action: Are You Reward Ready?", async ({ page }) => {
    await visit(page, "/");
    const main = page.getByRole("main");
    await expect(main.getByRole("heading", { name: "Are You Reward Ready?" })).toBeVisible();
    await expect(main.getByText("Supercharge Your Team and Business Outputs in 4 Easy Steps")).toBeVisible();
    await expect(main.getByRole("link", { name: "Get Started Now!" })).toHaveAttribute("href", "/corporate/sign-up");
    await expect(main.getByRole("link", { name: /^I[’']m Not Ready$/ })).toHaveAttribute("href", "/not-ready-yet");
  });

  test("footer: Explore, Policies, Resources, About Us, the licence line and the 2024 copyright", async ({ page }) => {
    await visit(page, "/");
    const footer = page.locator("#footer");
    for (const column of ["Explore", "Policies", "Resources"]) {
      await expect(footer.getByText(column, { exact: true }).first(), column).toBeVisible();
    }
    await expect(footer.getByRole("link", { name: "Home", exact: true })).toHaveAttribute("href", "/");
    await expect(footer.getByRole("link", { name: "How it Works", exact: true })).toHaveAttribute(
      "href",
      /#howItWorks$/,
    );
    await expect(footer.getByRole("link", { name: "View Rewards", exact: true })).toBeVisible();
    await expect(footer.getByRole("link", { name: "Help Centre", exact: true })).toHaveAttribute("href", "/help");
    await expect(footer.getByRole("link", { name: "About Us", exact: true })).toHaveAttribute("href", /#WhyChoose$/);
    await expect(footer.getByRole("link", { name: "Terms and Conditions" })).toHaveAttribute(
      "href",
      "/policies/terms-and-conditions",
    );
    await expect(footer.getByRole("link", { name: "Privacy Policy" })).toHaveAttribute(
      "href",
      "/policies/privacy-policy",
    );
    await expect(footer.getByText(/licensed/i).first()).toContainText(/exclusively/i);
    await expect(footer.getByText(/(©|copyright)\s*(©\s*)?2024/i).first()).toBeVisible();
  });

  test("desktop header: logo and the links in the bar", async ({ page }) => {
    test.skip(isPhone(), "phones show the links in the drawer (drawer spec)");
    await visit(page, "/");
    const banner = page.getByRole("banner");
    await expect(banner.locator('a[href="/"]').first()).toBeVisible();
    for (const name of ["How it Works", "View Rewards", "Help"]) {
      await expect(banner.getByRole("link", { name, exact: true }), name).toBeVisible();
    }
    await expect(banner.getByRole("link", { name: "Sign Up", exact: true })).toHaveAttribute(
      "href",
      "/corporate/sign-up",
    );
    await expect(banner.getByRole("link", { name: "Login", exact: true })).toHaveAttribute("href", "/corporate/login");
  });
});

test.describe("/help", () => {
  test("title, banner, the FAQs and the Contact Us form", async ({ page }) => {
    await visit(page, "/help");
    await expect(page).toHaveTitle(/FAQs and Help Centre/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Help Centre - FAQs, Terms and Contact us.");
    await expect(page.getByRole("heading", { name: /FAQs?/ }).first()).toBeVisible();
    await expect(page.getByRole("heading", { name: /Contact Us/i }).first()).toBeVisible();
    for (const label of ["First Name", "Last Name", "Email", "Message"]) {
      await expect(page.getByLabel(label, { exact: true }), label).toBeVisible();
    }
  });

  test("/Help redirects to /help", async ({ page, request }) => {
    const answer = await request.get("/Help", { maxRedirects: 0 });
    expect([301, 302, 307, 308]).toContain(answer.status());
    expect(answer.headers().location).toMatch(/^(https?:\/\/[^/]+)?\/help$/);

    await visit(page, "/Help");
    await expect(page).toHaveURL(/\/help$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Help Centre - FAQs, Terms and Contact us.");
  });
});

test.describe("/not-ready-yet", () => {
  test("title, banner and the form heading", async ({ page }) => {
    await visit(page, "/not-ready-yet");
    await expect(page).toHaveTitle(/Join the Waitlist (\.\.\.|…) Get Early Access/);
    const h1 = page.getByRole("heading", { level: 1 });
    await expect(h1).toHaveText("Not Ready?");
    await expect(
      page.getByText("Enter your details to stay updated on product updates and exclusive tips"),
    ).toBeVisible();
    await expect(page.getByRole("heading", { name: /We[’']ll keep you updated/ })).toBeVisible();
  });

  test("the banner is 250 px high on phones and 380 px otherwise", async ({ page }) => {
    await visit(page, "/not-ready-yet");
    const box = await bannerOf(page).boundingBox();
    expect(box?.height).toBe(isPhone() ? 250 : 380);
  });
});

test.describe("policies", () => {
  test("terms and conditions: banner and last updated 4 November 2024", async ({ page }) => {
    await visit(page, "/policies/terms-and-conditions");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Terms and Conditions");
    await expect(bannerOf(page).getByText("Policies", { exact: true })).toBeVisible();
    await expect(page.getByText(/Last updated:?\s*4 November 2024/)).toBeVisible();
    // docs/requirements.md §S1's Reward Dollar terms.
    const main = page.getByRole("main");
    await expect(main).toContainText(/Reward Dollars?/);
    await expect(main).toContainText(/18 months/);
    await expect(main).toContainText(/10\s?%/);
    await expect(main).toContainText(/Australia/);
  });

  test("privacy policy: banner and last updated 5 November 2024", async ({ page }) => {
    await visit(page, "/policies/privacy-policy");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Privacy Policy");
    await expect(bannerOf(page).getByText("Policies", { exact: true })).toBeVisible();
    await expect(page.getByText(/Last updated:?\s*5 November 2024/)).toBeVisible();
    await expect(page.getByRole("main")).toContainText(/Australian Privacy Principles/);
  });
});

test.describe("error page", () => {
  async function expectErrorPage(page: import("@playwright/test").Page) {
    await expect(page.getByRole("heading", { level: 1, name: "Error", exact: true })).toBeVisible();
    await expect(page.getByText("Sorry, an unexpected error has occurred.")).toBeVisible();
    await expect(page.getByRole("link", { name: "Go back home" })).toHaveAttribute("href", "/");
  }

  test("/error shows Error, the sentence and Go back home, which leads to /", async ({ page }) => {
    await visit(page, "/error");
    await expectErrorPage(page);
    await page.getByRole("link", { name: "Go back home" }).click();
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole("heading", { level: 1, name: "Reward your people instantly" })).toBeVisible();
  });

  test("an unknown route answers 404 with the error page and its message", async ({ page }) => {
    const response = await visit(page, "/no-such-page/at-all");
    expect(response?.status()).toBe(404);
    await expectErrorPage(page);
    await expect(page.getByText(/not found/i).first()).toBeVisible();
  });
});

test.describe("/GiftCard/{code}", () => {
  test("redirects to the same page on the voucher site (Location header)", async ({ request }) => {
    const answer = await request.get("/GiftCard/ABC123", { maxRedirects: 0 });
    expect([301, 302, 303, 307, 308]).toContain(answer.status());
    expect(answer.headers().location).toBe(`${E2E_URLS.voucher}GiftCard/ABC123`);
  });

  test("URL-encodes the code", async ({ request }) => {
    const answer = await request.get("/GiftCard/AB%20C%3F1", { maxRedirects: 0 });
    expect(answer.headers().location).toBe(`${E2E_URLS.voucher}GiftCard/AB%20C%3F1`);
  });

  test("an over-long code is an error, not a redirect", async ({ request }) => {
    const answer = await request.get(`/GiftCard/${"X".repeat(300)}`, { maxRedirects: 0 });
    expect(answer.status()).toBeGreaterThanOrEqual(400);
    expect(answer.headers().location).toBeUndefined();
  });

  test("the browser goes on to the voucher site", async ({ page }) => {
    // The voucher host does not resolve here (and a redirect target cannot be routed): watch
    // the browser ask for it instead.
    const target = `${E2E_URLS.voucher}GiftCard/ABC123`;
    const voucherRequest = page.waitForRequest(target);
    await page.goto("/GiftCard/ABC123").catch(() => undefined);
    expect((await voucherRequest).url()).toBe(target);
  });
});

test.describe("health checks", () => {
  test("/healthz answers 200 while the process is up", async ({ request }) => {
    const answer = await request.get("/healthz");
    expect(answer.status()).toBe(200);
    expect(await answer.json()).toMatchObject({ status: "ok" });
  });

  test("/readyz answers 200 while the database is reachable", async ({ request }) => {
    const answer = await request.get("/readyz");
    expect(answer.status()).toBe(200);
    expect(await answer.json()).toMatchObject({ status: "ready" });
  });
});
