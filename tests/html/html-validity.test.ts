// Every page is valid HTML: the Nu HTML Checker (the W3C validator; npm's vnu-jar, run on Java)
// reads the pages the real process serves on the production build, public ones and signed-in
// ones, and any error fails the test. A browser forgives invalid markup in ways of its own, and
// assistive technology reads what the browser made of it, so the markup must be what it says.
//
// The process and the session are a browser's, over HTTP (as tests/security/http.ts drives them):
// a company Owner signs up through the sign-up form, verifies with the code from the dev mailbox
// (which is itself a page here), enters the company details on the onboarding form and stays
// signed in. What the pages show (a team, a draft, paid, scheduled and waiting orders, API keys,
// a webhook, top-ups, an invitation, two-factor sign-in) is made through the forms and the API,
// as a customer would make it. Each page is fetched once, written to a temporary folder, and the
// checker runs ONCE over all of them (Java starts slowly).
//
// Every route of app/routes.ts is either checked here or listed in NOT_PAGES with why.
//
// Needs Java 11 or later on PATH (Debian's default-jre-headless; .ci/run installs it). Without
// it the test fails in CI and is skipped, loudly, elsewhere.
import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import appRoutes from "../../app/routes.ts";
import { chargesFor } from "../../core/money.ts";
import { invoicePathSegment } from "../../modules/invoices/schema.ts";
import { type AppProcess, CARD, ok, startApp, until } from "../support/app-process.ts";
import { Browser, decodeEntities } from "../support/browser.ts";

const isCI = /^(1|true)$/i.test(process.env.CI ?? "");
/** The checker's jar, where the vnu-jar package keeps it (the package's main export is its path). */
const VNU_JAR = String(createRequire(import.meta.url)("vnu-jar"));

/** Java runs (the checker needs 11 or later; an older one fails the check with its own message). */
const java = spawnSync("java", ["-version"]).status === 0;
if (!java && !isCI) {
  console.warn(
    "\n[html] *** `java` is not on PATH: the HTML validity test (tests/html/html-validity.test.ts) is SKIPPED. " +
      "Install Java 11+ (apt-get install -y default-jre-headless) to run it; CI fails without it. ***\n",
  );
}

/**
 * The checker's CSS grammar is older than the CSS our stylesheet (Tailwind 4, app/app.css) is
 * compiled to, and every public page inlines that stylesheet (app/root.tsx). Its complaints about
 * features it does not know yet are about its grammar, not our markup: each is set aside by its
 * exact message, with why. Any other CSS message still fails the test.
 */
const CSS_TOO_NEW_FOR_THE_CHECKER: ReadonlyMap<string, string> = new Map([
  ["CSS: Unrecognized at-rule “@property”", "CSS Properties and Values API: Tailwind registers its variables"],
  ["CSS: Unrecognized at-rule “@starting-style”", "CSS Transitions 2: entry transitions (dialogs)"],
  ["CSS: “transition-behavior”: Property “transition-behavior” doesn't exist.", "CSS Transitions 2"],
  [
    "CSS: “transition-property”: “--tw-gradient-from” is not a “transition-property” value.",
    "custom properties may be transitioned (CSS Transitions: <custom-ident>) once registered with @property",
  ],
  [
    "CSS: “margin-trim”: Property “margin-trim” doesn't exist.",
    "CSS Box Model 4, only inside Tailwind's @supports test for it",
  ],
]);

/** Routes of app/routes.ts that answer no HTML page, and why. */
const NOT_PAGES: Record<string, string> = {
  "features/portal/portal._index.tsx": "redirects to the dashboard",
  "features/site/gift-card.tsx": "redirects to the external voucher site",
  "features/my-team/portal.my-team.template.ts": "a CSV file",
  "features/reward-my-team/portal.reward-my-team.template.ts": "a CSV file",
  "features/audit/portal.settings.audit.export.ts": "a CSV file",
  "features/dashboard/portal.reward-history.csv.ts": "a CSV file",
  "features/invoices/portal.invoices.invoice.pdf.ts": "a PDF file",
  "features/reward-my-team/portal.reward-my-team.search.tsx": "JSON for the search box's fetcher",
  "features/portal/portal.import-progress.ts": "JSON for the upload panes' progress",
  // Layouts render around each of their pages, so they are checked with every one of them.
  "features/portal/portal.tsx": "the signed-in layout, around every portal page",
  "features/settings/portal.settings.tsx": "the settings layout, around every settings page",
};

