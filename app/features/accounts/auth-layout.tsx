// The frame of the public account pages: the public header and footer, the page banner (its
// title is the h1), then the form's card. The onboarding pages (sign-up, verify) put the four
// steps of SPEC §1 in a left column, hidden on small screens (SPEC §2).
import type { ReactNode } from "react";
import { Banner } from "../../ui/banner.tsx";
import { PublicLayout } from "../site/public-layout.tsx";

/** SPEC §1: the onboarding journey. */
export const ONBOARDING_STEPS = [
  { title: "Sign Up", text: "Tell us who you are and the name of your company." },
  { title: "Verify Email & Login", text: "Enter the 6-digit code we email you to confirm your address." },
  { title: "Add Company Details", text: "Your ABN, company size and industry." },
  { title: "Watch Onboarding Video", text: "A short video on rewarding your team, then you're ready to go." },
] as const;

/** SPEC §1's four onboarding steps with the current one marked; hidden on small screens. */
export function OnboardingSteps({ current }: { current: 1 | 2 | 3 | 4 }) {
  return (
    <aside aria-labelledby="steps-heading" className="hidden md:block">
      <h2 id="steps-heading" className="text-2xl font-bold text-brand-800">
        Get started in 4 easy steps
      </h2>
      <ol className="mt-6 space-y-6">
        {ONBOARDING_STEPS.map((step, index) => {
          const number = index + 1;
          const done = number < current;
          const active = number === current;
          return (
            <li key={step.title} className="flex gap-4" aria-current={active ? "step" : undefined}>
              <span
                aria-hidden="true"
                className={`flex size-10 shrink-0 items-center justify-center rounded-full text-lg font-bold ${
                  active
                    ? "bg-brand-700 text-white"
                    : done
                      ? "bg-emerald-700 text-white"
                      : "border-2 border-brand-700 text-brand-800"
                }`}
              >
                {done ? "✓" : number}
              </span>
              <div>
                <p className={`font-semibold ${active ? "text-brand-800" : "text-slate-900"}`}>
                  Step {number}: {step.title}
                  {done ? <span className="sr-only"> (done)</span> : null}
                </p>
                <p className="mt-1 text-sm text-slate-700">{step.text}</p>
              </div>
            </li>
          );
        })}
      </ol>
    </aside>
  );
}

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
