// The portal footer (docs/requirements.md §S2 Portal): the licence line, with the policies and Help a signed-in
// user may need.
import { href, Link } from "react-router";
import { PolicyLinks } from "../../ui/policy-links.tsx";

const linkClass =
  "inline-flex min-h-11 items-center rounded-md px-2 text-brand-100 underline-offset-4 hover:text-white hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-white";

export function PortalFooter() {
  return (
    <footer className="mt-auto bg-brand-900 text-sm text-brand-100 print:hidden">
      <div className="mx-auto flex max-w-7xl flex-col gap-2 px-4 py-6 md:flex-row md:items-center md:justify-between md:px-6">
        <div className="space-y-1">
          <p>Reward Portal is licensed exclusively to a marketing company.</p>
          <p>© 2024 Reward Portal. All rights reserved.</p>
        </div>
        <nav aria-label="Footer">
          <ul className="-mx-2 flex flex-wrap">
            <PolicyLinks linkClass={linkClass} />
            <li>
              <Link to={href("/portal/help")} className={linkClass}>
                Help
              </Link>
            </li>
          </ul>
        </nav>
      </div>
    </footer>
  );
}
