// Every public page: no horizontal scrolling at 360 px (DESIGN.md §1) and no axe violations
// (DESIGN.md §9). axe runs in the JavaScript-on projects only: its analyze() hangs with JS off.
import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { PUBLIC_PAGES } from "./env.ts";
import { expect, openDrawer, test, visit } from "./support.ts";

async function horizontalOverflow(page: Page) {
  return page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
}

async function expectNoAxeViolations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  const summary = results.violations.map((v) => ({
    rule: v.id,
    impact: v.impact,
    help: v.help,
    nodes: v.nodes.slice(0, 5).map((n) => `${n.target.join(" ")}: ${n.failureSummary?.split("\n").slice(1).join(" ")}`),
  }));
  expect(summary, "axe violations").toEqual([]);
}

test.describe("no horizontal scroll at 360 px", () => {
  test.skip(({ viewport }) => (viewport?.width ?? 1280) >= 768, "phone width only");

  for (const path of PUBLIC_PAGES) {
    test(path, async ({ page }) => {
      await visit(page, path);
      const { scrollWidth, innerWidth } = await horizontalOverflow(page);
      expect(scrollWidth, `scrollWidth at innerWidth ${innerWidth}`).toBeLessThanOrEqual(innerWidth);
    });
  }

  test("/ with the drawer open", async ({ page }) => {
    await visit(page, "/");
    await openDrawer(page);
    const { scrollWidth, innerWidth } = await horizontalOverflow(page);
    expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
  });
});

test.describe("axe", () => {
  test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "axe hangs with JavaScript off");

  for (const path of PUBLIC_PAGES) {
    test(path, async ({ page }) => {
      await visit(page, path);
      await expectNoAxeViolations(page);
    });
  }

  test("/ with the phone drawer open", async ({ page, viewport }) => {
    test.skip((viewport?.width ?? 1280) >= 768, "phone width only");
    await visit(page, "/");
    await openDrawer(page);
    await page.waitForTimeout(500); // the slide-in transition
    await expectNoAxeViolations(page);
  });
});
