// The payment half of rewarding (docs/requirements.md §S2 Reward My Team Review, Payment Confirmation, dashboard
// history; §S4 payment confirmation; §S8 payment errors; §S9 the 2-second check; §D5, §D6 the
// simulated card processor, §D8 labels), with JavaScript on and off, at 360 px and 1280 px.
//
// Runs against the test server that sends REAL email by SMTP to the server the run starts
// (mail.ts, smtp-app.ts): the recipients' congratulation emails, with access code and password,
// are read from it. Each test gets a fresh onboarded, signed-in manager (fixtures.ts: on this
// server the verification code is read from the SMTP server) and a small draft built through the
// API (create-reward-user).
import type { APIRequestContext, Page } from "@playwright/test";
import { formatSendTime, sydneyWallTime } from "../../modules/scheduled-sends/schema.ts";
import { expect, type Manager, signIn, test } from "./fixtures.ts";
import {
  advanceServerClock,
  bounce,
  type CaughtEmail,
  emailsTo,
  MAIL_APP_URL,
  serverClockOffset,
  waitForEmail,
} from "./mail.ts";
import { inviteManager } from "./managers-support.ts";
import {
  expectNoAxeViolations,
  expectNoHorizontalScroll,
  isPhone,
  jsEnabled,
  shoot,
  uniqueEmail,
  uniqueToken,
  visit,
} from "./support.ts";

test.use({ baseURL: MAIL_APP_URL });

const REVIEW = "/portal/reward-my-team-review";
const CONFIRMATION = "/portal/payment-confirmation";

const CARDS = {
  success: "4242 4242 4242 4242",
  declined: "4000 0000 0000 0002",
  authentication: "4000 0025 0000 3155",
};

const TEXT = {
  processing: "Hold tight - Your payment is currently being processed",
  success: "Payment Successful",
  successBody: (amount: string) =>
    `Your payment of ${amount} has been successfully processed. You will receive an email confirmation shortly. Emails are being sent to reward recipients.`,
  failed: "Payment Failed: Your payment could not be processed. Please try again or contact us.",
  declined: "Your card was declined.",
  noRewards: "No rewards to process",
  loading: "Loading rewards...",
};

interface Recipient {
  firstName: string;
  lastName: string;
  email: string;
  value: number;
}

/** Builds the manager's draft through the API: one recipient per amount. */
async function withDraft(request: APIRequestContext, manager: Manager, amounts: number[]): Promise<Recipient[]> {
  const recipients: Recipient[] = [];
  for (const [index, value] of amounts.entries()) {
    const recipient = {
      firstName: ["Rita", "Ravi", "Rosa", "Remy"][index % 4] ?? "Rhea",
      lastName: `Recipient${index + 1}`,
      email: uniqueEmail(`rcpt-${index + 1}`),
      value,
    };
    const added = await request.post("/api/RewardMyTeam/create-reward-user", {
      headers: manager.headers,
      data: recipient,
    });
    expect(added.status(), await added.text()).toBe(200);
    recipients.push(recipient);
  }
  return recipients;
}

async function fillCard(page: Page, card: string, rewardName = "Quarterly Stars") {
  await page.getByLabel("Reward Name", { exact: true }).fill(rewardName);
  await page.getByLabel("Card number", { exact: true }).fill(card);
  await page.getByLabel("Expiry (MM/YY)", { exact: true }).fill("12/34");
  await page.getByLabel("CVC", { exact: true }).fill("123");
  await page.getByLabel("Name on card", { exact: true }).fill("Paula Payer");
}

async function pay(page: Page, total = "$111.00") {
  await page.getByRole("button", { name: `Pay ${total} and Send Emails` }).click();
}

async function expectAccessible(page: Page) {
  if (isPhone()) await expectNoHorizontalScroll(page);
  if (jsEnabled()) await expectNoAxeViolations(page);
}

/** The reward history rows of the dashboard whose name cell (or phone line) holds `name`. */
async function historyRows(page: Page, name: string) {
  await visit(page, "/portal/dashboard");
  const table = page.getByRole("table", { name: "Most Recent Reward History" });
  await expect(table).toBeVisible();
  return table.getByRole("row").filter({ hasText: name });
}

/** The congratulation email to `address` (subject names the amount). */
async function rewardEmail(address: string): Promise<CaughtEmail> {
  let found: CaughtEmail | undefined;
  await expect
    .poll(
      async () => {
        found = (await emailsTo(address)).find((m) => /Reward Dollars/.test(m.subject));
        return Boolean(found);
      },
      { message: `reward email to ${address}`, timeout: 20_000 },
    )
    .toBe(true);
  if (!found) throw new Error("unreachable");
  return found;
}

