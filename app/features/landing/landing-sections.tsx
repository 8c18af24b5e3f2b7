import type { ReactNode } from "react";
import { href, Link } from "react-router";
import { LandingSection, SectionHeading } from "./landing-section.tsx";

const STEPS = [
  {
    title: "Create Account",
    text: "Sign up free in minutes and verify your email. No set-up fee and no lock-in.",
    icon: "M12 12a4 4 0 1 0 0-8 4 4 0 0 0 0 8zm-7 8a7 7 0 0 1 14 0",
  },
  {
    title: "Add Recipients",
    text: "Add your recipients and their reward amount, one at a time or from a CSV file.",
    icon: "M9 11a3.5 3.5 0 1 0 0-7 3.5 3.5 0 0 0 0 7zm-6 9a6 6 0 0 1 12 0M18 8v6m-3-3h6",
  },
  {
    title: "Pay with Ease",
    text: "Pay securely by card for exactly what you allocate. No pre-payment and no float.",
    icon: "M3 7h18v10H3zM3 11h18M7 15h3",
  },
  {
    title: "Send Rewards",
    text: "Recipients are emailed their login details and choose their own eGift cards.",
    icon: "M3 11l18-8-8 18-2-8zm8 2l10-10",
  },
];

export function HowItWorks() {
  return (
    <LandingSection id="howItWorks" className="bg-white">
      <SectionHeading
        id="howItWorks-title"
        eyebrow="4 easy steps"
        title="How it Works"
        intro="From sign-up to a thank-you in your team's inbox, all in one place."
      />
      <ol className="mt-12 grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
        {STEPS.map((step, index) => (
          <li key={step.title} className="relative rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
            <div className="flex items-center gap-3">
              <span className="flex size-12 items-center justify-center rounded-full bg-brand-100 text-brand-700">
                <Icon path={step.icon} />
              </span>
              <span className="text-sm font-semibold uppercase tracking-wider text-brand-700">Step {index + 1}</span>
            </div>
            <h3 className="mt-4 text-xl font-bold text-brand-900">{step.title}</h3>
            <p className="mt-2 text-slate-600">{step.text}</p>
          </li>
        ))}
      </ol>
    </LandingSection>
  );
}

const FEATURES = [
  {
    title: "No pre-payment or float",
    text: "Pay only for the Reward Dollars you allocate, when you allocate them.",
    icon: "M12 3v18m5-14H9.5a3 3 0 0 0 0 6h5a3 3 0 0 1 0 6H6",
  },
  {
    title: "Over 100 retailers",
    text: "Fashion, tech, travel, home, dining and groceries: every recipient finds something they love.",
    icon: "M4 9h16l-1 11H5zM8 9V7a4 4 0 0 1 8 0v2",
  },
  {
    title: "Recipients choose",
    text: "Each recipient gets an access code and password and picks their own gift cards.",
    icon: "M5 13l4 4L19 7",
  },
  {
    title: "Fast digital delivery",
    text: "eGift cards arrive by email, typically within 24 hours of redemption.",
    icon: "M13 2L4 14h7l-1 8 9-12h-7z",
  },
  {
    title: "Simple team management",
    text: "Keep your team list up to date, upload a CSV in one go and see your reward history at a glance.",
    icon: "M4 6h16M4 12h16M4 18h10",
  },
  {
    title: "18 months to redeem",
    text: "Reward Dollars stay valid for 18 months from the first congratulatory email.",
    icon: "M12 7v5l3 3m6-3a9 9 0 1 1-18 0 9 9 0 0 1 18 0z",
  },
];

export function Features() {
  return (
    <LandingSection id="features" className="bg-white">
      <SectionHeading
        id="features-title"
        eyebrow="Features and benefits"
        title="Rewarding made simple"
        intro="Everything a busy program manager needs to say thank you, without the admin."
      />
      <ul className="mt-12 grid gap-x-8 gap-y-10 sm:grid-cols-2 lg:grid-cols-3">
        {FEATURES.map((f) => (
          <li key={f.title} className="flex gap-4">
            <span className="flex size-12 shrink-0 items-center justify-center rounded-xl bg-accent-400 text-brand-900">
              <Icon path={f.icon} />
            </span>
            <div>
              <h3 className="text-lg font-bold text-brand-900">{f.title}</h3>
              <p className="mt-1 text-slate-600">{f.text}</p>
            </div>
          </li>
        ))}
      </ul>
    </LandingSection>
  );
}

