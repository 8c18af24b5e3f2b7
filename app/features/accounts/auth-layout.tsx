// The frame of the public account pages: the public header and footer, the page banner (its
// title is the h1), then the form's card. The onboarding pages (sign-up, verify) put the four
// steps of docs/requirements.md §S1 in a left column, hidden on small screens (§S2).
import type { ReactNode } from "react";
import { Banner } from "../../ui/banner.tsx";
import { OnboardingSteps } from "../../ui/onboarding-steps.tsx";
import { PublicLayout } from "../site/public-layout.tsx";

const cardClass = "min-w-0 rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-8";

/**
 * `step` puts the onboarding steps beside the card (sign-up is 1, verify 2); without it the card
 * stands alone and centred (login, forgot password, reset).
 */
export function AuthLayout({
  title,
  subtitle,
  step,
  children,
}: {
  title: string;
  subtitle?: ReactNode;
  step?: 1 | 2;
  children: ReactNode;
}) {
  return (
    <PublicLayout>
      <Banner title={title} subtitle={subtitle} />
      {step ? (
        <div className="mx-auto grid max-w-6xl gap-12 px-4 py-12 md:grid-cols-[minmax(0,2fr)_minmax(0,3fr)] md:py-16">
          <OnboardingSteps current={step} />
          <div className={cardClass}>{children}</div>
        </div>
      ) : (
        <div className="mx-auto max-w-xl px-4 py-12 md:py-16">
          <div className={cardClass}>{children}</div>
        </div>
      )}
    </PublicLayout>
  );
}

/** The card's heading (an h2 under the banner's h1), focusable so a redirect can land on it. */
export function AuthHeading({ id, children }: { id?: string; children: ReactNode }) {
  return (
    <h2 id={id} className="mb-6 text-2xl font-bold text-brand-800 md:text-3xl">
      {children}
    </h2>
  );
}
