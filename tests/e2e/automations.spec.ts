// Automations (ADR 0035) in the browser, on the server that sends real email by SMTP and runs on
// the test clock (mail.ts, test-clock.ts): an Owner tops up the balance, creates a birthday
// automation through the page's form, sees the member in the 30-day preview (their Perth time and
// Sydney's, and the total), then the clock is moved to just before and just after 9:00 in Perth on
// the member's birthday: no email before, exactly one after, and still one a few passes later.
// The clock only goes forward and is shared by every spec on that server: this spec runs in the
// "-clock" projects, after the four projects and one project at a time (playwright.config.ts), so
// its jumps of up to a day expire no other test's code or session, and no other test's jump passes
// this one's 9:00 before its automation is made.
import type { APIRequestContext, Page } from "@playwright/test";
import { formatZonedTime } from "../../modules/scheduled-sends/schema.ts";
import { CARD } from "../support/app-process.ts";
import { expect, type Manager, member, test } from "./fixtures.ts";
import { emailsTo, MAIL_API_URL, MAIL_APP_URL, serverClockOffset } from "./mail.ts";
import { expectNoAxeViolations, expectNoHorizontalScroll, isPhone, jsEnabled, shoot, visit } from "./support.ts";

test.use({ baseURL: MAIL_APP_URL });

const PAGE = "/portal/automations";
const REWARD_SUBJECT = /Reward Dollars/;

/** The mail app's "now" (its clock runs ahead of ours by the offset). */
async function serverNow(): Promise<number> {
  return Date.now() + (await serverClockOffset());
}

/** Moves the mail app's clock on until it reads `target` (never back). */
async function advanceServerClockTo(target: number): Promise<void> {
  const ahead = target - (await serverNow());
  if (ahead <= 0) return;
  const response = await fetch(`${MAIL_API_URL}/clock?advanceMs=${ahead}`, { method: "POST" });
  if (!response.ok) throw new Error(`mail API answered ${response.status}`);
}

async function topUp(request: APIRequestContext, manager: Manager, cents: number) {
  const created = await request.post("/api/Balance/TopUps", { headers: manager.headers, data: { amount: cents } });
  expect(created.status(), await created.text()).toBe(201);
  const { topUpId } = (await created.json()) as { topUpId: number };
  const paid = await request.post(`/api/Balance/TopUps/${topUpId}/pay-simulated`, {
    headers: manager.headers,
    data: CARD,
  });
  expect(paid.status(), await paid.text()).toBe(200);
}

test("an Owner creates a birthday automation, sees the preview, and the member's email arrives once at 9:00 Perth time", {
  tag: "@journey",
}, async ({ page, request, newManager }) => {
  test.setTimeout(120_000);
  await birthdayAutomation(page, request, await newManager());
});

