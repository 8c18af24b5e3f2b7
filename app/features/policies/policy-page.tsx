// The frame of the two policy pages (policies.privacy.tsx, policies.terms.tsx): the public layout,
// the banner and the policy's text as one article named by its title.
import type { ReactNode } from "react";
import { Banner } from "../../ui/banner.tsx";
import { PublicLayout } from "../site/public-layout.tsx";

export function PolicyPage({ title, children }: { title: string; children: ReactNode }) {
  return (
    <PublicLayout>
      <Banner eyebrow="Policies" title={title} />
      <article aria-label={title} className="mx-auto max-w-3xl px-4 py-12 md:px-6 md:py-16">
        {children}
      </article>
    </PublicLayout>
  );
}
