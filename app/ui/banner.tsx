import type { ReactNode } from "react";

/** A page banner: its title is the page's h1 (docs/requirements.md §D8). 250 px high on phones, 380 px otherwise. */
export function Banner({ title, subtitle, eyebrow }: { title: string; subtitle?: ReactNode; eyebrow?: string }) {
  return (
    <section className="flex h-[250px] items-center justify-center bg-gradient-to-br from-brand-900 via-brand-800 to-brand-700 px-4 pt-16 text-center text-white md:h-[380px]">
      <div className="max-w-3xl">
        {eyebrow ? <p className="text-sm font-semibold uppercase tracking-widest text-accent-400">{eyebrow}</p> : null}
        <h1 className="mt-1 text-3xl font-bold md:text-5xl">{title}</h1>
        {subtitle ? <p className="mt-3 text-base text-brand-100 md:text-lg">{subtitle}</p> : null}
      </div>
    </section>
  );
}
