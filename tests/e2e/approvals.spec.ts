// Approvals (ADR 0022 §6), with JavaScript on and off, at 360 px and 1280 px: a Manager's reward
// over the company's threshold shows "Request approval" instead of the pay button; the request
// emails the Owners a link to the approval page; the Owner, signed in, opens the link and
// approves; the requester pays the approved snapshot with the simulated card and it is released
// (the recipients' emails arrive). A declined one shows the reason and cannot be paid.
//
// Runs against the test server that sends real email by SMTP (mail.ts): the Owner's request
// email, the invitation that makes the Manager and the recipients' emails are read from it. The
// Manager is made the honest way: the Owner invites through the API and the invitation is accepted
// through the API with the token from the email.
import type { APIRequestContext, Page } from "@playwright/test";
import { createManager, expect, type Manager, signIn, test } from "./fixtures.ts";
import { emailsTo, MAIL_APP_URL, waitForEmail } from "./mail.ts";
import { emailMatching, inviteManager } from "./managers-support.ts";
import { expectNoHorizontalScroll, isPhone, jsEnabled, uniqueEmail, visit } from "./support.ts";

test.use({ baseURL: MAIL_APP_URL });

const REVIEW = "/portal/reward-my-team-review";

/** An Owner with a $100 threshold, and a Manager of theirs with a $111.00 draft ($60 + $40). */
async function setUp(request: APIRequestContext) {
  const owner = await createManager(request, MAIL_APP_URL);
  const saved = await request.put("/api/Approvals/threshold", {
    headers: owner.headers,
    data: { thresholdDollars: 100 },
  });
  expect(saved.status(), await saved.text()).toBe(200);
  const manager = await inviteManager(request, owner);
  const recipients = [60, 40].map((value, i) => ({
    firstName: ["Ada", "Bo"][i] ?? "Cy",
    lastName: `Approved${i + 1}`,
    email: uniqueEmail(`approvals-rcpt-${i + 1}`),
    value,
  }));
  for (const recipient of recipients) {
    const added = await request.post("/api/RewardMyTeam/create-reward-user", {
      headers: manager.headers,
      data: recipient,
    });
    expect(added.status(), await added.text()).toBe(200);
  }
  return { owner, manager, recipients };
}

async function signInAs(page: Page, who: Manager) {
  await page.context().clearCookies();
  await signIn(page, who);
}

/** The approval page's path from the Owners' email. */
async function approvalLinkFor(owner: Manager, rewardName: string): Promise<string> {
  const text = await emailMatching(owner.email, new RegExp(`^Approval requested: ${rewardName}$`));
  const link = /https?:\/\/\S+(\/portal\/approvals\/\d+)/.exec(text)?.[1];
  expect(link, text).toBeTruthy();
  return link ?? "";
}

/**
 * Requests approval from the review, with the button or with Enter in the Reward Name (the
 * form's default: not 'Preview the email', which comes first on the page).
 */
async function requestApproval(page: Page, rewardName: string, by: "button" | "enter" = "button") {
  await visit(page, REVIEW);
  await expect(page.getByRole("button", { name: /^Pay / })).toHaveCount(0);
  const name = page.getByLabel("Reward Name", { exact: true });
  await name.fill(rewardName);
  if (by === "enter") await name.press("Enter");
  else await page.getByRole("button", { name: "Request approval" }).click();
  await expect(page.getByTestId("approval-state")).toHaveText("Waiting for an Owner's approval");
  await expect(page.getByTestId("frozen-reward-name")).toHaveText(rewardName);
  await expect(page.getByRole("button", { name: /^Pay / })).toHaveCount(0);
}

