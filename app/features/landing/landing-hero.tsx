import { href, Link } from "react-router";
import { SectionLink } from "../../ui/section-link.tsx";

/** The hero: the page's h1 and the first call to action. Backgrounds are CSS only (no image requests). */
export function LandingHero() {
  return (
    <section
      aria-labelledby="hero-title"
      className="relative isolate overflow-hidden bg-brand-900 bg-[radial-gradient(circle_at_85%_12%,#7c3aed_0,transparent_45%),radial-gradient(circle_at_0%_100%,#b45309_0,transparent_40%),linear-gradient(180deg,#2e1065,#4c1d95)] text-white md:bg-[radial-gradient(circle_at_75%_45%,#6d28d9_0,transparent_50%),linear-gradient(120deg,#2e1065_0%,#4c1d95_55%,#5b21b6_100%)]"
    >
      <div className="mx-auto grid min-h-[600px] max-w-7xl items-center gap-10 px-4 pt-28 pb-16 md:min-h-[680px] md:grid-cols-[1.1fr_1fr] md:px-6 md:pt-32">
        <div>
          <p className="text-sm font-semibold uppercase tracking-widest text-accent-400">
            Corporate eGift card rewards
          </p>
          <h1
            id="hero-title"
            className="mt-3 text-4xl font-extrabold leading-tight tracking-tight sm:text-5xl lg:text-6xl"
          >
            Reward your people instantly
          </h1>
          <p className="mt-5 max-w-xl text-lg text-brand-100 md:text-xl">
            Thank your staff and customers with digital eGift cards from over 100 of the best Australian retailers. They
            choose the reward they love; you pay only for what you allocate.
          </p>
          <div className="mt-8 flex flex-col gap-3 sm:flex-row">
            <Link
              to={href("/corporate/sign-up")}
              className="inline-flex min-h-12 items-center justify-center rounded-full bg-accent-400 px-7 text-lg font-semibold text-brand-900 shadow-lg shadow-black/20 hover:bg-accent-500 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white"
            >
              Create Free Account
            </Link>
            <SectionLink
              id="howItWorks"
              className="inline-flex min-h-12 items-center justify-center rounded-full border-2 border-white/70 px-7 text-lg font-semibold text-white hover:bg-white/10 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white"
            >
              See how it works
            </SectionLink>
          </div>
        </div>
        <CardStack />
      </div>
    </section>
  );
}

/** Decorative fanned gift cards, desktop only. */
function CardStack() {
  return (
    <svg aria-hidden="true" viewBox="0 0 420 340" className="hidden w-full max-w-md justify-self-center md:block">
      <g transform="rotate(-14 210 170)">
        <rect x="60" y="70" width="260" height="164" rx="16" fill="#15803d" />
        <rect x="82" y="92" width="34" height="26" rx="5" fill="#fff" opacity=".35" />
      </g>
      <g transform="rotate(-4 210 170)">
        <rect x="80" y="80" width="260" height="164" rx="16" fill="#b91c1c" />
        <rect x="102" y="102" width="34" height="26" rx="5" fill="#fff" opacity=".35" />
      </g>
      <g transform="rotate(8 210 170)">
        <rect x="100" y="92" width="260" height="164" rx="16" fill="#fbbf24" />
        <rect x="122" y="114" width="34" height="26" rx="5" fill="#2e1065" opacity=".35" />
        <text x="122" y="196" fill="#2e1065" fontFamily="system-ui, sans-serif" fontSize="30" fontWeight="700">
          $100
        </text>
        <text
          x="122"
          y="228"
          fill="#2e1065"
          fontFamily="system-ui, sans-serif"
          fontSize="15"
          fontWeight="600"
          letterSpacing="2"
        >
          GIFT CARD
        </text>
      </g>
    </svg>
  );
}
