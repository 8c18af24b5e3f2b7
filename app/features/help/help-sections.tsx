// The two sections the public Help Centre (help.tsx) and the portal's Help (portal.help.tsx) share
// (docs/requirements.md §S2): the ten FAQs, and Contact Us around the page's own form or thank-you.
import type { ReactNode } from "react";
import { FaqAccordion } from "./faq.tsx";

export const helpSectionHeading = "text-2xl font-bold text-brand-800 md:text-3xl";

export function FaqSection() {
  return (
    <section aria-labelledby="faq-heading">
      <h2 id="faq-heading" className={helpSectionHeading}>
        Frequently Asked Questions
      </h2>
      <p className="mt-2 mb-6 text-slate-700">
        Quick answers about Reward Dollars, payments and gift cards. Select a question to show its answer.
      </p>
      <FaqAccordion />
    </section>
  );
}

/** `scrollMargin`: room above #contact for the frame's header when a link jumps to it. */
export function ContactSection({ scrollMargin, children }: { scrollMargin: string; children: ReactNode }) {
  return (
    <section id="contact" aria-labelledby="contact-heading" className={scrollMargin}>
      <h2 id="contact-heading" className={helpSectionHeading}>
        Contact Us
      </h2>
      <p className="mt-2 mb-6 text-slate-700">
        Can&rsquo;t find your answer? Send us a message and our support team will reply within 24 business hours.
      </p>
      <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6">{children}</div>
    </section>
  );
}