test("a Manager's reward over the threshold: requested, approved by the Owner from the email link, paid by the requester and released", {
  tag: "@journey",
}, async ({ page, request }) => {
  // Three people's sessions, four emails and a payment: a long journey on a shared 2-core machine.
  test.slow();
  const { owner, manager, recipients } = await setUp(request);
  const rewardName = `Stars ${Date.now()}`;

  await signInAs(page, manager);
  await requestApproval(page, rewardName);
  if (isPhone()) await expectNoHorizontalScroll(page);

  // The Owner opens the email's link, signed in.
  const link = await approvalLinkFor(owner, rewardName);
  await signInAs(page, owner);
  await visit(page, link);
  await expect(page.getByRole("heading", { name: rewardName })).toBeVisible();
  await expect(page.getByText("Requested by Max Manager")).toBeVisible();
  await expect(page.getByText(`${recipients[0]?.firstName} ${recipients[0]?.lastName}`)).toBeVisible();
  const costs = page.getByRole("region", { name: "Cost Summary" });
  await expect(costs.getByText("Total Cost").locator("xpath=..")).toContainText("$111.00");
  if (isPhone()) await expectNoHorizontalScroll(page);
  await page.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(page.getByTestId("approval-state")).toHaveText(/^Approved by Penny Manager on /);
  await emailMatching(manager.email, new RegExp(`^Approved: ${rewardName}$`));

  // The requester pays the approved snapshot.
  await signInAs(page, manager);
  await visit(page, REVIEW);
  await expect(page.getByTestId("approval-state")).toHaveText(/^Approved by Penny Manager/);
  await expect(page.getByTestId("frozen-reward-name")).toHaveText(rewardName);
  await page.getByLabel("Card number", { exact: true }).fill("4242 4242 4242 4242");
  await page.getByLabel("Expiry (MM/YY)", { exact: true }).fill("12/34");
  await page.getByLabel("CVC", { exact: true }).fill("123");
  await page.getByLabel("Name on card", { exact: true }).fill("Max Manager");
  await page.getByRole("button", { name: "Pay $111.00 and Send Emails" }).click();
  await expect(page).toHaveURL(/\/portal\/payment-confirmation\?/);
  await expect(page.getByText("Payment Successful")).toBeVisible({ timeout: 15_000 });

  // Released once: each recipient gets one congratulation email; the Owner's page says paid.
  for (const recipient of recipients) {
    await emailMatching(recipient.email, /Reward Dollars/);
    expect((await emailsTo(recipient.email)).filter((m) => /Reward Dollars/.test(m.subject))).toHaveLength(1);
  }
  await signInAs(page, owner);
  await visit(page, link);
  await expect(page.getByTestId("approval-state")).toHaveText("Approved and paid");
  await visit(page, "/portal/dashboard");
  await expect(page.getByRole("heading", { name: "Approval requests" })).toBeVisible();
  await expect(page.getByText("No approval requests are waiting.")).toBeVisible();
});

test("a declined reward shows the reason and cannot be paid", { tag: "@journey" }, async ({ page, request }) => {
  test.slow();
  const { owner, manager } = await setUp(request);
  const rewardName = `Declined ${Date.now()}`;
  await signInAs(page, manager);
  await requestApproval(page, rewardName, "enter");

  await signInAs(page, owner);
  // The dashboard lists the request for the Owner.
  await visit(page, "/portal/dashboard");
  const section = page.getByRole("region", { name: "Approval requests" });
  await expect(section.getByText(rewardName)).toBeVisible();
  await section.getByRole("link", { name: `Review ${rewardName} from Max Manager` }).click();
  await expect(page.getByRole("heading", { name: rewardName })).toBeVisible();
  if (jsEnabled()) {
    // The reason is required: checked in the browser before anything is posted.
    await page.getByRole("button", { name: "Decline", exact: true }).click();
    await expect(page.getByText("Please give a reason for declining.")).toBeVisible();
  }
  await page.getByLabel("Reason for declining").fill("Over this quarter's budget");
  await page.getByRole("button", { name: "Decline", exact: true }).click();
  await expect(page.getByTestId("approval-state")).toHaveText(/^Declined by Penny Manager on /);
  await expect(page.getByText("Reason: Over this quarter's budget")).toBeVisible();
  const declined = await waitForEmail(manager.email, `Declined: ${rewardName}`);
  expect(declined.text).toContain("Over this quarter's budget");

  await signInAs(page, manager);
  await visit(page, REVIEW);
  await expect(page.getByTestId("approval-state")).toHaveText(/^Declined by Penny Manager/);
  await expect(page.getByText("Reason: Over this quarter's budget")).toBeVisible();
  await expect(page.getByRole("button", { name: /^Pay / })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Request approval" })).toHaveCount(0);
  // The API refuses the payment whatever a page shows.
  const paid = await request.post("/api/StripePayment/create-payment-intent", {
    headers: manager.headers,
    data: { amount: 11100 },
  });
  expect(paid.status()).toBe(409);
  expect(((await paid.json()) as { detail: string }).detail).toBe(
    "This order was declined by an Owner and cannot be paid.",
  );
});
