// docs/requirements.md §S1's onboarding journey beside the sign-up and verify cards (app/features/accounts/auth-layout.tsx)
// and the company-details step (app/ui/company-details-form.tsx), which the portal layout shows
// too: shared here, as the features must not import each other both ways (ADR 0030).

/** docs/requirements.md §S1: the onboarding journey. */
export const ONBOARDING_STEPS = [
  { title: "Sign Up", text: "Tell us who you are and the name of your company." },
  { title: "Verify Email & Login", text: "Enter the 6-digit code we email you to confirm your address." },
  { title: "Add Company Details", text: "Your ABN, company size and industry." },
  { title: "Watch Onboarding Video", text: "A short video on rewarding your team, then you're ready to go." },
] as const;

/** docs/requirements.md §S1's four onboarding steps with the current one marked; hidden on small screens. */
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
