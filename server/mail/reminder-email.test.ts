// The 30-day expiry reminder (modules/lots/service.server.ts queues one per reward): the amount left, the
// date on Sydney's calendar, the catalogue link, and every word of the company's escaped.
import { describe, expect, it } from "vitest";
import { rewardExpiryReminderEmail } from "./templates/rewards.ts";

describe("the expiry reminder email", () => {
  const input = {
    to: "ann@example.com",
    firstName: "Ann <b>",
    companyName: "Acme & <Sons>",
    rewardName: 'Best "Team" <script>alert(1)</script>',
    amountCents: 6050,
    // 23:30 UTC on 23 May is 24 May in Sydney.
    expiresAt: new Date("2028-05-23T23:30:00Z"),
    accessCode: "K7QM-4XTP-9RWB",
    catalogueUrl: "https://catalogue.test/?a=1&b=2",
    supportEmail: "help@rewards.test",
  };

  it("says how much expires on which day, with the catalogue link and the access code", () => {
    const mail = rewardExpiryReminderEmail(input);
    expect(mail.to).toBe("ann@example.com");
    expect(mail.subject).toBe("Your Reward Dollars expire on 24 May 2028");
    expect(mail.text).toContain("You still have $60.50 in Reward Dollars");
    expect(mail.text).toContain("Expires on: 24 May 2028");
    expect(mail.text).toContain("Access code: K7QM-4XTP-9RWB");
    expect(mail.text).toContain("Choose Your Rewards: https://catalogue.test/?a=1&b=2");
    expect(mail.html).toContain('href="https://catalogue.test/?a=1&amp;b=2"');
  });

  it("escapes the company's and the recipient's words in the HTML", () => {
    const { html } = rewardExpiryReminderEmail(input);
    expect(html).not.toContain("<script>");
    expect(html).not.toContain("<b>");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("Acme &amp; &lt;Sons&gt;");
  });

  it("without an order's reward name or an access code, leaves them out", () => {
    const mail = rewardExpiryReminderEmail({ ...input, rewardName: null, accessCode: null });
    expect(mail.text).toContain("from your reward from Acme & <Sons>.");
    expect(mail.text).not.toContain("Access code:");
    expect(mail.text).not.toContain("Reward:");
  });
});