const STATS = [
  { value: "65%", label: "of staff prefer non-cash rewards" },
  { value: "44%", label: "increase in staff satisfaction" },
  { value: "2.7x", label: "staff engagement" },
  { value: "37%", label: "increase in business revenue" },
];

export function WhyChoose() {
  return (
    <LandingSection id="WhyChoose" className="bg-brand-900 text-white">
      <SectionHeading
        id="WhyChoose-title"
        tone="dark"
        eyebrow="About us"
        title="Why Choose Us"
        intro="Recognition works, and non-cash rewards work best."
      />
      <ul className="mt-12 grid gap-6 sm:grid-cols-2 lg:grid-cols-4">
        {STATS.map((s) => (
          <li key={s.value} className="rounded-2xl bg-white/10 p-6 text-center ring-1 ring-white/15">
            <p className="text-5xl font-extrabold text-accent-400">{s.value}</p>
            <p className="mt-2 text-lg text-brand-100">{s.label}</p>
          </li>
        ))}
      </ul>
      <ul className="mt-12 grid gap-6 md:grid-cols-3">
        <Credential title="In business since 1994">
          Three decades of helping Australian businesses reward and recognise their people.
        </Credential>
        <Credential title="ISO 9001 certified">Quality management certified to the international standard.</Credential>
        <Credential title="ISO 27001 certified">
          Information security certified, so your team's details stay protected.
        </Credential>
      </ul>
    </LandingSection>
  );
}

function Credential({ title, children }: { title: string; children: ReactNode }) {
  return (
    <li className="flex gap-4">
      <span className="flex size-12 shrink-0 items-center justify-center rounded-full bg-accent-400 text-brand-900">
        <Icon path="M12 3l7 3v5c0 4.5-3 8.5-7 10-4-1.5-7-5.5-7-10V6zm-3 9l2 2 4-4" />
      </span>
      <div>
        <h3 className="text-lg font-bold">{title}</h3>
        <p className="mt-1 text-brand-100">{children}</p>
      </div>
    </li>
  );
}

export function ReadyCta() {
  return (
    <section aria-labelledby="ready-title" className="bg-brand-50 px-4 py-16 md:py-24">
      <div className="mx-auto max-w-4xl rounded-3xl bg-gradient-to-br from-brand-700 to-brand-900 px-6 py-12 text-center text-white shadow-xl md:px-12">
        <h2 id="ready-title" className="text-3xl font-bold md:text-4xl">
          Are You Reward Ready?
        </h2>
        <p className="mt-4 text-lg text-brand-100">Supercharge Your Team and Business Outputs in 4 Easy Steps</p>
        <div className="mt-8 flex flex-col justify-center gap-3 sm:flex-row">
          <Link
            to={href("/corporate/sign-up")}
            className="inline-flex min-h-12 items-center justify-center rounded-full bg-accent-400 px-7 font-semibold text-brand-900 hover:bg-accent-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white"
          >
            Get Started Now!
          </Link>
          <Link
            to={href("/not-ready-yet")}
            className="inline-flex min-h-12 items-center justify-center rounded-full border-2 border-white/80 px-7 font-semibold text-white hover:bg-white/10 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white"
          >
            I'm Not Ready
          </Link>
        </div>
      </div>
    </section>
  );
}

function Icon({ path }: { path: string }) {
  return (
    <svg
      aria-hidden="true"
      viewBox="0 0 24 24"
      className="size-6"
      fill="none"
      stroke="currentColor"
      strokeWidth="2"
      strokeLinecap="round"
      strokeLinejoin="round"
    >
      <path d={path} />
    </svg>
  );
}
