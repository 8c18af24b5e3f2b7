import type { ReactNode } from "react";
import { href, Link } from "react-router";
import { PolicyLinks } from "../../ui/policy-links.tsx";
import { SectionLink } from "../../ui/section-link.tsx";

const linkClass =
  "inline-flex min-h-11 items-center rounded text-brand-100 hover:text-white hover:underline hover:underline-offset-4 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white";

/** The public footer (docs/requirements.md §S2): Explore, Policies and Resources columns, About Us, licence line, copyright. */
export function SiteFooter() {
  return (
    <footer id="footer" className="bg-brand-900 text-white">
      <div className="mx-auto grid max-w-7xl gap-10 px-4 py-14 md:grid-cols-[1.5fr_3fr] md:px-6">
        <div>
          <p className="text-xl font-bold">Reward Portal</p>
          <p className="mt-3 max-w-sm text-brand-100">
            Reward your people with digital gift cards from over 100 of the best Australian retailers.
          </p>
          <p className="mt-2">
            <SectionLink id="WhyChoose" className={linkClass}>
              About Us
            </SectionLink>
          </p>
        </div>
        <nav aria-label="Footer" className="grid grid-cols-2 gap-8 sm:grid-cols-3">
          <FooterColumn title="Explore">
            <li>
              <Link to="/" className={linkClass}>
                Home
              </Link>
            </li>
            <li>
              <SectionLink id="howItWorks" className={linkClass}>
                How it Works
              </SectionLink>
            </li>
            <li>
              <SectionLink id="glanceCatalogue" className={linkClass}>
                View Rewards
              </SectionLink>
            </li>
          </FooterColumn>
          <FooterColumn title="Policies">
            <PolicyLinks linkClass={linkClass} />
          </FooterColumn>
          <FooterColumn title="Resources">
            <li>
              <Link to={href("/help")} className={linkClass}>
                Help Centre
              </Link>
            </li>
          </FooterColumn>
        </nav>
      </div>
      <div className="border-t border-white/15">
        <div className="mx-auto flex max-w-7xl flex-col gap-2 px-4 py-6 text-sm text-brand-100 md:flex-row md:justify-between md:px-6">
          <p>Reward Portal is licensed exclusively to a marketing company.</p>
          <p>© 2024 Reward Portal. All rights reserved.</p>
        </div>
      </div>
    </footer>
  );
}

function FooterColumn({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div>
      <h2 className="text-sm font-semibold uppercase tracking-widest text-accent-400">{title}</h2>
      <ul className="mt-3 space-y-1">{children}</ul>
    </div>
  );
}
