import type { ReactNode } from "react";

/**
 * A landing-page section that anchor links can target. tabindex=-1 lets the smooth scroll move
 * focus to it; the scroll margin gives the no-JavaScript /#id jump the desktop's 40 px offset.
 */
export function LandingSection({
  id,
  className = "",
  children,
}: {
  id: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <section
      id={id}
      aria-labelledby={`${id}-title`}
      tabIndex={-1}
      className={`scroll-mt-0 py-16 outline-none md:scroll-mt-10 md:py-24 ${className}`}
    >
      <div className="mx-auto max-w-7xl px-4 md:px-6">{children}</div>
    </section>
  );
}

export function SectionHeading({
  id,
  eyebrow,
  title,
  intro,
  tone = "light",
}: {
  id: string;
  eyebrow?: string;
  title: string;
  intro?: ReactNode;
  tone?: "light" | "dark";
}) {
  const dark = tone === "dark";
  return (
    <div className="mx-auto max-w-3xl text-center">
      {eyebrow ? (
        <p className={`text-sm font-semibold uppercase tracking-widest ${dark ? "text-accent-400" : "text-brand-700"}`}>
          {eyebrow}
        </p>
      ) : null}
      <h2
        id={id}
        className={`mt-2 text-3xl font-bold tracking-tight md:text-4xl ${dark ? "text-white" : "text-brand-900"}`}
      >
        {title}
      </h2>
      {intro ? <p className={`mt-4 text-lg ${dark ? "text-brand-100" : "text-slate-600"}`}>{intro}</p> : null}
    </div>
  );
}
