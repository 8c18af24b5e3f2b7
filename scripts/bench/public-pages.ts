// Every page an anonymous visitor can open (app/routes.ts), for the Lighthouse run and the HTTP
// load. The verify and reset pages need their query strings, or their loaders redirect to /error.

/** What the emailed links of the account pages carry. */
export interface AccountLinks {
  /** The verify page's: the userId and requestToken Register answered. */
  userId: string;
  requestToken: string;
  /** The reset page's: the token in the reset email's link. */
  passwordResetToken: string;
}

/** Well-formed stand-ins where no manager was signed up: the loaders check the form only. */
export const SAMPLE_LINKS: AccountLinks = {
  userId: "00000000-0000-4000-8000-000000000000",
  requestToken: "sample-request-token",
  passwordResetToken: "sample-reset-token",
};

interface PublicPage {
  label: string;
  path: string;
  query?: (links: AccountLinks) => Record<string, string>;
  /**
   * The page asks search engines not to index it (meta robots noindex): an emailed link that
   * carries a one-time secret. Lighthouse's "Page isn't blocked from indexing" audit then fails by
   * design, and the SEO target counts every other SEO audit.
   */
  noindex?: true;
}

export const PUBLIC_PAGES = {
  landing: { label: "Landing page", path: "/" },
  help: { label: "Help", path: "/help" },
  "not-ready-yet": { label: "Not ready yet (waitlist)", path: "/not-ready-yet" },
  "privacy-policy": { label: "Privacy policy", path: "/policies/privacy-policy" },
  terms: { label: "Terms and conditions", path: "/policies/terms-and-conditions" },
  "sign-up": { label: "Sign up", path: "/corporate/sign-up" },
  login: { label: "Log in", path: "/corporate/login" },
  "forgot-password": { label: "Forgot password (request)", path: "/corporate/forgot-password-request" },
  verify: {
    label: "Verify (sign-up code)",
    path: "/corporate/verify",
    query: (l) => ({ userId: l.userId, requestToken: l.requestToken }),
    noindex: true,
  },
  "reset-password": {
    label: "Reset password",
    path: "/corporate/forgot-password",
    query: (l) => ({ passwordResetToken: l.passwordResetToken }),
    noindex: true,
  },
} satisfies Record<string, PublicPage>;

export type PublicPageId = keyof typeof PUBLIC_PAGES;
export const PUBLIC_PAGE_IDS = Object.keys(PUBLIC_PAGES) as PublicPageId[];

/** The page's address with `links` in its query string. */
export function publicPageUrl(id: PublicPageId, links: AccountLinks = SAMPLE_LINKS): string {
  const page: PublicPage = PUBLIC_PAGES[id];
  return page.query ? `${page.path}?${new URLSearchParams(page.query(links))}` : page.path;
}

/** The address as a report shows it: the query's values elided (they change every run). */
export function publicPageShown(id: PublicPageId): string {
  const page: PublicPage = PUBLIC_PAGES[id];
  if (!page.query) return page.path;
  return `${page.path}?${Object.keys(page.query(SAMPLE_LINKS))
    .map((k) => `${k}=…`)
    .join("&")}`;
}

/** True for the address (as `publicPageUrl` wrote it) of a page that asks not to be indexed. */
export function isNoindexPage(url: string): boolean {
  const path = url.split("?")[0];
  return Object.values(PUBLIC_PAGES).some((page: PublicPage) => page.noindex && page.path === path);
}
