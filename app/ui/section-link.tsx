import type { ReactNode } from "react";
import { Link } from "react-router";
import { onSectionLinkClick } from "../lib/smooth-scroll.ts";

/** A link to a landing-page section (/#id) that scrolls smoothly when JavaScript runs. */
export function SectionLink({
  id,
  className,
  children,
  onBeforeScroll,
  delay = 0,
}: {
  id: string;
  className?: string;
  children: ReactNode;
  /** Runs first on a plain click, e.g. to close the drawer. */
  onBeforeScroll?: () => void;
  delay?: number;
}) {
  return (
    <Link
      to={`/#${id}`}
      className={className}
      onClick={(event) => {
        onBeforeScroll?.();
        onSectionLinkClick(event, id, delay);
      }}
    >
      {children}
    </Link>
  );
}
