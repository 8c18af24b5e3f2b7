// Helpers shared by the end-to-end specs. Selectors go through roles and accessible names
// (docs/requirements.md §D8) so the specs describe what a visitor sees, not how a page is built.
import { randomBytes } from "node:crypto";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Locator, type Page, test } from "@playwright/test";

export { expect, test };

/** Whether the running project has JavaScript on (the "-nojs" projects turn it off). */
export function jsEnabled(): boolean {
  return test.info().project.use.javaScriptEnabled !== false;
}

/** Whether the running project is a phone (under SPEC's 768 px breakpoint). */
export function isPhone(): boolean {
  return (test.info().project.use.viewport?.width ?? 1280) < 768;
}

/** With E2E_SCREENSHOTS set, a full-page PNG of what the test sees, in its output folder. */
export async function shoot(page: Page, name: string) {
  if (process.env.E2E_SCREENSHOTS) {
    await page.screenshot({ path: test.info().outputPath(`${name}.png`), fullPage: true });
  }
}

/** A token no other test (in any project or run against the same server) will produce. */
export function uniqueToken(): string {
  return `${Date.now().toString(36)}${randomBytes(4).toString("hex")}`;
}

/** A fresh address per call: the server's database is shared by every test. */
export function uniqueEmail(tag: string): string {
  return `e2e.${tag}.${test.info().project.name}.${uniqueToken()}@example.com`;
}

/**
 * Opens a page and, with JavaScript on, waits until React has hydrated it, so clicks reach the
 * enhanced behaviour rather than the server HTML underneath.
 */
export async function visit(page: Page, path: string) {
  const response = await page.goto(path);
  if (jsEnabled()) await waitForHydration(page);
  return response;
}

export async function waitForHydration(page: Page) {
  await page.waitForFunction(
    () => {
      const root = document.querySelector("main") ?? document.body;
      return Object.keys(root).some((key) => key.startsWith("__reactFiber$"));
    },
    undefined,
    { timeout: 10_000 },
  );
}

/** The page's JavaScript: the client entry, its chunks and the route modules (build/client/assets). */
const isScript = (url: URL) => url.pathname.startsWith("/assets/") && url.pathname.endsWith(".js");

/**
 * Holds every JavaScript module the page asks for until `release` is called: the page is the
 * server's HTML, as on a slow machine still loading its scripts. Routing also keeps the modules
 * out of the browser's cache, so every page load asks again.
 */
export async function holdScripts(page: Page): Promise<() => void> {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(isScript, async (route) => {
    await released;
    // The page may have gone on meanwhile (a native GET); its requests are then cancelled.
    await route.continue().catch(() => undefined);
  });
  return release;
}

/** The control that opens the phone drawer, whatever element implements it. */
export function drawerOpener(page: Page): Locator {
  const banner = page.getByRole("banner");
  const name = /menu|navigation/i;
  return banner
    .getByRole("button", { name })
    .or(banner.getByRole("link", { name }))
    .or(banner.getByRole("checkbox", { name }))
    .or(banner.locator("summary").filter({ hasText: name }))
    .or(banner.locator('summary[aria-label*="menu" i], summary[aria-label*="navigation" i]'));
}

/** docs/requirements.md §S2: under 768 px a slide-in drawer titled Navigation (a dialog named by its title, docs/requirements.md §D8). */
export function drawer(page: Page): Locator {
  return page.getByRole("dialog", { name: "Navigation" });
}

export async function openDrawer(page: Page): Promise<Locator> {
  await drawerOpener(page).first().click();
  const panel = drawer(page);
  await expect(panel).toBeVisible();
  return panel;
}

/** Where the header's links live at this width: the bar on desktop, the opened drawer on a phone. */
export async function navigation(page: Page): Promise<Locator> {
  return isPhone() ? openDrawer(page) : page.getByRole("banner");
}

/** The form that holds a field with this label. */
export function formWith(page: Page, label: string): Locator {
  return page.locator("form").filter({ has: page.getByLabel(label, { exact: true }) });
}

/** Collects the URLs of the POST requests the page sends from now on. */
export function watchPosts(page: Page): string[] {
  const posts: string[] = [];
  page.on("request", (request) => {
    if (request.method() === "POST") posts.push(request.url());
  });
  return posts;
}

/** A form's submit button, whatever its wording (an input, or a button without a type). */
export function submitButton(form: Locator): Locator {
  return form
    .locator('button[type="submit"], button:not([type]), input[type="submit"]')
    .filter({ visible: true })
    .first();
}

/**
 * Asserts that most of a section is on screen: at least half of it, or half the viewport when
 * the section is taller than the viewport. Covers the phone's top alignment, the desktop's
 * centring and a native jump without JavaScript alike.
 */
export async function expectSectionInView(page: Page, section: Locator) {
  const viewportHeight = page.viewportSize()?.height ?? 800;
  await expect
    .poll(
      async () => {
        const box = await section.boundingBox();
        if (!box) return 0;
        const visible = Math.min(box.y + box.height, viewportHeight) - Math.max(box.y, 0);
        return visible / Math.min(box.height, viewportHeight);
      },
      { message: "share of the section on screen", timeout: 5_000 },
    )
    .toBeGreaterThanOrEqual(0.5);
}

/** A page's banner: the nearest section (or header) around its h1 (docs/requirements.md §D8: the banner title is the h1). */
export function bannerOf(page: Page): Locator {
  return page.getByRole("heading", { level: 1 }).locator("xpath=ancestor::*[self::section or self::header][1]");
}

/** A regular expression that finds a brand written "Flight-Centre", "Flight Centre" or "FlightCentre". */
export function brandPattern(brand: string): RegExp {
  return new RegExp(brand.split("-").join("[-\\s]?"), "i");
}

/** Finds an item by its image's alternative text or its visible title. */
export function imageOrText(scope: Locator, name: RegExp | string): Locator {
  return scope.getByRole("img", { name }).or(scope.getByText(name)).first();
}

/** axe finds nothing on the page as it stands (each violation listed with its first nodes). */
export async function expectNoAxeViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  const summary = results.violations.map((v) => ({
    rule: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(" ")}: ${n.failureSummary?.split("\n").slice(1).join(" ")}`),
  }));
  expect(summary, "axe violations").toEqual([]);
}

/** The page is no wider than the viewport: nothing scrolls sideways (the 360 px checks). */
export async function expectNoHorizontalScroll(page: Page) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth, `scrollWidth at innerWidth ${innerWidth}`).toBeLessThanOrEqual(innerWidth);
}