test.describe("review", () => {
  test("$100 of rewards: recipients, fee $10.00, GST $1.00, total $111.00, the card form and its labels", async ({
    page,
    request,
    manager,
  }) => {
    const recipients = await withDraft(request, manager, [60, 40]);
    await visit(page, REVIEW);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Reward My Team Review");
    await expect(page.getByRole("link", { name: "Go Back & Edit" })).toHaveAttribute("href", "/portal/reward-my-team");

    const name = page.getByLabel("Reward Name", { exact: true });
    await expect(name).toHaveAttribute("placeholder", "Reward Name");
    await expect(name).toHaveAttribute("required", "");
    await expect(name).toHaveAccessibleDescription(/identifies the reward later in your Reward History/);

    const [first, second] = recipients;
    await expect(page.getByText(`${first?.firstName} ${first?.lastName} ($60.00)`)).toBeVisible();
    await expect(page.getByText(`${second?.firstName} ${second?.lastName} ($40.00)`)).toBeVisible();

    const costs = page.getByRole("region", { name: "Cost Summary" });
    const expected: [string, string][] = [
      ["Reward Dollars Total", "$100.00"],
      ["Service Fee", "$10.00"],
      ["GST", "$1.00"],
      ["Total Cost", "$111.00"],
    ];
    for (const [label, amount] of expected) {
      await expect(costs.getByText(label, { exact: true }).locator("xpath=..")).toContainText(amount);
    }
    for (const label of ["Card number", "Expiry (MM/YY)", "CVC", "Name on card"]) {
      await expect(page.getByLabel(label, { exact: true })).toBeVisible();
    }
    await expect(page.getByRole("button", { name: "Pay $111.00 and Send Emails" })).toBeVisible();
    await expectAccessible(page);
  });

  test("an empty draft: 'No rewards to process'", async ({ page, manager: _ }) => {
    await visit(page, REVIEW);
    await expect(page.getByText(TEXT.noRewards)).toBeVisible();
    await expect(page.getByRole("button", { name: /^Pay / })).toHaveCount(0);
  });

  test("the Reward Name is required", async ({ page, request, manager }) => {
    await withDraft(request, manager, [100]);
    await visit(page, REVIEW);
    await fillCard(page, CARDS.success, "");
    if (!jsEnabled()) {
      // The browser's own check stops the post: the field is required.
      await pay(page);
      await expect(page).toHaveURL(new RegExp(`${REVIEW}$`));
      expect(
        await page
          .getByLabel("Reward Name", { exact: true })
          .evaluate((el: HTMLInputElement) => el.validity.valueMissing),
      ).toBe(true);
      return;
    }
    await pay(page);
    await expect(page.getByText("Reward Name is required.")).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`${REVIEW}$`));
  });

  test("'Sample of Email': a tooltip with JavaScript, a page without", async ({ page, request, manager }) => {
    await withDraft(request, manager, [100]);
    await visit(page, REVIEW);
    const link = page.getByRole("link", { name: "Sample of Email" });
    if (jsEnabled()) {
      await link.hover();
      const tooltip = page.getByRole("tooltip");
      await expect(tooltip).toContainText("Access code");
      await expect(tooltip).toContainText("Password");
      await page.keyboard.press("Escape");
      await expect(tooltip).toBeHidden();
      await link.focus();
      await expect(page.getByRole("tooltip")).toContainText("Congratulations");
    } else {
      await link.click();
      await expect(page).toHaveURL(/\/portal\/reward-email-sample$/);
      await expect(page.getByRole("heading", { name: "Sample of Email", level: 1 })).toBeVisible();
      await expect(page.getByTitle("Sample of the email sent to recipients")).toBeVisible();
      await expect(page.getByText(/Subject: Congratulations!/).first()).toBeVisible();
    }
  });

  test("'Loading rewards...' while the review loads on a client navigation (JavaScript)", async ({
    page,
    request,
    newManager,
  }) => {
    test.skip(!jsEnabled(), "client navigations need JavaScript; the server render has the data");
    const manager = await newManager();
    await withDraft(request, manager, [100]);
    await visit(page, "/portal/reward-email-sample");
    // The summary comes from the in-process API within milliseconds, so the text shows only
    // briefly: record every text the page shows while the navigation runs.
    await page.evaluate(() => {
      const seen = new Set<string>();
      (window as unknown as { seenTexts: Set<string> }).seenTexts = seen;
      new MutationObserver(() => {
        const main = document.querySelector("main");
        if (main?.textContent) seen.add(main.textContent);
      }).observe(document.body, { childList: true, subtree: true, characterData: true });
    });
    await page.getByRole("link", { name: "Back to the review" }).click();
    await expect(page.getByRole("button", { name: "Pay $111.00 and Send Emails" })).toBeVisible();
    const sawLoading = await page.evaluate(() =>
      [...(window as unknown as { seenTexts: Set<string> }).seenTexts].some((text) =>
        text.includes("Loading rewards..."),
      ),
    );
    expect(sawLoading, "'Loading rewards...' was shown during the navigation").toBe(true);
  });
});

