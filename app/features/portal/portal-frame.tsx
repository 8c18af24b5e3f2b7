// The frame every signed-in page shares: the skip link, the header (given), <main> and the footer.
// One module for the portal layout (./portal.tsx) and the benchmark's framework floor
// (app/features/bench/bench-floor.tsx), so the floor measures the same markup the portal sends.
import type { ReactNode } from "react";
import { type UIMatch, useMatches } from "react-router";
import { PortalFooter } from "./portal-footer.tsx";
import type { PortalHandle } from "./portal-pages.ts";

/** The innermost matched route's `handle.title` (PortalHandle), else "Portal". */
export function usePortalPageTitle(): string {
  const matches = useMatches() as UIMatch<unknown, unknown>[];
  for (let i = matches.length - 1; i >= 0; i--) {
    const handle = matches[i]?.handle as Partial<PortalHandle> | undefined;
    if (typeof handle?.title === "string") return handle.title;
  }
  return "Portal";
}

export function PortalFrame({ header, children }: { header: ReactNode; children: ReactNode }) {
  return (
    <div className="flex min-h-screen flex-col bg-slate-50">
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:fixed focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-4 focus:py-2 focus:text-brand-800"
      >
        Skip to content
      </a>
      {header}
      <main id="main" tabIndex={-1} className="flex-1 outline-none">
        {children}
      </main>
      <PortalFooter />
    </div>
  );
}
