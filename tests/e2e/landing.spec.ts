// The landing page's behaviour (docs/requirements.md §S2): the phone drawer, anchor links and the
// retailer carousel, with JavaScript on and off.
import type { Page } from "@playwright/test";
import { BRANDS, NAV_LINKS } from "./env.ts";
import {
  brandPattern,
  drawer,
  drawerOpener,
  expect,
  expectSectionInView,
  imageOrText,
  isPhone,
  navigation,
  openDrawer,
  test,
  visit,
} from "./support.ts";

test.describe("phone drawer", () => {
  test.skip(({ viewport }) => (viewport?.width ?? 1280) >= 768, "the drawer is the navigation under 768 px");

  test("is closed at first, then opens titled Navigation with the header's links", async ({ page }) => {
    await visit(page, "/");
    await expect(drawer(page)).toBeHidden();
    const panel = await openDrawer(page);
    await expect(panel.getByText("Navigation", { exact: true })).toBeVisible();
    for (const name of NAV_LINKS) {
      await expect(panel.getByRole("link", { name, exact: true }), name).toBeVisible();
    }
    await expect(panel.getByRole("link", { name: "Sign Up", exact: true })).toHaveAttribute(
      "href",
      "/corporate/sign-up",
    );
    await expect(panel.getByRole("link", { name: "Login", exact: true })).toHaveAttribute("href", "/corporate/login");
  });

  test("closes again with its close control", async ({ page }) => {
    await visit(page, "/");
    const panel = await openDrawer(page);
    const name = /close/i;
    await panel.getByRole("button", { name }).or(panel.getByRole("link", { name })).first().click();
    await expect(drawer(page)).toBeHidden();
  });

  test("a link in the drawer navigates (Help → /help) and the drawer is closed there", async ({ page }) => {
    await visit(page, "/");
    const panel = await openDrawer(page);
    await panel.getByRole("link", { name: "Help", exact: true }).click();
    await expect(page).toHaveURL(/\/help$/);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Help Centre - FAQs, Terms and Contact us.");
    await expect(drawer(page)).toBeHidden();
  });
});

test.describe("desktop header", () => {
  test.skip(({ viewport }) => (viewport?.width ?? 1280) < 768, "desktop width only");

  test("has no drawer opener at 1280 px", async ({ page }) => {
    await visit(page, "/");
    await expect(drawerOpener(page)).toBeHidden();
  });

  test("transparent at the top, hidden when scrolling down, a fixed bar with a shadow when scrolling up", async ({
    page,
    javaScriptEnabled,
  }) => {
    test.skip(!javaScriptEnabled, "the scroll behaviour needs JavaScript");
    await visit(page, "/");
    const banner = page.getByRole("banner");
    const style = () =>
      banner.evaluate((el) => {
        const s = getComputedStyle(el);
        return { position: s.position, background: s.backgroundColor, shadow: s.boxShadow };
      });
    const bottom = async () => {
      const box = await banner.boundingBox();
      return box ? box.y + box.height : 0;
    };
    expect(await style()).toMatchObject({ background: "rgba(0, 0, 0, 0)", shadow: "none" });

    await page.mouse.move(640, 400);
    await page.mouse.wheel(0, 1500);
    await expect.poll(bottom, { message: "header bottom edge after scrolling down" }).toBeLessThanOrEqual(0);

    await page.mouse.wheel(0, -300);
    await expect.poll(bottom, { message: "header bottom edge after scrolling up" }).toBeGreaterThan(0);
    await expect(banner).toBeInViewport();
    await expect.poll(async () => (await style()).position).toBe("fixed");
    await expect.poll(async () => (await style()).shadow).not.toBe("none");
  });
});