const PASSWORD = "Valid#Markup-2026-pass";
const OWNER = { firstName: "Vera", lastName: "Markup", email: "vera.owner@example.com", companyName: "Markup Co" };
const SECOND_MANAGER = "max.manager@example.com";
/** The checker's own check: a file it must find an error in. */
const CANARY = "zz-canary.html";
/** The simulated processor's card that asks for an authentication step (server/payments/simulated.ts). */
const AUTHENTICATION_CARD = "4000 0025 0000 3155";

interface Page {
  /** The route module that answers it (as app/routes.ts names it). */
  file: string;
  /** What state of the page it is, for the report. */
  label: string;
  path: string;
  html: string;
}

/** Where a redirect goes, as a path on this site. */
function locationOf(res: Response): string {
  const location = res.headers.get("location");
  if (!location) throw new Error(`expected a redirect, got HTTP ${res.status}`);
  const url = new URL(location, "http://site.invalid");
  return `${url.pathname}${url.search}`;
}

/** Runs the checker once over every file in `dir`; answers its messages. */
function runChecker(dir: string): Promise<VnuMessage[]> {
  return new Promise((resolve, reject) => {
    const child = spawn("java", ["-jar", VNU_JAR, "--errors-only", "--format", "json", "--exit-zero-always", dir], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk;
    });
    child.stderr.on("data", (chunk: Buffer) => {
      out += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      try {
        if (code !== 0) throw new Error(`exit ${code}`);
        resolve((JSON.parse(out) as { messages: VnuMessage[] }).messages);
      } catch (error) {
        reject(new Error(`the HTML checker failed (${(error as Error).message}):\n${out.slice(0, 4000)}`));
      }
    });
  });
}

interface VnuMessage {
  type: string;
  subType?: string;
  url?: string;
  message: string;
  extract?: string;
  lastLine?: number;
  firstColumn?: number;
}

interface ConfigEntry {
  file: string;
  children?: ConfigEntry[];
}

function routeFiles(entries: readonly ConfigEntry[]): string[] {
  return entries.flatMap((e) => [e.file, ...routeFiles(e.children ?? [])]);
}

