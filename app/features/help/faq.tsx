// The ten FAQs of the Help Centre (public and portal, docs/requirements.md §S2) and their accordion: one
// answer open at a time, collapsible, and working without JavaScript through exclusive
// <details name="faq"> elements (the onToggle handler does the same for older browsers).
import type { ReactNode, SyntheticEvent } from "react";
import { href, Link } from "react-router";

const linkClass =
  "font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";

function TermsLink({ children = "Terms and Conditions" }: { children?: ReactNode }) {
  return (
    <Link to={href("/policies/terms-and-conditions")} className={linkClass}>
      {children}
    </Link>
  );
}

function PrivacyLink({ children = "Privacy Policy" }: { children?: ReactNode }) {
  return (
    <Link to={href("/policies/privacy-policy")} className={linkClass}>
      {children}
    </Link>
  );
}

function ContactLink({ children = "Contact Us form" }: { children?: ReactNode }) {
  return (
    <a href="#contact" className={linkClass}>
      {children}
    </a>
  );
}

export interface Faq {
  id: string;
  question: string;
  answer: ReactNode;
}

export const FAQS: Faq[] = [
  {
    id: "reward-dollar-value",
    question: "What is a Reward Dollar worth, and what does it cost?",
    answer: (
      <>
        <p>
          Each Reward Dollar is worth $1 AUD. You pay only for the Reward Dollars you allocate to your recipients, plus
          a 10% fulfilment fee per transaction. There is no pre-payment, no float and no subscription: creating an
          account is free.
        </p>
        <p>
          Reward Dollars cannot be transferred or exchanged for cash. The full rules are in our <TermsLink />.
        </p>
      </>
    ),
  },
  {
    id: "gst",
    question: "Is GST charged?",
    answer: (
      <p>
        GST applies to the fulfilment (service) fee only, not to the Reward Dollars themselves. Before you pay, the
        review screen shows the Reward Dollars total, the service fee, the GST on that fee and the total cost, and you
        receive a tax invoice by email after payment.
      </p>
    ),
  },
  {
    id: "validity",
    question: "How long are Reward Dollars valid?",
    answer: (
      <p>
        Reward Dollars are valid for 18 months from the day the first congratulatory email is sent to the recipient. Any
        Reward Dollars not used within that time are forfeited. The details are in our <TermsLink />.
      </p>
    ),
  },
  {
    id: "redeem",
    question: "How do my recipients redeem their rewards?",
    answer: (
      <>
        <p>
          Each recipient receives a congratulations email with an access code, a password and a link to the reward
          catalogue. They sign in with the access code and password, choose digital gift cards from over 100 Australian
          retailers, and confirm their order.
        </p>
        <p>
          Once the order is confirmed, their balance is reduced by the reward price shown at confirmation and a
          confirmation email is sent to them.
        </p>
      </>
    ),
  },
  {
    id: "delivery",
    question: "How long does gift card delivery take?",
    answer: (
      <p>
        Digital gift cards are delivered by email the next business day after the order is acknowledged, typically
        within 24 hours of redemption.
      </p>
    ),
  },
  {
    id: "missing-card",
    question: "A gift card hasn't arrived. What should I do?",
    answer: (
      <p>
        First check the junk or spam folder of the recipient&rsquo;s inbox. If the gift card has not arrived within 3
        business days of the order, send us a message through the <ContactLink /> with the recipient&rsquo;s name and
        email address, and we will track it down.
      </p>
    ),
  },
  {
    id: "wrong-quantity",
    question: "The number of gift cards received is wrong. What should I do?",
    answer: (
      <p>
        Problems with the quantity of gift cards received must be reported within 24 hours of receipt. Use the{" "}
        <ContactLink /> and tell us what was ordered and what arrived.
      </p>
    ),
  },
  {
    id: "team-members",
    question: "How do I add my team members?",
    answer: (
      <p>
        In the portal, open My Team and choose Add New. Add people one at a time with their first name, last name and
        email, or upload a CSV file with the columns &ldquo;First Name&rdquo;, &ldquo;Last Name&rdquo; and &ldquo;Email
        Address&rdquo; (a template is available to download on the My Team page). You can also add a new person while
        choosing who to reward in Reward My Team.
      </p>
    ),
  },
  {
    id: "payment",
    question: "How do I pay?",
    answer: (
      <p>
        You pay by credit or debit card when you review and send your rewards. Amounts are charged in Australian
        dollars, only for the Reward Dollars you allocate plus the fee and GST shown. The reward emails go out to your
        recipients once the payment succeeds.
      </p>
    ),
  },
  {
    id: "support",
    question: "Who can use the portal, and how do I get help?",
    answer: (
      <>
        <p>
          The portal is for businesses and users within Australia. We may refuse or terminate accounts or reward
          programmes as described in the <TermsLink />, and we handle your personal information as set out in our{" "}
          <PrivacyLink />.
        </p>
        <p>
          For anything else, send us a message through the <ContactLink />: our support team replies within 24 business
          hours.
        </p>
      </>
    ),
  },
];

/** Closes the other answers when one opens (browsers without exclusive <details name>). */
function closeOthers(event: SyntheticEvent<HTMLDetailsElement>) {
  const opened = event.currentTarget;
  if (!opened.open) return;
  const list = opened.closest("[data-faq-list]");
  for (const other of list?.querySelectorAll("details") ?? []) {
    if (other !== opened && other.open) other.open = false;
  }
}

/** The FAQ accordion; question texts are the summaries, answers their panels. */
export function FaqAccordion({ faqs = FAQS, name = "faq" }: { faqs?: Faq[]; name?: string }) {
  return (
    <div data-faq-list className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white">
      {faqs.map((faq) => (
        <details key={faq.id} id={`faq-${faq.id}`} name={name} onToggle={closeOthers} className="group">
          <summary className="flex min-h-11 cursor-pointer list-none items-center justify-between gap-4 px-4 py-3 font-semibold text-slate-900 hover:bg-brand-50 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-brand-700 sm:px-6 [&::-webkit-details-marker]:hidden">
            <span>{faq.question}</span>
            <svg
              viewBox="0 0 24 24"
              className="size-5 shrink-0 text-brand-700 transition-transform group-open:rotate-180"
              fill="none"
              stroke="currentColor"
              strokeWidth="2"
              aria-hidden="true"
            >
              <path d="M6 9l6 6 6-6" strokeLinecap="round" strokeLinejoin="round" />
            </svg>
          </summary>
          <div className="space-y-3 px-4 pb-4 text-slate-700 sm:px-6">{faq.answer}</div>
        </details>
      ))}
    </div>
  );
}
