// Paying a reward list from the company's prepaid balance on Review & Pay (ADR 0043
// "The balance pays for the portal too"), in every project (desktop and phone, JavaScript on and
// off): with a balance that covers the total, the option pays it and the confirmation says so; with
// a short balance, the option says how much is short and links to Settings → Balance. The
// dashboard shows the balance. Screenshots at 360 and 1280 px go to /tmp/shots-balance/.
import { mkdirSync } from "node:fs";
import type { APIRequestContext, Page } from "@playwright/test";
import { expect, type Manager, test } from "./fixtures.ts";
import { MAIL_APP_URL } from "./mail.ts";
import {
  expectNoAxeViolations,
  expectNoHorizontalScroll,
  isPhone,
  jsEnabled,
  uniqueEmail,
  uniqueToken,
  visit,
} from "./support.ts";

test.use({ baseURL: MAIL_APP_URL });

const REVIEW = "/portal/reward-my-team-review";
const SHOTS = "/tmp/shots-balance";

/** A full-page screenshot for a person to look at, named by project. */
async function shot(page: Page, name: string) {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: `${SHOTS}/${test.info().project.name}-${name}.png`, fullPage: true });
}

async function topUp(request: APIRequestContext, manager: Manager, cents: number) {
  const created = await request.post("/api/Balance/TopUps", { headers: manager.headers, data: { amount: cents } });
  expect(created.status(), await created.text()).toBe(201);
  const { topUpId } = (await created.json()) as { topUpId: number };
  const paid = await request.post(`/api/Balance/TopUps/${topUpId}/pay-simulated`, {
    headers: manager.headers,
    data: { cardNumber: "4242424242424242", expiry: "12/34", cvc: "123", nameOnCard: "Olive Owner" },
  });
  expect(((await paid.json()) as { status: string }).status).toBe("succeeded");
}

/** One recipient of $100: the total is $111.00 (fee $10.00, GST $1.00). */
async function withDraft(request: APIRequestContext, manager: Manager) {
  const added = await request.post("/api/RewardMyTeam/create-reward-user", {
    headers: manager.headers,
    data: { firstName: "Bea", lastName: "Balance", email: uniqueEmail("bea"), value: 100 },
  });
  expect(added.status(), await added.text()).toBe(200);
}

async function expectUsable(page: Page) {
  if (isPhone()) await expectNoHorizontalScroll(page);
  if (jsEnabled()) await expectNoAxeViolations(page);
}

test("a topped-up balance pays the reward list on Review & Pay, and the confirmation says so", {
  tag: "@journey",
}, async ({ page, request, manager }) => {
  await topUp(request, manager, 200_00);
  await withDraft(request, manager);

  await visit(page, "/portal/dashboard");
  await expect(page.getByTestId("company-balance")).toHaveText("$200.00");

  await visit(page, REVIEW);
  const option = page.getByTestId("balance-option");
  await expect(option.getByRole("heading", { name: "Pay from the company balance" })).toBeVisible();
  await expect(option).toContainText("Your company balance is $200.00; $89.00 stays in it after this order.");
  await page.getByLabel("Reward Name", { exact: true }).fill("Paid from the balance");
  await expectUsable(page);
  await shot(page, "review-covered");

  const button = page.getByRole("button", { name: "Pay $111.00 from the company balance" });
  // The card's fields stay empty: the balance needs none of them.
  await button.click();
  await expect(page).toHaveURL(/\/portal\/payment-confirmation\?order=\d+/);
  await expect(page.getByRole("heading", { name: "Payment Successful" })).toBeVisible();
  await expect(page.getByTestId("paid-from-balance")).toHaveText("Paid from the company balance.");
  await expect(
    page.getByText("Your payment of $111.00 has been successfully processed.", { exact: false }),
  ).toBeVisible();
  await shot(page, "confirmation");

  await visit(page, "/portal/dashboard");
  await expect(page.getByTestId("company-balance")).toHaveText("$89.00");
  await expect(page.getByRole("link", { name: "Top up" })).toHaveAttribute("href", "/portal/settings/balance");
  await shot(page, "dashboard");
  await expect(page.getByRole("table", { name: "Most Recent Reward History" })).toContainText("Paid from the balance");
});

test("a short balance: the option says how much is short and links to Settings → Balance", async ({
  page,
  request,
  manager,
}) => {
  await topUp(request, manager, 50_00);
  await withDraft(request, manager);
  await visit(page, REVIEW);
  const option = page.getByTestId("balance-option");
  await expect(option.getByTestId("balance-short")).toHaveText(
    "Your company balance is $50.00, $61.00 short of this order's total.",
  );
  await expect(page.getByRole("button", { name: /from the company balance/ })).toHaveCount(0);
  const link = option.getByRole("link", { name: "Top up the company balance" });
  await expect(link).toHaveAttribute("href", "/portal/settings/balance");
  // The card still pays.
  await expect(page.getByRole("button", { name: "Pay $111.00 and Send Emails" })).toBeVisible();
  await expectUsable(page);
  await shot(page, "review-short");
  await link.click();
  await expect(page).toHaveURL(/\/portal\/settings\/balance$/);
});

test("the balance's button shows 'Please wait' while the payment runs, and a second click sends nothing (JavaScript)", async ({
  page,
  request,
  manager,
}) => {
  test.skip(!jsEnabled(), "the busy state is a JavaScript enhancement");
  await topUp(request, manager, 200_00);
  await withDraft(request, manager);
  await visit(page, REVIEW);
  await page.getByLabel("Reward Name", { exact: true }).fill(`Busy ${uniqueToken()}`);
  const posts: string[] = [];
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route("**/portal/reward-my-team-review*", async (route) => {
    if (route.request().method() !== "POST") return route.continue();
    posts.push(route.request().url());
    await held;
    await route.continue();
  });
  await page.getByRole("button", { name: "Pay $111.00 from the company balance" }).click();
  const busy = page.getByRole("button", { name: "Please wait" });
  await expect(busy).toBeDisabled();
  await expect(busy).toHaveAttribute("aria-busy", "true");
  // The card's button waits too.
  await expect(page.getByRole("button", { name: "Pay $111.00 and Send Emails" })).toBeDisabled();
  await busy.click({ force: true });
  release();
  await expect(page.getByRole("heading", { name: "Payment Successful" })).toBeVisible({ timeout: 10_000 });
  expect(posts).toHaveLength(1);
});