test.describe("payment", () => {
  test("4242 → processing → success; recipients get access code and password; one history row, also after a reload", {
    tag: "@journey",
  }, async ({ page, request, manager }) => {
    const recipients = await withDraft(request, manager, [60, 40]);
    await visit(page, REVIEW);
    const rewardName = `Stars ${uniqueToken()}`;
    await fillCard(page, CARDS.success, rewardName);
    await pay(page);

    await expect(page).toHaveURL(/\/portal\/payment-confirmation\?payment_intent=/);
    const status = page.getByRole("status").filter({ hasText: TEXT.processing });
    // Without JavaScript the processing page refreshes itself to the check; with it a fetcher checks.
    await expect(status.or(page.getByText(TEXT.success))).toBeVisible();
    await expect(page.getByRole("heading", { name: TEXT.success })).toBeVisible({ timeout: 10_000 });
    await expect(page.getByText(TEXT.successBody("$111.00"))).toBeVisible();
    await expect(page.getByRole("link", { name: "Back to Dashboard" })).toHaveAttribute("href", "/portal/dashboard");
    if (jsEnabled()) {
      await expect(page, "the check ran without a page load").toHaveURL(/payment_intent=[^&]+$/);
      await expectAccessible(page);
    }

    for (const recipient of recipients) {
      const email = await rewardEmail(recipient.email);
      expect(email.subject).toContain(`$${recipient.value}.00`);
      expect(email.text).toMatch(/Access code: \S+/);
      expect(email.text).toMatch(/Password: \S+/);
      expect(email.text).toContain(rewardName);
    }

    // Reload the confirmation page: success again, and still exactly one history row.
    await page.reload();
    await expect(page.getByRole("heading", { name: TEXT.success })).toBeVisible({ timeout: 10_000 });
    const rows = await historyRows(page, rewardName);
    await expect(rows).toHaveCount(1);
    await expect(rows.first()).toContainText("$100.00");
    // Date in en-AU (Sydney); on a phone the Date and name columns are hidden and the row repeats them.
    // "Today" on the mail app's clock, which other specs move ahead (test-clock.ts): near Sydney's
    // midnight the two clocks name different days.
    const today = new Intl.DateTimeFormat("en-AU", {
      day: "numeric",
      month: "short",
      year: "numeric",
      timeZone: "Australia/Sydney",
    }).format(new Date(Date.now() + (await serverClockOffset())));
    await expect(rows.first()).toContainText(today);
    const headers = page.getByRole("table", { name: "Most Recent Reward History" }).getByRole("columnheader");
    await expect(headers.filter({ hasText: "Released" })).toBeVisible();
    for (const hidden of ["Date", "Campaign / Reward Name"]) {
      if (isPhone()) await expect(headers.filter({ hasText: hidden })).toBeHidden();
      else await expect(headers.filter({ hasText: hidden })).toBeVisible();
    }
    await expectAccessible(page);

    // The draft is emptied: the review has nothing to pay for.
    await visit(page, REVIEW);
    await expect(page.getByText(TEXT.noRewards)).toBeVisible();
  });

  test("a message from the sender: in the preview and in every recipient's real email, escaped, its lines kept", {
    tag: "@journey",
  }, async ({ page, request, manager }) => {
    const recipients = await withDraft(request, manager, [60, 40]);
    await visit(page, REVIEW);
    const from = page.getByLabel("From", { exact: true });
    await expect(from, "the sender defaults to the manager's name").toHaveValue(
      `${manager.firstName} ${manager.lastName}`,
    );
    const message = `Thank you, <team> & friends!\nSee you Friday. ${uniqueToken()}`;
    const [firstLine, secondLine] = message.split("\n") as [string, string];
    await page.getByLabel("Message to recipients", { exact: true }).fill(message);
    await from.fill("Pat from People & Culture");
    await shoot(page, "review-message");
    await expectAccessible(page);

    if (jsEnabled()) {
      // The tooltip saves what was typed, then shows the sample with it.
      await page.getByRole("link", { name: "Sample of Email" }).hover();
      const tooltip = page.getByRole("tooltip");
      await expect(tooltip).toContainText("A message from Pat from People & Culture:");
      await expect(tooltip).toContainText(`> ${firstLine}`);
      await expect(tooltip).toContainText(`> ${secondLine}`);
      await page.keyboard.press("Escape");
    }

    // 'Preview the email' saves the message alone and opens the sample (no JavaScript needed).
    await page.getByRole("button", { name: "Preview the email" }).click();
    await expect(page).toHaveURL(/\/portal\/reward-email-sample$/);
    const sample = page.frameLocator('iframe[title="Sample of the email sent to recipients"]');
    await expect(sample.getByText("A message from Pat from People & Culture:")).toBeVisible();
    await expect(sample.locator("blockquote")).toHaveText(`${firstLine}${secondLine}`);
    await expect(sample.locator("blockquote br")).toHaveCount(1);
    await shoot(page, "sample-message");

    // Back on the review the saved words are there; paying sends them to every recipient.
    await visit(page, REVIEW);
    await expect(page.getByLabel("Message to recipients", { exact: true })).toHaveValue(message);
    await expect(from).toHaveValue("Pat from People & Culture");
    await fillCard(page, CARDS.success);
    await pay(page);
    await expect(page.getByRole("heading", { name: TEXT.success })).toBeVisible({ timeout: 10_000 });
    for (const recipient of recipients) {
      const email = await rewardEmail(recipient.email);
      expect(email.text).toContain(`A message from Pat from People & Culture:\n> ${firstLine}\n> ${secondLine}`);
      expect(email.html).toContain("Thank you, &lt;team&gt; &amp; friends!<br>See you Friday.");
      expect(email.html).not.toContain("<team>");
    }
  });

  test("the tax invoice: from the history to its page and PDF, with the right amounts; the payer's email links to it", {
    tag: "@journey",
  }, async ({ page, request, manager }) => {
    await withDraft(request, manager, [60, 40]);
    await visit(page, REVIEW);
    const rewardName = `Invoiced ${uniqueToken()}`;
    await fillCard(page, CARDS.success, rewardName);
    await pay(page);
    await expect(page.getByRole("heading", { name: TEXT.success })).toBeVisible({ timeout: 10_000 });

    const rows = await historyRows(page, rewardName);

    // The spend picture: the chart's bars and the table for screen readers say the same, and this
    // month (Sydney) holds the $100 just released; the totals add the fee and GST.
    const chart = page.getByRole("img", { name: /^Reward Dollars released per month/ });
    await expect(chart).toBeVisible();
    const bars = await chart.locator("g[data-month] > title").allTextContents();
    const spendTable = page.getByRole("table", { name: /^Reward Dollars released per month/ });
    const tableRows = await spendTable
      .locator("tbody tr")
      .evaluateAll((trs) =>
        trs.map((tr) => `${tr.querySelector("th")?.textContent}: ${tr.querySelector("td")?.textContent}`),
      );
    expect(bars).toHaveLength(12);
    expect(tableRows).toEqual(bars);
    const thisMonth = new Intl.DateTimeFormat("en-AU", {
      month: "short",
      year: "numeric",
      timeZone: "Australia/Sydney",
    }).format(new Date(Date.now() + (await serverClockOffset())));
    expect(bars.at(-1)).toBe(`${thisMonth}: $100.00`);
    const totals = page.getByRole("region", { name: "Your Reward Spend" });
    for (const [label, value] of [
      ["Reward Dollars released", "$100.00"],
      ["Service fees", "$10.00"],
      ["GST", "$1.00"],
      ["Recipients reached", "2"],
    ] as const) {
      const card = totals.locator("dl > div").filter({ has: page.getByText(label, { exact: true }) });
      await expect(card.locator("dd")).toHaveText(value);
    }
    if (isPhone()) await expectNoHorizontalScroll(page);
    await shoot(page, "dashboard-spend");

    await rows
      .first()
      .getByRole("link", { name: /^Tax invoice/ })
      .click();
    await expect(page).toHaveURL(/\/portal\/invoices\/inv-\d{6,}$/);
    const invoiceNumber = (page.url().split("/").pop() ?? "").toUpperCase();
    await expect(page.getByRole("heading", { name: "Tax Invoice", level: 2 })).toBeVisible();
    const lines = page.getByRole("table");
    for (const [label, amount] of [
      [`Reward Dollars: ${rewardName} (2 recipients; no GST)`, "$100.00"],
      ["Service fee (10% of the Reward Dollars)", "$10.00"],
      ["GST (10% of the service fee)", "$1.00"],
      ["Total (including GST)", "$111.00"],
      ["Amount paid", "$111.00"],
      ["Balance due", "$0.00"],
    ]) {
      await expect(lines.getByRole("row", { name: `${label} ${amount}` })).toBeVisible();
    }
    await expect(page.getByText(invoiceNumber, { exact: true })).toBeVisible();
    await expect(page.getByText(manager.companyName, { exact: true })).toBeVisible();
    if (jsEnabled()) await expect(page.getByRole("button", { name: "Print" })).toBeVisible();
    else await expect(page.getByText("To print, use your browser's Print command.")).toBeVisible();
    await shoot(page, "invoice");
    await expectAccessible(page);

    // The PDF, with the session's cookie, through the same link.
    const pdfHref = await page.getByRole("link", { name: "Download PDF" }).getAttribute("href");
    expect(pdfHref).toBe(`/portal/invoices/${invoiceNumber.toLowerCase()}/pdf`);
    const pdf = await page.request.get(pdfHref ?? "");
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()["content-type"]).toBe("application/pdf");
    expect((await pdf.body()).subarray(0, 5).toString("latin1")).toBe("%PDF-");

    // The payer's tax invoice email links to the page.
    let invoiceEmail: CaughtEmail | undefined;
    await expect
      .poll(async () => {
        invoiceEmail = (await emailsTo(manager.email)).find((m) =>
          m.subject.startsWith(`Tax Invoice ${invoiceNumber}`),
        );
        return Boolean(invoiceEmail);
      })
      .toBe(true);
    expect(invoiceEmail?.text).toContain(`/portal/invoices/${invoiceNumber.toLowerCase()}`);
  });

  test("the history pages past 100 releases to the oldest, and its CSV download holds the same rows", {
    tag: "@journey",
  }, async ({ page, request, manager }) => {
    test.setTimeout(180_000);
    // 101 rewards of $1 to one recipient, each paid with the simulated card through the API.
    const recipient = { firstName: "Hana", lastName: "History", email: uniqueEmail("history"), value: 1 };
    const tag = uniqueToken();
    for (let i = 1; i <= 101; i++) {
      const headers = manager.headers;
      expect((await request.post("/api/RewardMyTeam/create-reward-user", { headers, data: recipient })).status()).toBe(
        200,
      );
      const named = await request.put("/api/RewardMyTeam/update-reward-name", {
        headers,
        data: { name: `H${i} ${tag}` },
      });
      expect(named.status()).toBe(200);
      const intent = await request.post("/api/StripePayment/create-payment-intent", { headers, data: { amount: 111 } });
      expect(intent.status(), await intent.text()).toBe(200);
      const { paymentIntentId, clientSecret } = (await intent.json()) as {
        paymentIntentId: string;
        clientSecret: string;
      };
      const paid = await request.post("/api/StripePayment/confirm-simulated-payment", {
        headers,
        data: {
          paymentIntent: paymentIntentId,
          clientSecret,
          cardNumber: "4242424242424242",
          expiry: "12/34",
          cvc: "123",
          nameOnCard: "Paula Payer",
        },
      });
      expect(((await paid.json()) as { status: string }).status).toBe("succeeded");
    }

    await visit(page, "/portal/dashboard");
    const history = page.getByRole("region", { name: "Most Recent Reward History" });
    const table = page.getByRole("table", { name: "Most Recent Reward History" });
    await expect(table.getByRole("row").filter({ hasText: `H101 ${tag}` })).toHaveCount(1);
    const pager = page.getByRole("navigation", { name: "Reward history pages" });
    await expect(pager).toContainText("1 of 6 page(s)");
    for (let n = 2; n <= 6; n++) {
      await pager.getByRole("link", { name: "Next" }).click();
      await expect(pager).toContainText(`${n} of 6 page(s)`);
    }
    await expect(page).toHaveURL(/[?&]historyPage=6/);
    // The oldest release is on the last page, beyond SPEC's newest 100.
    await expect(table.getByRole("row").filter({ hasText: `H1 ${tag}` })).toHaveCount(1);
    await expect(pager.getByText("Next")).not.toHaveAttribute("href");
    await shoot(page, "history-last-page");
    await expectAccessible(page);

    const csvHref = await history.getByRole("link", { name: /^Download CSV/ }).getAttribute("href");
    const csv = await page.request.get(csvHref ?? "");
    expect(csv.status()).toBe(200);
    expect(csv.headers()["content-type"]).toBe("text/csv; charset=utf-8");
    const lines = (await csv.text())
      .replace(/^\uFEFF/, "")
      .trimEnd()
      .split("\r\n");
    expect(lines[0]).toBe("Date (Australia/Sydney),Campaign / Reward Name,Status,Released,Invoice number");
    expect(lines).toHaveLength(102);
    expect(lines[1]).toContain(`H101 ${tag},Released,$1.00,INV-`);
    expect(lines[101]).toContain(`H1 ${tag},Released,$1.00,INV-`);
  });

  test("scheduled sends: paid now, released once when the test clock passes the time; a rescheduled then cancelled one is refunded and never sent", {
    tag: "@journey",
  }, async ({ page, request, manager }) => {
    test.setTimeout(120_000);
    // The mail app's clock may already run ahead (test-clock.ts): times are chosen on its clock.
    const serverNow = Date.now() + (await serverClockOffset());
    const at = (minutes: number) => {
      const t = serverNow + minutes * 60_000;
      return new Date(Math.ceil(t / 60_000) * 60_000);
    };
    const tag = uniqueToken();

    async function scheduleAndPay(rewardName: string, sendAt: Date): Promise<Recipient[]> {
      const recipients = await withDraft(request, manager, [60, 40]);
      await visit(page, REVIEW);
      await page.getByRole("radio", { name: "Schedule for later" }).check();
      await page.getByLabel("Send at (Sydney time)", { exact: true }).fill(sydneyWallTime(sendAt));
      await fillCard(page, CARDS.success, rewardName);
      if (rewardName.startsWith("Later")) {
        await shoot(page, "review-schedule");
        await expectAccessible(page);
      }
      await pay(page);
      await expect(page.getByRole("heading", { name: TEXT.success })).toBeVisible({ timeout: 10_000 });
      await expect(page.getByTestId("scheduled-send")).toHaveText(
        `The reward emails will be sent on ${formatSendTime(sendAt)}. You can change the time or cancel from the dashboard until then.`,
      );
      return recipients;
    }

    // A time under 10 minutes ahead is refused next to the field, and nothing is paid.
    await withDraft(request, manager, [60, 40]);
    await visit(page, REVIEW);
    await page.getByRole("radio", { name: "Schedule for later" }).check();
    await page.getByLabel("Send at (Sydney time)", { exact: true }).fill(sydneyWallTime(at(2)));
    await fillCard(page, CARDS.success, `Too soon ${tag}`);
    await pay(page);
    await expect(page.getByText("Choose a time at least 10 minutes from now.")).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`${REVIEW}$`));
    await request.delete("/api/RewardMyTeam/delete-all-reward", { headers: manager.headers });

    const sent = await scheduleAndPay(`Later ${tag}`, at(11));
    const keptName = `Cancelled ${tag}`;
    const cancelled = await scheduleAndPay(keptName, at(12));

    // The history shows both as Scheduled; nobody has been emailed.
    const laterRow = await historyRows(page, `Later ${tag}`);
    await expect(laterRow).toContainText("Scheduled");
    const cancelRow = await historyRows(page, keptName);
    await expect(cancelRow).toContainText("Scheduled");
    await shoot(page, "history-scheduled");
    for (const r of [...sent, ...cancelled]) expect(await emailsTo(r.email)).toHaveLength(0);

    // The second: rescheduled, then cancelled from its page (the confirmation is a pane at ?cancel).
    await cancelRow.getByRole("link", { name: /^Change or cancel/ }).click();
    await expect(page).toHaveURL(/\/portal\/scheduled\/\d+$/);
    const orderPage = page.url();
    await page.getByLabel("New send time (Sydney time)", { exact: true }).fill(sydneyWallTime(at(30)));
    await page.getByRole("button", { name: "Reschedule" }).click();
    await expect(page.getByText(`It will be sent on ${formatSendTime(at(30))}.`)).toBeVisible();
    await expect(page.getByText(formatSendTime(at(30)), { exact: true })).toBeVisible();
    await shoot(page, "scheduled-order");
    await expectAccessible(page);
    await page.getByRole("link", { name: "Cancel and refund…" }).click();
    await expect(page).toHaveURL(/\?cancel$/);
    await expect(page.getByRole("heading", { name: "Cancel this reward and refund $111.00?" })).toBeVisible();
    await shoot(page, "scheduled-cancel-confirm");
    await page.getByRole("button", { name: "Yes, cancel and refund" }).click();
    await expect(page).toHaveURL(orderPage);
    await expect(page.getByText("Cancelled · Refunded", { exact: true })).toBeVisible();
    await expect(page.getByText(/^\$111\.00 refunded on /)).toBeVisible();
    await waitForEmail(manager.email, `Cancelled and refunded: ${keptName}`);

    // The clock passes every time: the first goes out once, the cancelled one never.
    await advanceServerClock(at(31).getTime() - serverNow + 60_000);
    for (const r of sent) {
      const email = await rewardEmail(r.email);
      expect(email.subject).toContain("Reward Dollars");
    }
    await expect(await historyRows(page, `Later ${tag}`)).toContainText("Released");
    await expect(await historyRows(page, keptName)).toContainText("Cancelled · Refunded");
    // Another scheduler pass or two later, still one email each, and none for the cancelled one.
    await page.waitForTimeout(2_500);
    for (const r of sent) {
      expect((await emailsTo(r.email)).filter((m) => /Reward Dollars/.test(m.subject))).toHaveLength(1);
    }
    for (const r of cancelled) expect(await emailsTo(r.email)).toHaveLength(0);
  });

  test("delivery: a bounced email shows as failed; a resend delivers a new password, and says the old one stopped working", {
    tag: "@journey",
  }, async ({ page, request, manager }) => {
    const [good, bounced] = await withDraft(request, manager, [60, 40]);
    if (!good || !bounced) throw new Error("two recipients");
    await bounce(bounced.email);
    try {
      await visit(page, REVIEW);
      const rewardName = `Delivery ${uniqueToken()}`;
      await fillCard(page, CARDS.success, rewardName);
      await pay(page);
      await expect(page.getByRole("heading", { name: TEXT.success })).toBeVisible({ timeout: 10_000 });
      const first = await rewardEmail(good.email);
      expect(first.text).toMatch(/Password: \S+/);

      const rows = await historyRows(page, rewardName);
      await rows
        .first()
        .getByRole("link", { name: /^Delivery/ })
        .click();
      await expect(page).toHaveURL(/\/portal\/rewards\/\d+$/);
      await expect(page.getByRole("heading", { name: rewardName, level: 2 })).toBeVisible();
      const rowOf = (email: string) => page.getByRole("row").filter({ hasText: email });
      // With JavaScript the page looks again by itself; without it, reload until the states settle.
      await expect(async () => {
        if (!jsEnabled()) await page.reload();
        await expect(rowOf(good.email)).toContainText("Sent", { timeout: 1_000 });
        await expect(rowOf(bounced.email)).toContainText("Failed", { timeout: 1_000 });
      }).toPass({ timeout: 20_000 });
      await expect(rowOf(bounced.email)).toContainText("No such user");
      await shoot(page, "delivery-failed");
      await expectAccessible(page);

      // The address works again (the manager had it fixed); the resend reaches it.
      await bounce(bounced.email, false);
      await rowOf(bounced.email)
        .getByRole("button", { name: /^Resend/ })
        .click();
      await expect(page.getByText("Reward email resent")).toBeVisible();
      const resent = await rewardEmail(bounced.email);
      expect(resent.text).toContain("This email replaces your earlier reward email");
      expect(resent.text).toContain("the password sent before no longer works");
      expect(resent.text).toMatch(/Password: [A-Za-z2-9]{14}/);
      await expect(async () => {
        if (!jsEnabled()) await page.reload();
        await expect(rowOf(bounced.email)).toContainText("Sent", { timeout: 1_000 });
      }).toPass({ timeout: 20_000 });
      await expect(rowOf(bounced.email)).toContainText("Resent 1 time");
    } finally {
      await bounce(bounced.email, false);
    }
  });

  test("Enter in a card field pays, as the Pay button does (not 'Preview the email', which comes first on the page)", async ({
    page,
    request,
    manager,
  }) => {
    await withDraft(request, manager, [100]);
    await visit(page, REVIEW);
    const rewardName = `Enter ${uniqueToken()}`;
    await fillCard(page, CARDS.success, rewardName);
    await shoot(page, "review-before-enter");
    // The browser's implicit submission (HTML: the form's first submit button in tree order).
    await page.getByLabel("Card number", { exact: true }).press("Enter");
    await expect(page).toHaveURL(/\/portal\/payment-confirmation\?payment_intent=/);
    await expect(page.getByRole("heading", { name: TEXT.success })).toBeVisible({ timeout: 10_000 });
    await expect(await historyRows(page, rewardName)).toHaveCount(1);
  });

  test("delivery: where a recipient's address changed since the reward was sent, a Manager's Resend is disabled and says an Owner can; the Owner's goes to the new address", {
    tag: "@journey",
  }, async ({ page, request, manager: owner }) => {
    // The fixture's manager made the company: its Owner. The Manager is invited by them.
    const [moved] = await withDraft(request, owner, [100]);
    if (!moved) throw new Error("a recipient");
    await visit(page, REVIEW);
    const rewardName = `Moved ${uniqueToken()}`;
    await fillCard(page, CARDS.success, rewardName);
    await pay(page);
    await expect(page.getByRole("heading", { name: TEXT.success })).toBeVisible({ timeout: 10_000 });
    const rows = await historyRows(page, rewardName);
    await rows
      .first()
      .getByRole("link", { name: /^Delivery/ })
      .click();
    await expect(page).toHaveURL(/\/portal\/rewards\/\d+$/);
    const deliveryPage = new URL(page.url()).pathname;

    // The member's address changes on My Team (through the API here).
    const delivery = (await (
      await request.get(`/api${deliveryPage.replace("/portal/rewards/", "/RewardReleases/")}`, {
        headers: owner.headers,
      })
    ).json()) as { recipients: Array<{ userId: number; email: string }> };
    const userId = delivery.recipients.find((r) => r.email === moved.email)?.userId;
    const newAddress = uniqueEmail("moved-to");
    const edit = await request.put(`/api/Users/${userId}`, {
      headers: owner.headers,
      data: { firstName: moved.firstName, lastName: moved.lastName, email: newAddress },
    });
    expect(edit.status(), await edit.text()).toBe(204);
    const changed = `The address changed from ${moved.email} to ${newAddress} since this reward was sent.`;
    const resend = page.getByRole("button", { name: /^Resend/ });

    // The Owner: Resend, and the page says it goes to the new address.
    await visit(page, deliveryPage);
    await expect(resend).toBeEnabled();
    await expect(resend).toHaveAccessibleDescription(`${changed} A resend goes to the new address.`);
    await shoot(page, "delivery-moved-owner");
    await expectAccessible(page);

    // A Manager: the same Resend disabled, saying why, before anything is pressed.
    const member = await inviteManager(request, owner);
    await page.context().clearCookies();
    await signIn(page, member);
    await visit(page, deliveryPage);
    await expect(page.getByText(changed)).toBeVisible();
    await expect(resend).toBeDisabled();
    await expect(resend).toHaveAccessibleDescription(
      `${changed} Only an Owner of your company can resend it to the new address.`,
    );
    await shoot(page, "delivery-moved-manager");
    await expectAccessible(page);
    expect((await emailsTo(newAddress)).length, "nothing was sent to the new address").toBe(0);
  });

  test("a declined card: 'Your card was declined.', the form stays, nothing is released", { tag: "@journey" }, async ({
    page,
    request,
    manager,
  }) => {
    await withDraft(request, manager, [100]);
    await visit(page, REVIEW);
    const rewardName = `Declined ${uniqueToken()}`;
    await fillCard(page, CARDS.declined, rewardName);
    await pay(page);
    await expect(page.getByRole("alert").filter({ hasText: TEXT.declined })).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`${REVIEW}$`));
    await expect(page.getByLabel("Reward Name", { exact: true })).toHaveValue(rewardName);
    await expectAccessible(page);

    // Nothing was released; another card then pays the same reward.
    await expect(await historyRows(page, rewardName)).toHaveCount(0);
    await visit(page, REVIEW);
    await fillCard(page, CARDS.success, rewardName);
    await pay(page);
    await expect(page.getByRole("heading", { name: TEXT.success })).toBeVisible({ timeout: 10_000 });
    await expect(await historyRows(page, rewardName)).toHaveCount(1);
  });

  test("the Pay button shows 'Please wait' while the payment runs, and a second click sends nothing (JavaScript)", async ({
    page,
    request,
    newManager,
  }) => {
    test.skip(!jsEnabled(), "the busy state is a JavaScript enhancement");
    const manager = await newManager();
    await withDraft(request, manager, [100]);
    await visit(page, REVIEW);
    await fillCard(page, CARDS.success, `Busy ${uniqueToken()}`);
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
    await pay(page);
    const busy = page.getByRole("button", { name: "Please wait" });
    await expect(busy).toBeDisabled();
    await expect(busy).toHaveAttribute("aria-busy", "true");
    await busy.click({ force: true });
    release();
    await expect(page.getByRole("heading", { name: TEXT.success })).toBeVisible({ timeout: 10_000 });
    expect(posts).toHaveLength(1);
  });

  test("the draft changed after the review was shown: the API's refusal, then the new total", async ({
    page,
    request,
    manager,
  }) => {
    await withDraft(request, manager, [100]);
    await visit(page, REVIEW);
    await fillCard(page, CARDS.success, `Changed ${uniqueToken()}`);
    // Meanwhile (another tab, say) a recipient of $50 is added: the total becomes $166.50.
    const added = await request.post("/api/RewardMyTeam/create-reward-user", {
      headers: manager.headers,
      data: { firstName: "Late", lastName: "Addition", email: uniqueEmail("rcpt-late"), value: 50 },
    });
    expect(added.status(), await added.text()).toBe(200);
    await pay(page);
    await expect(
      page.getByRole("alert").filter({ hasText: "The reward list has changed; please review the new total." }),
    ).toBeVisible();
    await expect(page.getByRole("button", { name: "Pay $166.50 and Send Emails" })).toBeVisible();
    await expect(page.getByText("Late Addition ($50.00)")).toBeVisible();
  });

  test("authentication completed → success", { tag: "@journey" }, async ({ page, request, manager }) => {
    await withDraft(request, manager, [100]);
    await visit(page, REVIEW);
    const rewardName = `Authenticated ${uniqueToken()}`;
    await fillCard(page, CARDS.authentication, rewardName);
    await pay(page);
    await expect(page).toHaveURL(/\/portal\/payment-authentication\?/);
    await expect(page.getByRole("heading", { name: "Authenticate payment", level: 2 })).toBeVisible();
    await expect(page.getByText("$111.00")).toBeVisible();
    if (jsEnabled()) await expectAccessible(page);
    await page.getByRole("button", { name: "Complete" }).click();
    await expect(page).toHaveURL(/\/portal\/payment-confirmation\?payment_intent=/);
    await expect(page.getByRole("heading", { name: TEXT.success })).toBeVisible({ timeout: 10_000 });
    await expect(await historyRows(page, rewardName)).toHaveCount(1);
  });

  test("authentication failed → 'Payment Failed', nothing released", { tag: "@journey" }, async ({
    page,
    request,
    manager,
  }) => {
    await withDraft(request, manager, [100]);
    await visit(page, REVIEW);
    const rewardName = `Unauthenticated ${uniqueToken()}`;
    await fillCard(page, CARDS.authentication, rewardName);
    await pay(page);
    await expect(page).toHaveURL(/\/portal\/payment-authentication\?/);
    await page.getByRole("button", { name: "Fail" }).click();
    await expect(page).toHaveURL(/\/portal\/payment-confirmation\?payment_intent=/);
    await expect(page.getByRole("alert").filter({ hasText: TEXT.failed })).toBeVisible({ timeout: 10_000 });
    if (jsEnabled()) await expectAccessible(page);
    await expect(await historyRows(page, rewardName)).toHaveCount(0);
  });

  test("the confirmation page without payment_intent goes to /error", async ({ page, manager: _ }) => {
    await visit(page, CONFIRMATION);
    await expect(page).toHaveURL(/\/error$/);
    await expect(page.getByRole("heading", { name: "Error", level: 1 })).toBeVisible();
  });
});
