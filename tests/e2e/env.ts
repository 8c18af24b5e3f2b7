// Values shared by playwright.config.ts (the server's environment) and the specs.

/** The external URLs the pages link to: set on the test server so the specs prove they come from configuration. */
export const E2E_URLS = {
  catalogue: "https://catalogue.example.test/",
  voucher: "https://vouchers.example.test/",
  companyProfile: "https://www.linkedin.com/company/rewards-e2e",
} as const;

/** Debian's Chromium in a container: no sandbox, no GPU, nothing phoning home. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Every public page a visitor can land on (the 404 page included). */
export const PUBLIC_PAGES = [
  "/",
  "/help",
  "/not-ready-yet",
  "/policies/terms-and-conditions",
  "/policies/privacy-policy",
  "/error",
  "/no-such-page",
] as const;

/** docs/requirements.md §S2: the retailer carousel's entries. */
export const BRANDS = [
  "Apple",
  "Bunnings",
  "Flight-Centre",
  "BWS",
  "JB-HIFI",
  "Myer",
  "Woolworths",
  "LuluLemon",
  "Boohoo",
] as const;

/** The header's links (desktop bar and phone drawer alike). */
export const NAV_LINKS = ["How it Works", "View Rewards", "Help", "Sign Up", "Login"] as const;
