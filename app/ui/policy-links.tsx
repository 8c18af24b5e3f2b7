// The two policy pages' links as list items, for the public footer and the portal's
// (docs/requirements.md §S2): each footer gives its own link style.
import { href, Link } from "react-router";

export function PolicyLinks({ linkClass }: { linkClass: string }) {
  return (
    <>
      <li>
        <Link to={href("/policies/terms-and-conditions")} className={linkClass}>
          Terms and Conditions
        </Link>
      </li>
      <li>
        <Link to={href("/policies/privacy-policy")} className={linkClass}>
          Privacy Policy
        </Link>
      </li>
    </>
  );
}