async function birthdayAutomation(page: Page, request: APIRequestContext, manager: Manager) {
  // The next 9:00 in Perth (01:00 UTC; Western Australia keeps no daylight saving) at least
  // 15 minutes ahead on the server's clock: the member's birthday is that Perth date.
  const now = await serverNow();
  let nine = new Date(now).setUTCHours(1, 0, 0, 0);
  while (nine - now < 15 * 60_000) nine += 24 * 60 * 60_000;
  const birthday = new Date(nine);
  const perth = member("Pia", "Perth");
  const created = await request.post("/api/Users/create-user", {
    headers: manager.headers,
    data: {
      ...perth,
      birthDay: birthday.getUTCDate(),
      birthMonth: birthday.getUTCMonth() + 1,
      state: "WA",
    },
  });
  expect(created.status(), await created.text()).toBe(200);
  await topUp(request, manager, 20_000);

  // The Owner creates the automation through the page's form.
  await visit(page, PAGE);
  await expect(page.getByText("No automations yet: create one below.")).toBeVisible();
  await page.getByLabel("Occasion").selectOption("birthday");
  await page.getByLabel("Amount in Reward Dollars").fill("50");
  await page.getByLabel("Reward Name").fill("Happy Birthday");
  await page.getByLabel("Message").fill("Happy birthday, {firstName}! From all of us.");
  await page.getByRole("button", { name: "Create automation" }).click();
  await expect(page.getByText("Automation saved: Happy Birthday")).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`${PAGE}$`));
  const list = page.getByTestId("automation-list");
  await expect(list).toContainText("Birthday: Happy Birthday");
  await expect(list.getByTestId("automation-state")).toHaveText("On");

  // The preview: the member, at 9:00 in Perth and the same instant in Sydney, and the total.
  // A table on a desktop, one card per reward on a phone.
  const row = page.getByTestId("preview-entry").filter({ hasText: "Pia Perth", visible: true });
  await expect(row).toContainText(formatZonedTime(birthday, "Australia/Perth"));
  await expect(row).toContainText(formatZonedTime(birthday, "Australia/Sydney"));
  await expect(row).toContainText("9:00 am AWST");
  await expect(page.getByTestId("preview-total")).toContainText("$50.00 in Reward Dollars, $55.50 from the balance");
  await shoot(page, "automations");
  await expectNoHorizontalScroll(page);
  if (!isPhone()) {
    // The header's sixth link still fits where the bar starts (768 px).
    await page.setViewportSize({ width: 768, height: 900 });
    await expectNoHorizontalScroll(page);
    await shoot(page, "automations-768");
    await page.setViewportSize({ width: 1280, height: 800 });
  }
  // axe runs in the page: with JavaScript only.
  if (jsEnabled()) await expectNoAxeViolations(page);

  // A bad amount is refused next to its field, and nothing is saved.
  await page.getByLabel("Amount in Reward Dollars").fill("12.5");
  await page.getByLabel("Reward Name").fill("Half a dollar");
  await page.getByRole("button", { name: "Create automation" }).click();
  await expect(page.getByText("Amount must be a whole number of Reward Dollars (no cents).")).toBeVisible();
  if (!jsEnabled()) await expect(page).toHaveURL(new RegExp(`${PAGE}$`));
  await visit(page, PAGE);
  await expect(list.locator("li")).toHaveCount(1);

  // Edited (a page of its own at ?edit=ID), turned off and on again, and a monthly budget.
  await list.getByRole("link", { name: "Edit Happy Birthday" }).click();
  await expect(page).toHaveURL(/\?edit=\d+/);
  await expect(page.getByRole("heading", { name: "Edit “Happy Birthday”" })).toBeVisible();
  await page.getByLabel("Amount in Reward Dollars").fill("60");
  await page.getByRole("button", { name: "Save automation" }).click();
  await expect(page.getByText("Automation saved: Happy Birthday")).toBeVisible();
  await expect(list).toContainText("$60 · On");
  await list.getByRole("button", { name: "Turn off Happy Birthday" }).click();
  await expect(list.getByTestId("automation-state")).toHaveText("Off");
  await expect(page.getByTestId("preview-empty")).toBeVisible();
  await list.getByRole("button", { name: "Turn on Happy Birthday" }).click();
  await expect(list.getByTestId("automation-state")).toHaveText("On");
  await expect(page.getByTestId("preview-total")).toContainText("$60.00 in Reward Dollars, $66.60 from the balance");
  await page.getByLabel("Budget a month in whole dollars").fill("1000");
  await page.getByRole("button", { name: "Save budget" }).click();
  await expect(page.getByTestId("budget-status")).toHaveText("$0.00 of $1,000.00 used this month.");

  // A minute before 9:00 in Perth: nothing yet (checked only while the shared clock is still before it).
  await advanceServerClockTo(nine - 60_000);
  await page.waitForTimeout(2_500);
  const sentEarly = (await emailsTo(perth.email)).filter((m) => REWARD_SUBJECT.test(m.subject));
  if ((await serverNow()) < nine) expect(sentEarly).toHaveLength(0);

  // 9:00 in Perth: the reward email arrives, once.
  await advanceServerClockTo(nine + 5_000);
  await expect
    .poll(async () => (await emailsTo(perth.email)).filter((m) => REWARD_SUBJECT.test(m.subject)).length, {
      timeout: 20_000,
      message: `the birthday reward email to ${perth.email}`,
    })
    .toBe(1);
  const [email] = (await emailsTo(perth.email)).filter((m) => REWARD_SUBJECT.test(m.subject));
  expect(email?.subject).toBe("Congratulations! You have received $60.00 in Reward Dollars");
  expect(email?.text).toContain("Happy birthday, Pia! From all of us.");
  // A few more passes (the job runs every second here) and a later hour: still one.
  await advanceServerClockTo(nine + 60 * 60_000);
  await page.waitForTimeout(3_000);
  expect((await emailsTo(perth.email)).filter((m) => REWARD_SUBJECT.test(m.subject))).toHaveLength(1);
}