test.describe("anchor links", () => {
  async function clickNavLink(page: Page, name: string) {
    const nav = await navigation(page);
    await nav.getByRole("link", { name, exact: true }).click();
  }

  test("How it Works in the header brings #howItWorks into view", async ({ page }) => {
    await visit(page, "/");
    await clickNavLink(page, "How it Works");
    await expect(page).toHaveURL(/#howItWorks$/);
    await expectSectionInView(page, page.locator("#howItWorks"));
    if (isPhone()) await expect(drawer(page)).toBeHidden();
  });

  test("About Us in the footer brings #WhyChoose into view", async ({ page }) => {
    await visit(page, "/");
    await page.locator("#footer").getByRole("link", { name: "About Us", exact: true }).click();
    await expectSectionInView(page, page.locator('[id="WhyChoose"]'));
  });

  test("a hash in the address lands on its section at load (/#features)", async ({ page }) => {
    await visit(page, "/#features");
    await expectSectionInView(page, page.locator("#features"));
  });

  test("from another page, How it Works goes to /#howItWorks and lands on the section", async ({ page }) => {
    await visit(page, "/help");
    await clickNavLink(page, "How it Works");
    await expect(page).toHaveURL(/\/#howItWorks$/);
    await expectSectionInView(page, page.locator("#howItWorks"));
  });
});

test.describe("retailer carousel #glanceBrands", () => {
  test("holds the nine brands, each with an image or title", async ({ page }) => {
    await visit(page, "/");
    const carousel = page.locator("#glanceBrands");
    for (const brand of BRANDS) {
      await expect(imageOrText(carousel, brandPattern(brand)), brand).toBeAttached();
    }
    // At least one brand is on screen once the carousel is scrolled to.
    await carousel.scrollIntoViewIfNeeded();
    await expect(carousel.getByRole("img").filter({ visible: true }).first()).toBeInViewport();
  });

  test("shows 1 slide at a time on a phone and 3 at 1280 px", async ({ page, javaScriptEnabled }) => {
    await visit(page, "/");
    const carousel = page.locator("#glanceBrands");
    await carousel.getByRole("img").first().scrollIntoViewIfNeeded();
    if (javaScriptEnabled) {
      // Pause the autoplay (pointer on the slides) so no slide is caught half-way.
      const box = await carousel.getByRole("img").first().boundingBox();
      if (box) await page.mouse.move(page.viewportSize()!.width / 2, box.y + box.height / 2);
      await page.waitForTimeout(1_000);
    }
    const shown = await carousel.evaluate(
      (root) =>
        [...root.querySelectorAll("img")].filter((img) => {
          const r = img.getBoundingClientRect();
          const x = r.x + r.width / 2;
          const y = r.y + r.height / 2;
          if (x < 0 || x > window.innerWidth || y < 0 || y > window.innerHeight) return false;
          const hit = document.elementFromPoint(x, y);
          return hit !== null && (hit === img || img.contains(hit));
        }).length,
    );
    expect(shown, "brand images on screen").toBe(isPhone() ? 1 : 3);
  });

  test.describe("autoplay", () => {
    test.skip(({ javaScriptEnabled }) => !javaScriptEnabled, "autoplay needs JavaScript");

    /** What moves when a carousel advances: scroll offsets, where its images sit, and its markup (hashed). */
    function snapshot(page: Page) {
      return page.locator("#glanceBrands").evaluate((root) => {
        const offsets = [root, ...root.querySelectorAll("*")]
          .filter((el) => el.scrollLeft !== 0)
          .map((el) => Math.round(el.scrollLeft));
        const places = [...root.querySelectorAll("img, [role=img]")].map((el) =>
          Math.round(el.getBoundingClientRect().x),
        );
        let hash = 0;
        for (const ch of root.innerHTML) hash = (Math.imul(hash, 31) + ch.charCodeAt(0)) | 0;
        return `scroll ${offsets.join(",") || "0"} | image x ${places.join(",")} | markup #${hash}`;
      });
    }

    /** Puts the pointer on a slide that is on screen (not just on the section's heading). */
    async function hoverSlide(page: Page) {
      const width = page.viewportSize()?.width ?? 1280;
      const images = page.locator("#glanceBrands").getByRole("img");
      for (const image of await images.all()) {
        const box = await image.boundingBox();
        if (box && box.x >= 0 && box.x + box.width / 2 <= width) {
          await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
          return;
        }
      }
      throw new Error("no brand image on screen to hover");
    }

    async function settleOnCarousel(page: Page) {
      await visit(page, "/");
      await page.locator("#glanceBrands").scrollIntoViewIfNeeded();
      // Let the header's show/hide transition and any running slide finish.
      await page.waitForTimeout(800);
    }

    test("advances by itself after about 2 s", async ({ page }) => {
      await settleOnCarousel(page);
      const before = await snapshot(page);
      await expect.poll(() => snapshot(page), { timeout: 4_500, intervals: [250] }).not.toBe(before);
    });

    test("pauses while hovered and resumes after", async ({ page }) => {
      await settleOnCarousel(page);
      await hoverSlide(page);
      await page.waitForTimeout(1_000);
      const paused = await snapshot(page);
      await page.waitForTimeout(3_500);
      expect(await snapshot(page), "no movement during 3.5 s of hover").toBe(paused);

      await page.mouse.move(1, 1);
      await expect.poll(() => snapshot(page), { timeout: 4_500, intervals: [250] }).not.toBe(paused);
    });

    test("does not autoplay when the visitor prefers reduced motion", async ({ page }) => {
      await page.emulateMedia({ reducedMotion: "reduce" });
      await settleOnCarousel(page);
      const still = await snapshot(page);
      await page.waitForTimeout(4_500);
      expect(await snapshot(page), "no movement during 4.5 s").toBe(still);
    });
  });
});
