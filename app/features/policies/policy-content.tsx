// The Terms and Conditions and the Privacy Policy bodies: shown on their own pages and inside
// the dialogs of the public forms. Headings default to h2 (under the page's h1); a dialog whose
// title is an h2 can pass headingLevel={3}.
import type { ReactNode } from "react";
import { href, Link } from "react-router";

export const TERMS_LAST_UPDATED = "4 November 2024";
export const PRIVACY_LAST_UPDATED = "5 November 2024";

type HeadingLevel = 2 | 3;

const prose =
  "max-w-none text-base leading-7 text-slate-700 [&_:is(h2,h3)]:mt-10 [&_:is(h2,h3)]:text-xl [&_:is(h2,h3)]:font-bold [&_:is(h2,h3)]:leading-snug [&_:is(h2,h3)]:text-brand-900 [&_p]:mt-4 [&_ul]:mt-4 [&_ul]:list-disc [&_ul]:space-y-2 [&_ul]:pl-6 [&_ol]:mt-4 [&_ol]:list-decimal [&_ol]:space-y-2 [&_ol]:pl-6 [&_a]:font-medium [&_a]:text-brand-700 [&_a]:underline [&_a]:underline-offset-2 [&_a:hover]:text-brand-900 [&_strong]:font-semibold [&_strong]:text-slate-900";

function Section({ level, title, children }: { level: HeadingLevel; title: string; children: ReactNode }) {
  const Heading = level === 2 ? "h2" : "h3";
  return (
    <section>
      <Heading>{title}</Heading>
      {children}
    </section>
  );
}

function Updated({ date }: { date: string }) {
  return <p className="mt-0! text-sm font-semibold text-slate-500">Last updated {date}</p>;
}

