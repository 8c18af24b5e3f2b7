// Monthly budgets (docs/decisions/0034-monthly-budgets.md), with JavaScript on and off, at 360 px
// and 1280 px: an Owner sets a Manager's budget on Settings › Managers; the Manager's dashboard
// shows what is left; their reward past it offers "Request approval" instead of the pay button
// (there is no threshold: the budget alone holds it); the Owner opens the emailed approval page,
// which says "over budget by $X", and approves.
import { createManager, expect, signIn, test } from "./fixtures.ts";
import { MAIL_APP_URL } from "./mail.ts";
import { emailMatching, inviteManager } from "./managers-support.ts";
import { expectNoHorizontalScroll, isPhone, shoot, uniqueEmail, visit } from "./support.ts";

test.use({ baseURL: MAIL_APP_URL });

test("an Owner sets a Manager's budget; the Manager's order past it goes to approval; the Owner approves", {
  tag: "@journey",
}, async ({ page, request }) => {
  // Two people's sessions and two emails on a shared 2-core machine.
  test.slow();
  const owner = await createManager(request, MAIL_APP_URL);
  const manager = await inviteManager(request, owner);
  // A $100 reward list ($60 + $40), drafted by the Manager.
  for (const [i, value] of [60, 40].entries()) {
    const added = await request.post("/api/RewardMyTeam/create-reward-user", {
      headers: manager.headers,
      data: { firstName: ["Ada", "Bo"][i], lastName: `Budget${i + 1}`, email: uniqueEmail(`budget-${i}`), value },
    });
    expect(added.status(), await added.text()).toBe(200);
  }

  // The Owner sets the Manager's monthly budget to $50.
  await signIn(page, owner);
  await visit(page, "/portal/settings/managers");
  // A fractional amount is refused by the server with its message, under the row's field.
  await page.getByLabel("Monthly budget ($) of Max Manager").fill("12.5");
  await page.getByRole("button", { name: "Save Budget of Max Manager" }).click();
  await expect(page.getByText("A monthly budget must be a whole number of dollars, such as 500.")).toBeVisible();
  await page.getByLabel("Monthly budget ($) of Max Manager").fill("50");
  await page.getByRole("button", { name: "Save Budget of Max Manager" }).click();
  await expect(page.getByText("Monthly budget saved: $50.00")).toBeVisible();
  await expect(page.getByTestId(`budget-use-${manager.userId}`)).toHaveText(
    "Monthly budget $50.00 · $0.00 used this month · $50.00 left",
  );
  await shoot(page, "budget-settings-managers");
  if (isPhone()) await expectNoHorizontalScroll(page);

  // The Manager sees it on the dashboard, and the $100 list goes to approval.
  await page.context().clearCookies();
  await signIn(page, manager);
  await visit(page, "/portal/dashboard");
  await expect(page.getByTestId("budget-left")).toHaveText("$50.00 left");
  await expect(page.getByTestId("budget-used")).toContainText("$0.00 used of $50.00 this month");
  await shoot(page, "budget-dashboard");
  if (isPhone()) await expectNoHorizontalScroll(page);
  const rewardName = `Budget ${Date.now()}`;
  await visit(page, "/portal/reward-my-team-review");
  await expect(page.getByRole("button", { name: /^Pay / })).toHaveCount(0);
  await expect(page.getByText("over your monthly budget by $50.00")).toBeVisible();
  await page.getByLabel("Reward Name", { exact: true }).fill(rewardName);
  await page.getByRole("button", { name: "Request approval" }).click();
  await expect(page.getByTestId("approval-state")).toHaveText("Waiting for an Owner's approval");

  // The Owner opens the emailed link: the page says by how much it is over, and they approve.
  const text = await emailMatching(owner.email, new RegExp(`^Approval requested: ${rewardName}$`));
  const link = /https?:\/\/\S+(\/portal\/approvals\/\d+)/.exec(text)?.[1];
  expect(link, text).toBeTruthy();
  await page.context().clearCookies();
  await signIn(page, owner);
  await visit(page, link ?? "");
  await expect(page.getByRole("heading", { name: rewardName })).toBeVisible();
  await expect(page.getByTestId("over-budget")).toHaveText("This order is over budget by $50.00 this month.");
  await shoot(page, "budget-approval-page");
  if (isPhone()) await expectNoHorizontalScroll(page);
  await page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByTestId("approval-state")).toHaveText(/^Approved by Penny Manager on /);
  await emailMatching(manager.email, new RegExp(`^Approved: ${rewardName}$`));
});
