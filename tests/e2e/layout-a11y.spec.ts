// Every public page: no horizontal scrolling at 360 px (docs/requirements.md §D1) and no axe violations
// (§D9). axe runs in the JavaScript-on projects only: its analyze() hangs with JS off.
import { PUBLIC_PAGES } from "./env.ts";
import { expectNoAxeViolations, expectNoHorizontalScroll, openDrawer, test, visit } from "./support.ts";

test.describe("no horizontal scroll at 360 px", () => {
  test.skip(({ viewport }) => (viewport?.width ?? 1280) >= 768, "phone width only");

  for (const path of PUBLIC_PAGES) {
    test(path, async ({ page }) => {
      await visit(page, path);
      await expectNoHorizontalScroll(page);
    });
  }

  test("/ with the drawer open", async ({ page }) => {
    await visit(page, "/");
    await openDrawer(page);
    await expectNoHorizontalScroll(page);
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