export function TermsContent({ headingLevel = 2 }: { headingLevel?: HeadingLevel }) {
  const h = headingLevel;
  return (
    <div className={prose}>
      <Updated date={TERMS_LAST_UPDATED} />
      <p>
        These Terms and Conditions govern the use of Reward Portal, a web service that lets businesses buy Reward
        Dollars, allocate them to their staff or customers, and lets those people redeem them for digital gift cards
        from over 100 Australian retailers. Please read them carefully. By creating an account, allocating Reward
        Dollars or redeeming them, you agree to these terms.
      </p>

      <Section level={h} title="1. Who we are and who these terms apply to">
        <p>
          In these terms, <strong>we</strong>, <strong>us</strong> and <strong>our</strong> mean the provider of Reward
          Portal. The Reward Portal brand is licensed exclusively to a marketing company, which operates the service.
        </p>
        <ul>
          <li>
            <strong>Business</strong> or <strong>you</strong> means the company or organisation that registers for an
            account and allocates Reward Dollars.
          </li>
          <li>
            <strong>Program Manager</strong> means the person who registers and uses the portal on behalf of the
            Business.
          </li>
          <li>
            <strong>Recipient</strong> means a person to whom the Business allocates Reward Dollars.
          </li>
          <li>
            <strong>Reward Catalogue</strong> means the website where Recipients redeem Reward Dollars for gift cards.
          </li>
        </ul>
      </Section>

      <Section level={h} title="2. Eligibility and your account">
        <p>
          Reward Portal is intended for businesses and users within Australia. To open an account you must be at least
          18 years old, be authorised to act for the Business, and give us true, accurate and complete information,
          which you keep up to date.
        </p>
        <p>
          The Program Manager is responsible for keeping login details secure, for all activity under the account, and
          for non-technical support of the Business's Recipients (for example, confirming who has been rewarded and how
          much). Tell us straight away if you believe your account has been accessed without permission.
        </p>
      </Section>

      <Section level={h} title="3. Reward Dollars and what they cost">
        <ul>
          <li>Each Reward Dollar is valued at $1 AUD.</li>
          <li>
            A fulfilment fee of 10% of the Reward Dollars allocated applies to each transaction. GST applies to the
            fulfilment fee only.
          </li>
          <li>
            You pay only for the Reward Dollars you allocate. There is no pre-payment, deposit or float: you pay by card
            at the time you send a reward, and the total shown before you pay is the total you are charged.
          </li>
          <li>We issue a tax invoice for each payment.</li>
        </ul>
      </Section>

      <Section level={h} title="4. No transfer and no cash">
        <p>
          Reward Dollars cannot be transferred to another person or account, cannot be exchanged for cash, and do not
          earn interest. They can only be redeemed for the rewards offered in the Reward Catalogue.
        </p>
      </Section>

      <Section level={h} title="5. Validity and forfeiture">
        <p>
          Reward Dollars are valid for 18 months from the date the first congratulatory email is sent to the Recipient.
          Any Reward Dollars not redeemed by the end of that period are forfeited and cannot be reinstated or refunded.
        </p>
        <p>
          If the Business removes a Recipient from its team, the Recipient's access is made inactive and any unspent
          Reward Dollars are forfeited.
        </p>
      </Section>

      <Section level={h} title="6. Sending rewards">
        <p>
          When a payment succeeds, each Recipient is sent a congratulatory email with an access code, a password and a
          link to the Reward Catalogue. The Business is responsible for giving us correct names and email addresses;
          rewards sent to an address supplied by the Business are treated as delivered.
        </p>
      </Section>

      <Section level={h} title="7. Redeeming Reward Dollars">
        <p>
          To redeem, a Recipient needs a valid access code and password, must select rewards, and must have enough
          Reward Dollars for them. The Recipient must then confirm the order and the email address the gift cards will
          be delivered to.
        </p>
        <p>
          Once an order is confirmed, the Recipient's balance is reduced by the reward price shown at confirmation and a
          confirmation email is sent. Confirmed orders cannot be changed or cancelled.
        </p>
      </Section>

      <Section level={h} title="8. Gift card delivery">
        <ul>
          <li>
            Gift cards are delivered by email on the next business day after we acknowledge the order, typically within
            24 hours of redemption.
          </li>
          <li>
            If a gift card has not arrived within 3 business days, please contact support (check your junk or spam
            folder first).
          </li>
          <li>Problems with the quantity of gift cards received must be reported within 24 hours of receipt.</li>
          <li>
            Gift cards are issued by the retailers and are subject to each retailer's own terms, including any expiry
            date. Treat gift cards like cash: we cannot replace a card that is lost, stolen or used by someone else
            after delivery.
          </li>
        </ul>
      </Section>

      <Section level={h} title="9. Support">
        <p>
          You can reach us through the <Link to={href("/help")}>Help Centre</Link>. We reply to support requests within
          24 business hours.
        </p>
      </Section>

      <Section level={h} title="10. Refunds">
        <p>
          Because Reward Dollars are released to Recipients as soon as payment succeeds, payments and fulfilment fees
          are not refundable, except where we have made an error or where the law requires a refund. Nothing in these
          terms limits any right you have under the Australian Consumer Law.
        </p>
      </Section>

      <Section level={h} title="11. Acceptable use">
        <p>You must not use Reward Portal:</p>
        <ul>
          <li>for any unlawful, fraudulent or misleading purpose, including money laundering;</li>
          <li>to send rewards to people who have not agreed to receive email from the Business;</li>
          <li>to interfere with, probe or overload the service, or to get around its security or bot checks;</li>
          <li>to resell or commercially redistribute Reward Dollars or gift cards.</li>
        </ul>
      </Section>

      <Section level={h} title="12. Refusal, suspension and termination">
        <p>
          We may refuse any registration or order, and may suspend or terminate any account or rewards programme, at our
          discretion, including where we reasonably suspect fraud, misuse or a breach of these terms. Where we end a
          programme for reasons other than fraud, misuse or breach, we will give reasonable notice where we can, and
          Reward Dollars already allocated remain redeemable until they expire.
        </p>
        <p>You may close your account at any time by contacting support.</p>
      </Section>

      <Section level={h} title="13. Retailers and trade marks">
        <p>
          Retailer names shown on Reward Portal belong to their owners and are used only to identify the gift cards on
          offer. The retailers are responsible for the goods and services bought with their gift cards; please take any
          issue with a purchase up with the retailer.
        </p>
      </Section>

      <Section level={h} title="14. Liability">
        <p>
          Our goods and services come with guarantees that cannot be excluded under the Australian Consumer Law. Subject
          to those guarantees, and to the extent the law allows, we are not liable for any indirect or consequential
          loss, and our total liability for any claim is limited to the fees you paid us in the 12 months before the
          claim arose.
        </p>
      </Section>

      <Section level={h} title="15. Privacy">
        <p>
          We handle personal information as described in our{" "}
          <Link to={href("/policies/privacy-policy")}>Privacy Policy</Link>.
        </p>
      </Section>

      <Section level={h} title="16. Changes to these terms">
        <p>
          We may update these terms from time to time. The date at the top shows when they last changed. If a change
          materially affects you, we will tell you by email or in the portal before it takes effect. Continuing to use
          the service after that means you accept the updated terms.
        </p>
      </Section>

      <Section level={h} title="17. Governing law">
        <p>
          These terms are governed by the laws of New South Wales, Australia, and you submit to the non-exclusive
          jurisdiction of its courts.
        </p>
      </Section>

      <Section level={h} title="18. Contact us">
        <p>
          Questions about these terms are welcome through the contact form in the{" "}
          <Link to={href("/help")}>Help Centre</Link>.
        </p>
      </Section>
    </div>
  );
}

