// Every email template, rendered with sample data through the one renderer (render.ts, ADR 0031):
// the plain-text part is kept as a snapshot, so any change of wording shows up in review; the
// HTML part is a complete document in React Email's table layout; and what a person typed (a
// name, a company, a message, a reason) reaches the HTML escaped, never as markup.
import { describe, expect, it } from "vitest";
import type { EmailContent } from "../port.ts";
import {
  emailChangeCodeEmail,
  emailChangedNotice,
  managerInviteEmail,
  passwordResetEmail,
  secondFactorFailuresEmail,
  singleSignOnManagerJoinedEmail,
  verificationEmail,
} from "./account.ts";
import { approvalApprovedEmail, approvalDeclinedEmail, approvalRequestedEmail } from "./approvals.ts";
import { automationsPausedEmail } from "./automations.ts";
import { extraPaymentRefundedEmail, scheduledRewardCancelledEmail, taxInvoiceEmail } from "./payments.ts";
import { recipientRewardEmail, rewardExpiryReminderEmail, sampleRecipientEmail } from "./rewards.ts";
import { extraPaymentRefundFailedEmail, helpRequestEmail, orderRefundFailedEmail } from "./support.ts";

/** What a person could type, with markup and an ampersand in it. */
const typed = (s: string) => `${s} <script>alert("x")</script> & <b>Co</b>`;
const NAME = typed("Jo");
const COMPANY = typed("Acme");
const REWARD = typed("Spring");
const order = { rewardName: REWARD, totalCents: 136_974, recipientCount: 1_234 };
const when = new Date("2028-05-23T23:30:00Z");

const templates: Record<string, () => EmailContent> = {
  verification: () => verificationEmail("jo@example.com", NAME, "123456"),
  "password reset": () =>
    passwordResetEmail("jo@example.com", NAME, "https://rewards.test/corporate/forgot-password?passwordResetToken=a&b"),
  "second-factor failures": () =>
    secondFactorFailuresEmail("jo@example.com", NAME, "https://rewards.test/corporate/forgot-password-request"),
  "email change code": () => emailChangeCodeEmail("new@example.com", NAME, "654321"),
  "email changed notice": () => emailChangedNotice("old@example.com", NAME, "new@example.com"),
  "manager invite": () =>
    managerInviteEmail({
      to: "kim@example.com",
      inviterName: NAME,
      companyName: COMPANY,
      role: "manager",
      link: "https://rewards.test/corporate/accept-invite?token=t0k",
    }),
  "single sign-on manager joined": () =>
    singleSignOnManagerJoinedEmail({
      to: "owner@example.com",
      ownerFirstName: NAME,
      companyName: COMPANY,
      managerEmail: "new.colleague@example.com",
      role: "manager",
    }),
  "approval requested": () =>
    approvalRequestedEmail({
      to: "owner@example.com",
      firstName: NAME,
      requesterName: NAME,
      order,
      link: "https://rewards.test/portal/approvals/7",
    }),
  "approval approved": () =>
    approvalApprovedEmail({
      to: "kim@example.com",
      firstName: NAME,
      approverName: NAME,
      order,
      link: "https://rewards.test/portal/review",
    }),
  "approval declined": () =>
    approvalDeclinedEmail({
      to: "kim@example.com",
      firstName: NAME,
      approverName: NAME,
      reason: typed("Too much\nthis quarter"),
      order,
      link: "https://rewards.test/portal/reward-my-team",
    }),
  "recipient reward": () =>
    recipientRewardEmail({
      to: "sam@example.com",
      firstName: NAME,
      companyName: COMPANY,
      rewardName: REWARD,
      message: typed("Thank you, team!\nYou made Q4 happen.\n\n  Onwards."),
      senderName: NAME,
      amountCents: 25_000,
      accessCode: "ABCD-EFGH-JKLM",
      password: "pAsswordXYZ234",
      expiresAt: when,
      catalogueUrl: "https://catalogue.test/?a=1&b=2",
      supportEmail: "help@rewards.test",
    }),
  "recipient reward, resent to an existing account": () =>
    recipientRewardEmail({
      to: "sam@example.com",
      firstName: NAME,
      companyName: COMPANY,
      rewardName: REWARD,
      amountCents: 25_000,
      accessCode: "ABCD-EFGH-JKLM",
      password: null,
      replacesEarlier: true,
      expiresAt: when,
      catalogueUrl: "https://catalogue.test/",
      supportEmail: "help@rewards.test",
    }),
  "recipient reward sample": () =>
    sampleRecipientEmail({
      companyName: COMPANY,
      catalogueUrl: "https://catalogue.test/",
      supportEmail: "help@rewards.test",
      now: new Date("2025-03-01T00:00:00Z"),
    }),
  "expiry reminder": () =>
    rewardExpiryReminderEmail({
      to: "ann@example.com",
      firstName: NAME,
      companyName: COMPANY,
      rewardName: REWARD,
      amountCents: 6050,
      expiresAt: when,
      accessCode: "K7QM-4XTP-9RWB",
      catalogueUrl: "https://catalogue.test/",
      supportEmail: "help@rewards.test",
    }),
  "tax invoice": () =>
    taxInvoiceEmail({
      to: "payer@example.com",
      firstName: NAME,
      invoice: {
        invoiceNumber: "INV-000042",
        invoiceDate: "2025-03-01T09:00:00.000Z",
        supplier: { name: "Rewards Co Pty Ltd", abn: "53004085616", isPlaceholder: false },
        buyer: { companyName: COMPANY, abn: "51824753556" },
        rewardName: REWARD,
        recipientCount: 1,
        rewardsCents: 123_400,
        serviceFeeCents: 12_340,
        gstCents: 1_234,
        totalCents: 136_974,
        amountPaidCents: 136_974,
        paidFrom: "card",
        adjustment: null,
      },
      invoiceUrl: "https://rewards.test/portal/invoices/INV-000042",
      sendAt: when,
    }),
  "scheduled reward cancelled": () =>
    scheduledRewardCancelledEmail({
      to: "payer@example.com",
      firstName: NAME,
      rewardName: REWARD,
      sendAt: when,
      totalCents: 136_974,
      invoiceNumber: "INV-000042",
      orderUrl: "https://rewards.test/portal/scheduled/7",
      refundedTo: "balance",
    }),
  "second payment refunded": () =>
    extraPaymentRefundedEmail({
      to: "payer@example.com",
      firstName: NAME,
      rewardName: REWARD,
      orderId: 7,
      amountCents: 136_974,
      paymentIntentId: "pi_123",
      refundId: "re_456",
    }),
  "help request": () =>
    helpRequestEmail({
      to: "support@help.test",
      id: 42,
      firstName: NAME,
      lastName: typed("Citizen"),
      email: "jo@example.com",
      message: typed("Where is my invoice?\nThanks"),
    }),
  "order refund failed": () =>
    orderRefundFailedEmail({
      to: "support@help.test",
      orderId: 7,
      companyId: 3,
      companyName: COMPANY,
      refundTo: "the card",
      attempts: 9,
      payerEmail: "payer@example.com",
      totalCents: 136_974,
      processor: "stripe",
      paymentIntentId: "pi_123",
      cancelledAt: when,
      lastError: typed("card_declined"),
    }),
  "second payment refund failed": () =>
    extraPaymentRefundFailedEmail({
      to: "support@help.test",
      orderId: 7,
      companyId: 3,
      companyName: COMPANY,
      attempts: 9,
      amountCents: 136_974,
      paymentIntentId: "pi_123",
      lastError: typed("card_declined"),
    }),
  "automations paused": () =>
    automationsPausedEmail({
      to: "owner@example.com",
      firstName: NAME,
      rewardNames: [REWARD, typed("Anniversary")],
      neededCents: 16_650,
      balanceCents: 11_100,
      link: "https://rewards.test/portal/automations",
    }),
};

