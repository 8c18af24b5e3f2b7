// The reward emails: the recipient's congratulation and the payer's tax invoice, in
// both parts, with Australian dates and ABNs; the Review page's sample.
import { describe, expect, it } from "vitest";
import { formatDate } from "../../core/dates.ts";
import { formatAbn } from "../../modules/companies/abn.ts";
import { addMonths } from "./templates/dates.ts";
import { taxInvoiceEmail } from "./templates/payments.ts";
import { recipientRewardEmail, sampleRecipientEmail } from "./templates/rewards.ts";

describe("reward emails", () => {
  it("formats dates in Sydney and ABNs in groups", () => {
    // 14:30 UTC on 31 Dec is already 1 January in Sydney.
    expect(formatDate(new Date("2025-12-31T14:30:00Z"), "longDate")).toBe("1 January 2026");
    expect(formatAbn("51824753556")).toBe("51 824 753 556");
  });

  it("adds calendar months, clamping to the month's end", () => {
    expect(addMonths(new Date("2025-03-01T09:00:00Z"), 18).toISOString()).toBe("2026-09-01T09:00:00.000Z");
    expect(addMonths(new Date("2024-08-31T00:00:00Z"), 18).toISOString()).toBe("2026-02-28T00:00:00.000Z");
  });

  it("tells the recipient everything they need, escaping what the manager typed", () => {
    const mail = recipientRewardEmail({
      to: "sam@example.com",
      firstName: "Sam",
      companyName: "Acme <Pty> Ltd",
      rewardName: 'Best "Team"',
      amountCents: 25_000,
      accessCode: "ABCD-EFGH-JKLM",
      password: "pAsswordXYZ234",
      expiresAt: new Date("2026-09-01T09:00:00Z"),
      catalogueUrl: "https://catalogue.test/",
      supportEmail: "help@rewards.test",
    });
    expect(mail.to).toBe("sam@example.com");
    for (const part of [mail.text, mail.html]) {
      for (const needle of [
        "$250.00",
        "ABCD-EFGH-JKLM",
        "pAsswordXYZ234",
        "https://catalogue.test/",
        "1 September 2026",
      ]) {
        expect(part).toContain(needle);
      }
      expect(part).toMatch(/over 100 Australian retailers/);
      expect(part).toMatch(/next business day/);
      expect(part).toMatch(/within 3 business days/);
      expect(part).toMatch(/within 24 hours of receiving/);
      expect(part).toMatch(/24 business hours/);
      expect(part).toMatch(/cannot be transferred or exchanged for cash/);
      // Only the hash is kept, and the outbox redacts the body once delivered: no claim beyond that.
      expect(part).toContain("we only keep a scrambled form of your password, so we cannot send it to you again");
      expect(part).not.toMatch(/not stored anywhere/);
    }
    expect(mail.html).toContain("Acme &lt;Pty&gt; Ltd");
    expect(mail.html).not.toContain("<Pty>");
    expect(mail.text).toContain('for "Best "Team""');
  });

  it("has a sample with made-up values for the Review page", () => {
    const sample = sampleRecipientEmail({
      companyName: "Acme",
      catalogueUrl: "https://catalogue.test/",
      supportEmail: "help@rewards.test",
      now: new Date("2025-03-01T00:00:00Z"),
    });
    expect(sample.subject).toBe("Congratulations! You have received $100.00 in Reward Dollars");
    expect(sample.text).toContain("Acme has rewarded you");
    expect(sample.text).toContain("1 September 2026");
  });

  it("is an Australian tax invoice for the payer", () => {
    const mail = taxInvoiceEmail({
      to: "payer@example.com",
      firstName: "Pat",
      invoice: {
        invoiceNumber: "INV-000042",
        invoiceDate: "2025-03-01T09:00:00.000Z",
        supplier: { name: "Rewards Co Pty Ltd", abn: "53004085616", isPlaceholder: false },
        buyer: { companyName: "Acme Pty Ltd", abn: "51824753556" },
        rewardName: "Spring",
        recipientCount: 1,
        rewardsCents: 123_400,
        serviceFeeCents: 12_340,
        gstCents: 1_234,
        totalCents: 136_974,
        amountPaidCents: 136_974,
        paidFrom: "card",
        adjustment: null,
      },
      invoiceUrl: "https://rewards.example/portal/invoices/INV-000042",
    });
    expect(mail.subject).toBe("Tax Invoice INV-000042: Spring");
    expect(mail.text).toContain("View and download the invoice: https://rewards.example/portal/invoices/INV-000042");
    expect(mail.text).toContain("Tax Invoice");
    expect(mail.text).toContain("Supplier: Rewards Co Pty Ltd");
    expect(mail.text).toContain("Supplier ABN: 53 004 085 616");
    expect(mail.text).toContain("Invoice number: INV-000042");
    expect(mail.text).toContain("Invoice date: 1 March 2025");
    expect(mail.text).toContain("Bill to: Acme Pty Ltd");
    expect(mail.text).toContain("Buyer ABN: 51 824 753 556");
    expect(mail.text).toContain("Reward Dollars: Spring (1 recipient; no GST): $1,234.00");
    expect(mail.text).toContain("Service fee (10% of the Reward Dollars): $123.40");
    expect(mail.text).toContain("GST (10% of the service fee): $12.34");
    expect(mail.text).toContain("Total (including GST): $1,369.74");
    expect(mail.text).toContain("Paid by card at checkout.");
    expect(mail.html).toContain("Tax Invoice");
    expect(mail.html).toContain("$1,369.74");
  });
});
