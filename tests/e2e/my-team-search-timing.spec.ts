// My Team's search (docs/requirements.md §S2 My Team, §S5 team search) typed the way a fast person types, on a page
// freshly loaded each time: before the page's JavaScript has loaded, the moment React starts
// hydrating the page, and after. Whatever is typed and submitted (Enter) searches: a native GET
// before hydration, the enhanced search after it; of two submissions in quick succession the last
// wins, even when the first was a GET the browser sent before hydration and is still on its way
// (app/features/my-team/team-search.tsx). A slow machine is made by holding the page's JavaScript
// modules (page.route on the built assets, build/client/assets) and by slowing the CPU down.
//
// In the JavaScript-off projects the same keystrokes make native GETs, and every case must search
// all the same.

import type { Locator, Page } from "@playwright/test";
import { addMembers, expect, member, test } from "./fixtures.ts";
import { holdScripts, jsEnabled } from "./support.ts";

const PAGE = "/portal/my-team";

function searchBox(page: Page): Locator {
  return page.getByRole("searchbox", { name: "Type Name to Search" });
}

function bodyRows(page: Page): Locator {
  return page.getByRole("table", { name: "Add to or Edit Your Team" }).locator("tbody tr");
}

/**
 * Holds the page of the native search for `text` (a document request, not the enhanced search's
 * data request) until `answer` is called: a slow answer, still on its way when the next search is
 * made. `answer` resolves once the held request has gone on, or was dropped by the browser.
 */
async function holdSearchPage(page: Page, text: string) {
  const matches = (url: URL) => url.pathname === PAGE && url.searchParams.get("search") === text;
  let answer = () => {};
  const answered = new Promise<void>((resolve) => {
    answer = resolve;
  });
  let done: Promise<void> = Promise.resolve();
  await page.route(matches, (route) => {
    done = answered.then(() => route.continue().catch(() => undefined));
    return done;
  });
  const asked = page.waitForRequest((request) => matches(new URL(request.url())));
  // A test whose first search went the enhanced way never asks for the page.
  asked.catch(() => undefined);
  return {
    asked,
    answer: async () => {
      answer();
      await done;
    },
  };
}

const HYDRATING = "e2e: React is hydrating the page";
const SETTLED = "e2e: the search box is hydrated and the browser idle";

/**
 * With JavaScript on, each page load logs when React starts hydrating the page (hydrateRoot marks
 * the document as its container first) and when the search box is hydrated and the browser has
 * been idle twice since. Console messages rather than page.evaluate, which waits while a native
 * GET is on its way.
 */
async function reportHydration(page: Page) {
  if (!jsEnabled()) return;
  await page.addInitScript(
    ({ hydrating, settled }) => {
      let started = false;
      const hasKey = (node: object | null, prefix: string) =>
        node !== null && Object.keys(node).some((key) => key.startsWith(prefix));
      const poll = setInterval(() => {
        if (!started && hasKey(document, "__reactContainer$")) {
          started = true;
          console.log(hydrating);
        }
        if (hasKey(document.querySelector('input[type="search"]'), "__reactFiber$")) {
          clearInterval(poll);
          requestIdleCallback(() => requestIdleCallback(() => console.log(settled)));
        }
      }, 2);
    },
    { hydrating: HYDRATING, settled: SETTLED },
  );
}

/** Resolves when the page logs `text` (from now on); at once with JavaScript off. */
function logged(page: Page, text: string): Promise<unknown> {
  if (!jsEnabled()) return Promise.resolve();
  return page.waitForEvent("console", { predicate: (message) => message.text() === text, timeout: 20_000 });
}

/** Opens My Team with its scripts held and answers as soon as the search box is there. */
async function openBeforeScripts(page: Page): Promise<() => void> {
  await reportHydration(page);
  const release = await holdScripts(page);
  await page.goto(PAGE, { waitUntil: "commit" });
  await searchBox(page).waitFor();
  return release;
}

/** Opens My Team and waits until it is hydrated and idle. */
async function openHydrated(page: Page) {
  await reportHydration(page);
  const settled = logged(page, SETTLED);
  await page.goto(PAGE);
  await settled;
}

/**
 * Types `text` into the focused search box over what it holds, key by key without pauses. Only
 * the keyboard: a locator's action would wait for a native GET on its way.
 */
async function retype(page: Page, text: string) {
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.type(text);
}

/** Puts the focus in the search box and types `text`. */
async function typeSearch(page: Page, text: string) {
  await searchBox(page).focus();
  await retype(page, text);
}

/** Resolves when the page asks for the list searched for `text`: its page, or the enhanced search's data. */
function searchAsked(page: Page, text: string) {
  return page.waitForRequest((request) => new URL(request.url()).searchParams.get("search") === text);
}

/** The list is the search for `lastName`: the address says so, the box holds it and one row is left. */
async function expectSearched(page: Page, lastName: string, firstName: string) {
  await expect(page).toHaveURL(new RegExp(`[?&]search=${lastName}(&|$)`), { timeout: 10_000 });
  await expect(bodyRows(page)).toHaveCount(1);
  await expect(bodyRows(page).first()).toContainText(`${firstName} ${lastName}`);
  await expect(searchBox(page)).toHaveValue(lastName);
}