export function PrivacyContent({ headingLevel = 2 }: { headingLevel?: HeadingLevel }) {
  const h = headingLevel;
  return (
    <div className={prose}>
      <Updated date={PRIVACY_LAST_UPDATED} />
      <p>
        This Privacy Policy explains how the provider of Reward Portal (<strong>we</strong>, <strong>us</strong>)
        handles personal information. We are bound by the Privacy Act 1988 (Cth) and this policy follows the 13
        Australian Privacy Principles (APPs).
      </p>

      <Section level={h} title="APP 1: Open and transparent management of personal information">
        <p>
          We manage personal information openly. This policy is always available from the footer of our website, free of
          charge, and we will give you a copy in another form on request. We keep internal practices, procedures and
          systems that help us comply with the APPs and deal with enquiries and complaints.
        </p>
      </Section>

      <Section level={h} title="APP 2: Anonymity and pseudonymity">
        <p>
          You can browse our public website and ask general questions without telling us who you are. To open an
          account, send or receive rewards, or get help with a specific order, we need to identify you, so anonymity is
          not practicable for those services.
        </p>
      </Section>

      <Section level={h} title="APP 3: Collection of solicited personal information">
        <p>We only collect the personal information we need to provide and improve the service:</p>
        <ul>
          <li>
            <strong>Program Managers:</strong> first and last name, work email address, company name, ABN, company size
            and industry, and a password (stored only as a one-way hash).
          </li>
          <li>
            <strong>Recipients and team members:</strong> first and last name, email address and reward amounts,
            supplied by the Business that rewards them; and the orders a Recipient places when redeeming.
          </li>
          <li>
            <strong>Waitlist and contact forms:</strong> name, email address, company name, your message and whether you
            agreed to receive updates.
          </li>
          <li>
            <strong>Payments:</strong> card payments are handled by our payment processor. We never see or store full
            card numbers; we keep only the last four digits and the payment result.
          </li>
          <li>
            <strong>Technical information:</strong> IP address, browser type and the pages requested, used to keep the
            service secure, prevent abuse and fix problems.
          </li>
        </ul>
        <p>
          We collect information directly from you where we can. Recipient details come from the Business that rewards
          them. We do not collect sensitive information.
        </p>
      </Section>

      <Section level={h} title="APP 4: Dealing with unsolicited personal information">
        <p>
          If we receive personal information we did not ask for and could not have collected under APP 3, we destroy or
          de-identify it as soon as practicable, where it is lawful and reasonable to do so.
        </p>
      </Section>

      <Section level={h} title="APP 5: Notification of the collection of personal information">
        <p>
          When we collect personal information we tell you who we are, why we collect it, and where to find this policy.
          A Business that uploads Recipient details must tell its Recipients that their details will be given to us so
          that we can send their rewards.
        </p>
      </Section>

      <Section level={h} title="APP 6: Use or disclosure of personal information">
        <p>We use personal information to:</p>
        <ul>
          <li>create and secure accounts, and verify email addresses;</li>
          <li>process payments, issue tax invoices and send rewards and gift cards;</li>
          <li>answer support requests and contact form messages;</li>
          <li>detect and prevent fraud, spam and abuse, including automated bot checks on public forms;</li>
          <li>meet our legal, tax and accounting obligations.</li>
        </ul>
        <p>
          We share it only as needed for these purposes: with our payment processor, email delivery and hosting
          providers, bot-check provider, the Reward Catalogue and the retailers that fulfil gift card orders, our
          professional advisers, and authorities where the law requires or permits. We do not sell personal information.
        </p>
      </Section>

      <Section level={h} title="APP 7: Direct marketing">
        <p>
          We send product news and tips only to people who have agreed to receive them, such as those who opt in when
          joining the waitlist. Every marketing email has an unsubscribe link, and you can also ask us to stop at any
          time through the Help Centre. Service emails, such as reward notifications and receipts, are not marketing.
        </p>
      </Section>

      <Section level={h} title="APP 8: Cross-border disclosure of personal information">
        <p>
          Some of our service providers, including our payment processor and our bot-check provider, may process
          information outside Australia, for example in the United States. Before disclosing personal information
          overseas we take reasonable steps to ensure the recipient handles it consistently with the APPs.
        </p>
      </Section>

      <Section level={h} title="APP 9: Adoption, use or disclosure of government related identifiers">
        <p>
          We do not use government related identifiers, such as tax file numbers or driver licence numbers, to identify
          individuals. A company's ABN identifies the business, not a person.
        </p>
      </Section>

      <Section level={h} title="APP 10: Quality of personal information">
        <p>
          We take reasonable steps to keep personal information accurate, up to date and complete. Program Managers can
          update their own and their team's details in the portal at any time.
        </p>
      </Section>

      <Section level={h} title="APP 11: Security of personal information">
        <p>
          We protect personal information from misuse, interference, loss and unauthorised access with measures
          including encrypted connections, one-way hashing of passwords, limited staff access, and an information
          security management system certified to ISO 27001. When we no longer need information for any purpose allowed
          by law, we destroy or de-identify it.
        </p>
      </Section>

      <Section level={h} title="APP 12: Access to personal information">
        <p>
          You may ask for the personal information we hold about you through the contact form in the{" "}
          <Link to={href("/help")}>Help Centre</Link>. We will respond within 30 days and do not charge for making a
          request. If we refuse access, we will explain why in writing and how you can complain.
        </p>
      </Section>

      <Section level={h} title="APP 13: Correction of personal information">
        <p>
          If information we hold about you is inaccurate, out of date, incomplete, irrelevant or misleading, ask us to
          correct it and we will do so within 30 days, free of charge. If we disagree, we will tell you why and, on
          request, note your view with the information.
        </p>
      </Section>

      <Section level={h} title="Cookies">
        <p>
          We use only the cookies the service needs: a session cookie that keeps you signed in and a security cookie
          that protects our forms. We do not use advertising cookies.
        </p>
      </Section>

      <Section level={h} title="Questions and complaints">
        <p>
          Contact us through the <Link to={href("/help")}>Help Centre</Link> with any question or complaint about
          privacy. We will acknowledge it within 24 business hours and aim to resolve it within 30 days. If you are not
          satisfied with our response, you can complain to the Office of the Australian Information Commissioner at{" "}
          <a href="https://www.oaic.gov.au">www.oaic.gov.au</a>.
        </p>
      </Section>
    </div>
  );
}