describe.each(Object.entries(templates))("the %s email", (_name, render) => {
  it("keeps its words (the plain-text part)", () => {
    const mail = render();
    expect({ to: mail.to, subject: mail.subject, text: mail.text }).toMatchSnapshot();
  });

  it("is a complete HTML document in the library's table layout", () => {
    const { html } = render();
    expect(html).toMatch(/^<!doctype html><html dir="ltr" lang="en-AU"><head>/);
    expect(html).toMatch(/<\/head><body[ >]/);
    expect(html).toMatch(/<\/body><\/html>$/);
    expect(html).toContain(
      '<table align="center" width="100%" border="0" cellPadding="0" cellSpacing="0" role="presentation"',
    );
    expect(html).toContain("Reward Portal · Licensed exclusively to a marketing company.");
  });

  it("escapes what a person typed", () => {
    const { html, text } = render();
    expect(html).not.toMatch(/<script|<b>/i);
    if (text.includes("<script>")) {
      expect(html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;Co&lt;/b&gt;");
    }
    // Only the renderer's own markup is left once the escaped text is taken out: no stray '<'.
    expect(
      html.replace(/<\/?[a-zA-Z][^<>]*>|<!--[^<>]*-->|<!\[endif\]-->|<!--\[if mso\]>|<!doctype html>/g, ""),
    ).not.toContain("<");
  });
});

it("puts every word of the text part in the HTML part too", () => {
  for (const render of Object.values(templates)) {
    const { html, text } = render();
    // The words between the tags, and the links (the button's label is text, its address an href).
    const htmlWords = `${html} ${[...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1]).join(" ")}`
      .replace(/<[^>]*>/g, " ")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&#x27;/g, "'")
      .replace(/&amp;/g, "&");
    for (const line of text.split("\n")) {
      // A details row is "label: value" in text and two cells in HTML; a quote line starts "> ".
      for (const piece of line.replace(/^> ?/, "").split(/: (?=.)/)) {
        for (const word of piece.split(/\s+/).filter(Boolean)) expect(htmlWords).toContain(word);
      }
    }
  }
});