test.beforeEach(async ({ request, manager }) => {
  await addMembers(request, manager, [
    member("Olive", "Marsh"),
    member("Piet", "Vandermeer"),
    member("Quinn", "Ashworth"),
  ]);
});

test("typed and submitted before the scripts have loaded: the native GET searches", async ({ page }) => {
  const release = await openBeforeScripts(page);
  await typeSearch(page, "Vandermeer");
  await page.keyboard.press("Enter");
  await expect(page).toHaveURL(/search=Vandermeer/);
  const settled = logged(page, SETTLED);
  release();
  await expectSearched(page, "Vandermeer", "Piet");
  await settled;
  await expectSearched(page, "Vandermeer", "Piet");
});

test("typed before hydration, submitted after it: the enhanced search", async ({ page }) => {
  const release = await openBeforeScripts(page);
  await typeSearch(page, "Vandermeer");
  const settled = logged(page, SETTLED);
  release();
  await settled;
  // Hydration left the typed text in the box.
  await expect(searchBox(page)).toHaveValue("Vandermeer");
  await page.keyboard.press("Enter");
  await expectSearched(page, "Vandermeer", "Piet");
});

test("typed before hydration, submitted the moment hydration starts, on a 6× slower CPU", async ({ page }) => {
  if (jsEnabled()) {
    const cdp = await page.context().newCDPSession(page);
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 6 });
  }
  const release = await openBeforeScripts(page);
  await typeSearch(page, "Ashworth");
  const hydrating = logged(page, HYDRATING);
  release();
  await hydrating;
  await page.keyboard.press("Enter");
  await expectSearched(page, "Ashworth", "Quinn");
});

test("typed and submitted after hydration", async ({ page }) => {
  await openHydrated(page);
  await typeSearch(page, "Marsh");
  await page.keyboard.press("Enter");
  await expectSearched(page, "Marsh", "Olive");
});

test.describe("two submissions in quick succession: the last wins", () => {
  test("both before hydration", async ({ page }) => {
    const release = await openBeforeScripts(page);
    const firstPage = await holdSearchPage(page, "Marsh");
    await typeSearch(page, "Marsh");
    await page.keyboard.press("Enter");
    await firstPage.asked;
    await retype(page, "Ashworth");
    await page.keyboard.press("Enter");
    await firstPage.answer();
    release();
    await expectSearched(page, "Ashworth", "Quinn");
  });

  test("the first before hydration and still on its way, the second after hydration", async ({ page }) => {
    const release = await openBeforeScripts(page);
    const firstPage = await holdSearchPage(page, "Marsh");
    await typeSearch(page, "Marsh");
    await page.keyboard.press("Enter");
    await firstPage.asked;
    const settled = logged(page, SETTLED);
    release();
    await settled;
    await retype(page, "Vandermeer");
    const secondAsked = searchAsked(page, "Vandermeer");
    await page.keyboard.press("Enter");
    await secondAsked;
    // The first search's page comes now, after the second search was asked for: it must not land.
    await firstPage.answer();
    await expectSearched(page, "Vandermeer", "Piet");
    await page.waitForTimeout(1_000);
    await expectSearched(page, "Vandermeer", "Piet");
  });

  test("the first the moment hydration starts on a 6× slower CPU, the second right after", async ({ page }) => {
    if (jsEnabled()) {
      const cdp = await page.context().newCDPSession(page);
      await cdp.send("Emulation.setCPUThrottlingRate", { rate: 6 });
    }
    const release = await openBeforeScripts(page);
    // Should the first be a native GET (React not ready for it yet), its page is slow to come.
    const firstPage = await holdSearchPage(page, "Ashworth");
    await typeSearch(page, "Ashworth");
    const hydrating = logged(page, HYDRATING);
    release();
    await hydrating;
    await page.keyboard.press("Enter");
    await retype(page, "Marsh");
    const secondAsked = searchAsked(page, "Marsh");
    await page.keyboard.press("Enter");
    await secondAsked;
    await firstPage.answer();
    await expectSearched(page, "Marsh", "Olive");
    // Past the moment a superseded search would have landed.
    await page.waitForTimeout(1_000);
    await expectSearched(page, "Marsh", "Olive");
  });

  test("both after hydration", async ({ page }) => {
    await openHydrated(page);
    // Without JavaScript the first is a GET whose page is slow to come, so the second is typed on this page.
    const firstPage = await holdSearchPage(page, "Marsh");
    await typeSearch(page, "Marsh");
    await page.keyboard.press("Enter");
    await retype(page, "Vandermeer");
    const secondAsked = searchAsked(page, "Vandermeer");
    await page.keyboard.press("Enter");
    await secondAsked;
    await firstPage.answer();
    await expectSearched(page, "Vandermeer", "Piet");
    // Past the moment a superseded search, or a debounced one, would have landed.
    await page.waitForTimeout(1_000);
    await expectSearched(page, "Vandermeer", "Piet");
  });
});