describe.skipIf(!java && !isCI)("HTML validity of every page (Nu HTML Checker)", () => {
  let app: AppProcess;
  const pages: Page[] = [];

  /** Fetches `path` as `browser` and keeps it for the checker; answers its HTML. */
  async function page(browser: Browser, file: string, label: string, path: string, status = 200): Promise<string> {
    const res = await browser.get(path);
    const html = await res.text();
    expect(res.status, `${label} (GET ${path}): ${html.slice(0, 300)}`).toBe(status);
    expect(res.headers.get("content-type"), `${label} (GET ${path})`).toMatch(/^text\/html/);
    pages.push({ file, label, path, html });
    return html;
  }

  /** Keeps what a form post answered (a page re-rendered with the form's messages). */
  async function answered(res: Response, file: string, label: string, path: string, status: number) {
    const html = await res.text();
    expect(res.status, `${label} (POST ${path}): ${html.slice(0, 300)}`).toBe(status);
    expect(res.headers.get("content-type"), label).toMatch(/^text\/html/);
    pages.push({ file, label, path, html });
  }

  /** The first match of `pattern` in the newest dev-mailbox message to `email` (the mailbox lists newest first). */
  async function mailed(email: string, pattern: RegExp): Promise<string> {
    let found = "";
    await until(
      async () => {
        const html = await (await fetch(`${app.base}/dev/mailbox`)).text();
        const message = html.split("<article").find((part) => part.includes(email) && pattern.test(part));
        found = decodeEntities(pattern.exec(message ?? "")?.[1] ?? "");
        return found !== "";
      },
      20_000,
      `an email to ${email} matching ${pattern}`,
    );
    return found;
  }

  // The time limits here are for a busy 2-core machine: this set-up took 57 s and the check 46 s
  // at a load average above 20 (about 25 s of CPU in all).
  beforeAll(async () => {
    if (!java) throw new Error("CI=true: the HTML validity test needs Java 11+ on PATH (default-jre-headless)");
    // No SMTP_URL: mail goes to the dev mailbox, open to this loopback client.
    app = await startApp({ DATABASE_URL: "memory://" }, { production: true });
    const base = app.base;
    const visitor = new Browser(base);
    const owner = new Browser(base);

    // Public pages, as a first-time visitor sees them.
    await page(visitor, "features/landing/home.tsx", "home", "/");
    await page(visitor, "features/help/help.tsx", "help", "/help");
    await page(visitor, "features/waitlist/not-ready-yet.tsx", "waitlist", "/not-ready-yet");
    await page(
      visitor,
      "features/waitlist/not-ready-yet.tsx",
      "waitlist, privacy dialog",
      "/not-ready-yet?dialog=privacy",
    );
    await page(visitor, "features/policies/policies.terms.tsx", "terms", "/policies/terms-and-conditions");
    await page(visitor, "features/policies/policies.privacy.tsx", "privacy policy", "/policies/privacy-policy");
    await page(visitor, "features/site/error.tsx", "error", "/error");
    await page(visitor, "features/site/not-found.tsx", "not found", "/no-such-page", 404);
    await page(visitor, "features/site/dev.mailbox.tsx", "dev mailbox, empty", "/dev/mailbox");
    await page(visitor, "features/accounts/corporate.login.tsx", "login", "/corporate/login");
    // A callback this browser did not start (no state cookie): the page that says so (ADR 0046).
    await page(
      visitor,
      "features/accounts/corporate.sso.callback.tsx",
      "single sign-on callback, refused",
      "/corporate/sso/callback?code=forged&state=forged",
      400,
    );
    const forgot = await page(
      visitor,
      "features/accounts/corporate.forgot-password-request.tsx",
      "forgot password",
      "/corporate/forgot-password-request",
    );
    await page(
      visitor,
      "features/accounts/corporate.accept-invite.tsx",
      "invitation without a link",
      "/corporate/accept-invite",
      404,
    );
    await page(
      visitor,
      "features/accounts/corporate.sign-up.tsx",
      "sign-up, terms dialog",
      "/corporate/sign-up?dialog=terms",
    );
    const signUpPath = "/corporate/sign-up";
    const signUp = await page(owner, "features/accounts/corporate.sign-up.tsx", "sign-up", signUpPath);

    // Forms answered with their messages.
    await answered(
      await visitor.post(
        "/corporate/login",
        await (await visitor.get("/corporate/login")).text(),
        { field: "userName" },
        {
          userName: "nobody@example.com",
          password: "Wrong#Pass-2026",
        },
      ),
      "features/accounts/corporate.login.tsx",
      "login, wrong password",
      "/corporate/login",
      400,
    );
    await answered(
      await visitor.post(
        signUpPath,
        signUp,
        { field: "firstName" },
        {
          firstName: "",
          email: "not an email",
          password: "short",
        },
      ),
      "features/accounts/corporate.sign-up.tsx",
      "sign-up, invalid fields",
      signUpPath,
      400,
    );

    // The Owner signs up, verifies and enters the company details through the forms.
    const signedUp = await owner.post(
      signUpPath,
      signUp,
      { field: "firstName" },
      {
        ...OWNER,
        password: PASSWORD,
        confirmPassword: PASSWORD,
      },
    );
    expect(signedUp.status, await signedUp.clone().text()).toBe(302);
    const verifyPath = locationOf(signedUp);
    const verify = await page(owner, "features/accounts/corporate.verify.tsx", "verify", verifyPath);
    const code = await mailed(OWNER.email, /Verification code:\s*(\d{6})/);
    const verified = await owner.post(verifyPath, verify, { field: "verificationCode" }, { verificationCode: code });
    expect(verified.status).toBe(302);
    const onboardingPath = "/portal/onboarding-add-company-details";
    // The portal shows the company details step until they are entered (app/features/portal/portal.tsx).
    await page(
      owner,
      "features/dashboard/portal.dashboard.tsx",
      "dashboard, company details step",
      "/portal/dashboard",
    );
    const onboarding = await page(
      owner,
      "features/onboarding/portal.onboarding-add-company-details.tsx",
      "onboarding, company details",
      onboardingPath,
    );
    const onboarded = await owner.post(
      onboardingPath,
      onboarding,
      { field: "ABN" },
      {
        name: OWNER.companyName,
        ABN: "53004085616",
        size: "11-50",
        industry: "Retail",
      },
    );
    expect(onboarded.status, await onboarded.clone().text()).toBe(302);
    await page(owner, "features/dashboard/portal.dashboard.tsx", "dashboard, new company", "/portal/dashboard");
    await page(
      owner,
      "features/reward-my-team/portal.reward-my-team.tsx",
      "reward my team, no draft",
      "/portal/reward-my-team",
    );

    // The data behind the other pages, through the API with the Owner's own login.
    const { accessToken: token } = await ok<{ accessToken: string }>(base, "POST", "/api/Identity/login", {
      userName: OWNER.email,
      password: PASSWORD,
      captchaToken: "",
      isCaptchaV3: true,
    });
    const call = <T = unknown>(method: string, path: string, body?: unknown, expected = 200) =>
      ok<T>(base, method, path, body, token, expected);
    await call("POST", "/api/Identity/onboarding-video-watched", undefined, 204);
    // A webhook first, so the orders below make deliveries for its page.
    const hook = await call<{ id: number }>(
      "POST",
      "/api/Webhooks",
      { url: "https://hooks.example.com/rewards", events: ["order.released", "approval.requested"] },
      201,
    );
    const draft = async (amounts: number[], rewardName: string) => {
      const rewards = amounts.map((value, i) => ({
        firstName: "Member",
        lastName: `Number${i}`,
        email: `member.${i}@example.com`,
        value,
      }));
      await call("POST", "/api/RewardMyTeam/bulk-upload-reward", { rewards });
      await call("PUT", "/api/RewardMyTeam/update-reward-name", { name: rewardName });
      return chargesFor(amounts).totalCents;
    };
    const payment = (totalCents: number) =>
      call<{ paymentIntentId: string; clientSecret: string; orderId: number }>(
        "POST",
        "/api/StripePayment/create-payment-intent",
        { amount: totalCents },
      );
    const pay = (intent: { paymentIntentId: string; clientSecret: string }, card = CARD) =>
      call("POST", "/api/StripePayment/confirm-simulated-payment", {
        paymentIntent: intent.paymentIntentId,
        clientSecret: intent.clientSecret,
        ...card,
      });

    // A draft for three, its review and the recipients' email; then paid and released.
    const firstTotal = await draft([10, 20, 30], "Markup Thanks");
    const team = await call<{ items: { id: number }[] }>("GET", "/api/Users?pageNumber=1&pageSize=10");
    const member = team.items[0]?.id;
    await page(owner, "features/my-team/portal.my-team.tsx", "my team", "/portal/my-team");
    // The dialogs open by address too (app/ui/dialog.tsx UrlDialog), so each is a page of its own without JavaScript.
    await page(owner, "features/my-team/portal.my-team.tsx", "my team, add", "/portal/my-team?dialog=add");
    await page(
      owner,
      "features/my-team/portal.my-team.tsx",
      "my team, edit",
      `/portal/my-team?dialog=edit&member=${member}`,
    );
    await page(
      owner,
      "features/my-team/portal.my-team.tsx",
      "my team, remove",
      `/portal/my-team?dialog=remove&member=${member}`,
    );
    await page(
      owner,
      "features/reward-my-team/portal.reward-my-team.tsx",
      "reward my team, a draft",
      "/portal/reward-my-team",
    );
    await page(
      owner,
      "features/reward-my-team/portal.reward-my-team.tsx",
      "reward my team, add",
      "/portal/reward-my-team?dialog=add",
    );
    await page(
      owner,
      "features/reward-my-team/portal.reward-my-team.tsx",
      "reward my team, remove all",
      "/portal/reward-my-team?dialog=remove-all",
    );
    await page(owner, "features/payment/portal.reward-my-team-review.tsx", "review", "/portal/reward-my-team-review");
    await page(owner, "features/payment/portal.reward-email-sample.tsx", "email sample", "/portal/reward-email-sample");
    const paid = await payment(firstTotal);
    await pay(paid);
    type History = {
      items: { orderId: number; rewardReleaseId: number | null; state: string; invoiceNumber: string }[];
    };
    let history: History = { items: [] };
    await until(
      async () => {
        history = await call<History>("GET", "/api/RewardHistory?pageNumber=1&pageSize=20");
        return history.items.some((i) => i.rewardReleaseId !== null);
      },
      20_000,
      "the paid order released",
    );
    const released = history.items.find((i) => i.rewardReleaseId !== null);
    await page(
      owner,
      "features/payment/portal.payment-confirmation.tsx",
      "payment confirmation",
      `/portal/payment-confirmation?payment_intent=${encodeURIComponent(paid.paymentIntentId)}`,
    );
    await page(
      owner,
      "features/deliveries/portal.rewards.release.tsx",
      "a release",
      `/portal/rewards/${released?.rewardReleaseId}`,
    );
    await page(
      owner,
      "features/invoices/portal.invoices.invoice.tsx",
      "tax invoice",
      `/portal/invoices/${invoicePathSegment(released?.invoiceNumber ?? "")}`,
    );

    // A scheduled order.
    const scheduledTotal = await draft([15, 25], "Markup Later");
    await call("PUT", "/api/RewardMyTeam/update-reward-schedule", {
      sendAt: new Date(Date.now() + 24 * 3600_000).toISOString(),
    });
    await pay(await payment(scheduledTotal));
    history = await call<History>("GET", "/api/RewardHistory?pageNumber=1&pageSize=20");
    const scheduled = history.items.find((i) => i.state === "scheduled");
    expect(scheduled).toBeDefined();
    await page(
      owner,
      "features/scheduled/portal.scheduled.order.tsx",
      "a scheduled order",
      `/portal/scheduled/${scheduled?.orderId}`,
    );

    // A card payment waiting for its authentication step.
    const authTotal = await draft([40], "Markup Authenticated");
    const waiting = await payment(authTotal);
    await pay(waiting, { ...CARD, cardNumber: AUTHENTICATION_CARD });
    await page(
      owner,
      "features/payment/portal.payment-authentication.tsx",
      "payment authentication",
      `/portal/payment-authentication?${new URLSearchParams({
        payment_intent: waiting.paymentIntentId,
        payment_intent_client_secret: waiting.clientSecret,
      })}`,
    );

    // A company API key, a balance topped up by card (one top-up through the authentication
    // step, one left at its card form), and an approval threshold a system's order waits at.
    const key = await call<{ key: string }>("POST", "/api/ApiKeys", { name: "HR system" }, 201);
    const topUp = () => call<{ topUpId: number }>("POST", "/api/Balance/TopUps", { amount: 50_000 }, 201);
    const authenticated = await topUp();
    await call("POST", `/api/Balance/TopUps/${authenticated.topUpId}/pay-simulated`, {
      ...CARD,
      cardNumber: AUTHENTICATION_CARD,
    });
    await page(
      owner,
      "features/settings/portal.settings.balance.top-up.tsx",
      "top-up, authentication step",
      `/portal/settings/balance/top-ups/${authenticated.topUpId}`,
    );
    await call("POST", `/api/Balance/TopUps/${authenticated.topUpId}/authenticate-simulated`, { outcome: "complete" });
    // A reward list paid from that balance (ADR 0043): its review with the balance's button beside the card, and the order's confirmation.
    const balanceTotal = await draft([20], "Markup From Balance");
    await page(
      owner,
      "features/payment/portal.reward-my-team-review.tsx",
      "review, the balance covers it",
      "/portal/reward-my-team-review",
    );
    const fromBalance = await call<{ orderId: number }>("POST", "/api/Balance/pay-order", { amount: balanceTotal });
    await page(
      owner,
      "features/payment/portal.payment-confirmation.tsx",
      "payment confirmation, from the balance",
      `/portal/payment-confirmation?order=${fromBalance.orderId}`,
    );
    const unpaid = await topUp();
    await page(
      owner,
      "features/settings/portal.settings.balance.top-up.tsx",
      "top-up, card form",
      `/portal/settings/balance/top-ups/${unpaid.topUpId}`,
    );
    await call("PUT", "/api/Approvals/threshold", { thresholdDollars: 100 });
    const systemOrder = await fetch(`${base}/api/v1/orders`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${key.key}`,
        "idempotency-key": "html-validity-order-1",
        "content-type": "application/json",
      },
      body: JSON.stringify({
        rewardName: "Markup Big Thanks",
        recipients: [{ email: "big.thanks@example.com", firstName: "Big", lastName: "Thanks", amount: 150 }],
      }),
    });
    expect(systemOrder.status, await systemOrder.clone().text()).toBe(202);
    const { orderId: waitingOrderId } = (await systemOrder.json()) as { orderId: number };
    await page(
      owner,
      "features/approvals/portal.approvals.order.tsx",
      "an order waiting for approval",
      `/portal/approvals/${waitingOrderId}`,
    );
    await call("POST", `/api/Webhooks/${hook.id}/ping`, undefined, 202);

    // An invitation for a second manager.
    await call("POST", "/api/Managers/invites", { email: SECOND_MANAGER, role: "manager" }, 201);
    const inviteToken = await mailed(SECOND_MANAGER, /accept-invite\?token=([^\s"&<]+)/);
    const invitePath = `/corporate/accept-invite?token=${encodeURIComponent(inviteToken)}`;
    const invitee = new Browser(base);
    const invite = await page(
      invitee,
      "features/accounts/corporate.accept-invite.tsx",
      "accept an invitation",
      invitePath,
    );

    // The portal's pages with all of that in them.
    await page(owner, "features/dashboard/portal.dashboard.tsx", "dashboard, with history", "/portal/dashboard");
    await page(owner, "features/help/portal.help.tsx", "portal help", "/portal/help");
    await page(owner, "features/settings/portal.settings._index.tsx", "settings, profile", "/portal/settings");
    await page(owner, "features/settings/portal.settings.company.tsx", "settings, company", "/portal/settings/company");
    await page(
      owner,
      "features/settings/portal.settings.security.tsx",
      "settings, security",
      "/portal/settings/security",
    );
    await page(
      owner,
      "features/settings/portal.settings.managers.tsx",
      "settings, managers",
      "/portal/settings/managers",
    );
    await page(
      owner,
      "features/settings/portal.settings.approvals.tsx",
      "settings, approvals",
      "/portal/settings/approvals",
    );
    await page(owner, "features/automations/portal.automations.tsx", "automations", "/portal/automations");
    await page(
      owner,
      "features/settings/portal.settings.api-keys.tsx",
      "settings, API keys",
      "/portal/settings/api-keys",
    );
    await page(
      owner,
      "features/settings/portal.settings.api-reference.tsx",
      "settings, API reference",
      "/portal/settings/api-keys/reference",
    );
    await page(
      owner,
      "features/settings/portal.settings.webhooks.tsx",
      "settings, webhooks",
      "/portal/settings/webhooks",
    );
    await page(
      owner,
      "features/settings/portal.settings.webhook-deliveries.tsx",
      "settings, a webhook's deliveries",
      `/portal/settings/webhooks/${hook.id}`,
    );
    await page(
      owner,
      "features/settings/portal.settings.single-sign-on.tsx",
      "settings, single sign-on",
      "/portal/settings/single-sign-on",
    );
    await page(owner, "features/audit/portal.settings.audit.tsx", "settings, audit", "/portal/settings/audit");
    await page(owner, "features/settings/portal.settings.balance.tsx", "settings, balance", "/portal/settings/balance");
    await page(owner, "features/accounts/corporate.logout.tsx", "logout", "/corporate/logout");
    await page(
      owner,
      "features/invoices/portal.invoices.invoice.tsx",
      "portal, not found",
      "/portal/invoices/inv-999999",
      404,
    );

    // Two-factor sign-in: the Owner sets it up, then requires it of every manager of the company.
    const setup = await call<{ secret: string }>("POST", "/api/TwoFactor/setup", {});
    // With the current password, which a signed-in set-up may be asked for (ADR 0042).
    await call("POST", "/api/TwoFactor/confirm", {
      code: TOTP.generate({ secret: Secret.fromBase32(setup.secret) }),
      password: PASSWORD,
    });
    await call("PUT", "/api/TwoFactor/company-requirement", { required: true });
    await page(
      owner,
      "features/settings/portal.settings.security.tsx",
      "settings, security, two-factor on",
      "/portal/settings/security",
    );

    // The invited manager accepts, and must set up two-factor sign-in before the first login.
    const accepted = await invitee.post(
      invitePath,
      invite,
      { field: "firstName" },
      {
        firstName: "Max",
        lastName: "Manager",
        password: PASSWORD,
        confirmPassword: PASSWORD,
      },
    );
    expect(accepted.status, await accepted.clone().text()).toBe(302);
    await page(
      invitee,
      "features/accounts/corporate.two-factor-setup.tsx",
      "two-factor set-up at sign-in",
      locationOf(accepted),
    );

    const { managers } = await call<{ managers: { id: number; isYou: boolean }[] }>("GET", "/api/Managers");
    await page(
      owner,
      "features/settings/portal.settings.managers.tsx",
      "settings, managers, remove",
      `/portal/settings/managers?dialog=remove-manager&manager=${managers.find((m) => !m.isYou)?.id}`,
    );

    // The Owner's next login asks for the code.
    const again = new Browser(base);
    const login = await (await again.get("/corporate/login")).text();
    const loggedIn = await again.post(
      "/corporate/login",
      login,
      { field: "userName" },
      {
        userName: OWNER.email,
        password: PASSWORD,
      },
    );
    expect(loggedIn.status, await loggedIn.clone().text()).toBe(302);
    await page(again, "features/accounts/corporate.login-code.tsx", "login code", locationOf(loggedIn));

    // A password reset link, asked for through the form.
    const requested = await visitor.post(
      "/corporate/forgot-password-request",
      forgot,
      { field: "email" },
      {
        email: OWNER.email,
      },
    );
    expect(requested.status).toBe(302);
    await page(
      visitor,
      "features/accounts/corporate.forgot-password-request.tsx",
      "forgot password, sent",
      locationOf(requested),
    );
    const resetToken = await mailed(OWNER.email, /passwordResetToken=([^\s"&<]+)/);
    await page(
      visitor,
      "features/accounts/corporate.forgot-password.tsx",
      "reset password",
      `/corporate/forgot-password?passwordResetToken=${encodeURIComponent(resetToken)}`,
    );
    await page(visitor, "features/site/dev.mailbox.tsx", "dev mailbox, with mail", "/dev/mailbox");
  }, 150_000);

  afterAll(async () => {
    await app?.kill();
  });

  it("checks every route of app/routes.ts that answers a page", () => {
    const checked = new Set(pages.map((p) => p.file));
    const missing = routeFiles(appRoutes as unknown as ConfigEntry[]).filter(
      (f) => !checked.has(f) && !(f in NOT_PAGES),
    );
    expect(missing).toEqual([]);
  });

  it("finds no error in any page", async () => {
    const dir = await mkdtemp(join(tmpdir(), "html-validity-"));
    try {
      const byFile = new Map<string, Page>();
      // Every public page inlines the same stylesheet (app/root.tsx): the checker reads each
      // distinct <style> text once, on the first page that has it, and an empty <style> in its
      // place on the others. The same text gets the same messages; this halves the checker's work.
      const seenStyles = new Set<string>();
      for (const [i, p] of pages.entries()) {
        const html = p.html.replace(/(<style\b[^>]*>)([\s\S]*?)(<\/style>)/g, (whole, open, css: string, close) => {
          if (!seenStyles.has(css)) {
            seenStyles.add(css);
            return whole;
          }
          return `${open}${close}`;
        });
        const name = `${String(i).padStart(2, "0")}-${p.label.replace(/[^a-z0-9]+/gi, "-").toLowerCase()}.html`;
        byFile.set(name, p);
        await writeFile(join(dir, name), html);
      }
      // A page we know to be invalid (remix-utils' trap field): proves the checker read the folder and reports.
      await writeFile(
        join(dir, CANARY),
        '<!doctype html><html lang="en"><title>x</title><input name="a" autocomplete="nope"></html>',
      );
      const messages = await runChecker(dir);
      const errors = messages.filter(
        (m) => m.type === "error" || m.subType === "fatal" || m.type === "non-document-error",
      );
      expect(errors.filter((m) => m.url?.endsWith(CANARY)).map((m) => m.message)).toEqual([
        expect.stringContaining("Bad value “nope” for attribute “autocomplete”"),
      ]);
      const report = errors
        .filter((m) => !m.url?.endsWith(CANARY) && !CSS_TOO_NEW_FOR_THE_CHECKER.has(m.message))
        .map((m) => {
          const p = byFile.get(decodeURIComponent(m.url?.split("/").pop() ?? ""));
          const where = p ? `${p.label} (${p.path})` : m.url;
          return `${where} line ${m.lastLine}: ${m.message}${m.extract ? ` [${m.extract.trim()}]` : ""}`;
        });
      expect(report).toEqual([]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
