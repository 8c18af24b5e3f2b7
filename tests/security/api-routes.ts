// The classification of every /api route for the security suite (authorization matrix, fuzzing):
// public, bearer-protected, the catalogue partner's (its own key), a company API key's (/api/v1)
// or webhook, with a valid request for each (the owner's, company A's).
// A route of the API app missing here fails api-authorization.test.ts.
import { Secret, TOTP } from "otpauth";
import { call, PASSWORD } from "../../modules/identity/accounts.testkit.ts";
import { type Api, TEAM_CSV, type World } from "./fixtures.ts";

export type Req = { path: string; body?: unknown; status?: number; headers?: Record<string, string> };
export type Entry =
  | {
      kind: "public";
      /** A well-formed body (for the fuzzer to mutate); none for GET. */
      body?: (w: World) => unknown;
    }
  | { kind: "webhook" }
  | {
      /** The catalogue partner's call: the partner's key (fixtures' PARTNER_KEY), never a manager's token. */
      kind: "partner";
      body: (w: World) => unknown;
    }
  | {
      /** A company API key's call (/api/v1, ADR 0028): A's key (fixtures' aApiKey), never a manager's token. */
      kind: "apiKey";
      /** "ids": the call names A's rows (B's key must get 404); "self": it reads the key's own company only. */
      scope: "ids" | "self";
      request: (w: World) => Req | Promise<Req>;
      /** A "self" call's answer to B's key, when not 200 (B's own company, e.g. B's empty balance). */
      bStatus?: number;
    }
  | {
      kind: "bearer";
      /** "ids": the call names A's rows (B must get 404); "self": it acts on the caller's own company only. */
      scope: "ids" | "self";
      owner: (w: World) => Req | Promise<Req>;
      /** Owner calls run in this order (destructive ones last). */
      order?: number;
      /**
       * Only an Owner may call it (ADR 0022 §1–2, `requireOwner`): A's Manager gets 403 and not
       * one row changes. Without it, A's Manager may make the call as A's Owner does.
       */
      ownerOnly?: true;
    };

/** A fresh checked team CSV import of A's (a staged job expires, and the tests move the clock). */
async function stagedImport(w: World): Promise<string> {
  const res = await call(w.api, "POST", "/api/Imports?kind=team&fileName=team.csv", TEAM_CSV, w.a.accessToken);
  if (res.status !== 201) throw new Error(`staging A's import: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

let ssoDomains = 0;

/** A fresh pending invitation of A's, by A's owner (to withdraw). */
async function pendingInvite(w: World): Promise<number> {
  const body = { email: `pending.${w.a.userId}@example.com`, role: "manager" };
  const res = await call(w.api, "POST", "/api/Managers/invites", body, w.a.accessToken);
  if (res.status !== 201) throw new Error(`inviting for A: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: number }).id;
}

/** A fresh pending top-up of A's prepaid balance (ADR 0043), by A's Owner. */
async function topUpOfA(w: World): Promise<number> {
  const res = await call(w.api, "POST", "/api/Balance/TopUps", { amount: 5000 }, w.a.accessToken);
  return (await jsonOf<{ topUpId: number }>(res, "A's top-up")).topUpId;
}

/** A birthday automation of A's (ADR 0035), made by A's Owner. */
async function automationOfA(w: World): Promise<number> {
  const res = await call(w.api, "POST", "/api/Automations/create-automation", AUTOMATION, w.a.accessToken);
  return (await jsonOf<{ automationId: number }>(res, "A's automation")).automationId;
}

const AUTOMATION = { occasion: "birthday", amount: 50, rewardName: "Happy Birthday", message: "", enabled: false };

/** Starts (or resumes) A's two-factor set-up and answers the code A's app would show now. */
async function totpCodeOfA(w: World): Promise<string> {
  const res = await call(w.api, "POST", "/api/TwoFactor/setup", {}, w.a.accessToken);
  if (res.status !== 200) throw new Error(`starting A's two-factor set-up: ${res.status} ${await res.text()}`);
  const { secret } = (await res.json()) as { secret: string };
  return TOTP.generate({ secret: Secret.fromBase32(secret), timestamp: w.clock.now().getTime() });
}

// ─── Approvals (modules/approvals/api.server.ts): A's Manager asks, A's Owner decides ───

let approvalLines = 0;

async function jsonOf<T>(res: Response, what: string): Promise<T> {
  const text = await res.text();
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/**
 * A live approval request of A's Manager (threshold $0 at A: every Manager order needs one):
 * the current one, or a new one for a draft with one more recipient.
 */
async function requestedApprovalOfA(w: World): Promise<number> {
  const m = w.aManager.accessToken;
  type Mine = { order: { orderId: number; state: string; draftChanged: boolean } | null };
  const mine = await jsonOf<Mine>(await call(w.api, "GET", "/api/Approvals/my-draft", undefined, m), "my-draft");
  if (mine.order?.state === "requested" && !mine.order.draftChanged) return mine.order.orderId;
  await jsonOf(
    await call(w.api, "PUT", "/api/Approvals/threshold", { thresholdDollars: 0 }, w.a.accessToken),
    "A's threshold",
  );
  approvalLines++;
  const line = {
    firstName: "Ava",
    lastName: "Approval",
    email: `ava.${approvalLines}.${w.a.userId}@example.com`,
    value: 50,
  };
  await jsonOf(await call(w.api, "POST", "/api/RewardMyTeam/create-reward-user", line, m), "A's Manager's draft");
  const summary = await jsonOf<{ total: number }>(
    await call(w.api, "GET", "/api/RewardMyTeam/get-reward-summary", undefined, m),
    "A's Manager's summary",
  );
  const body = { amount: Math.round(summary.total * 100), rewardName: "Manager Thanks" };
  const asked = await jsonOf<{ orderId: number }>(
    await call(w.api, "POST", "/api/Approvals/request", body, m),
    "request",
  );
  return asked.orderId;
}

/** An approved, unpaid order of A's Manager. */
async function approvedApprovalOfA(w: World): Promise<number> {
  type Mine = { order: { orderId: number; state: string; draftChanged: boolean } | null };
  const mine = await jsonOf<Mine>(
    await call(w.api, "GET", "/api/Approvals/my-draft", undefined, w.aManager.accessToken),
    "my-draft",
  );
  if (mine.order?.state === "approved" && !mine.order.draftChanged) return mine.order.orderId;
  const orderId = await requestedApprovalOfA(w);
  await jsonOf(await call(w.api, "POST", `/api/Approvals/${orderId}/approve`, undefined, w.a.accessToken), "approve");
  return orderId;
}

/** A's paid release and one of its recipients. */
async function paidReleaseOfA(w: World): Promise<{ releaseId: number; userId: number }> {
  type Item = { rewardReleaseId: number };
  const history = await jsonOf<Item[]>(
    await call(w.api, "GET", "/api/RewardHistory/get-reward-history", undefined, w.a.accessToken),
    "A's history",
  );
  const releaseId = history.at(-1)?.rewardReleaseId;
  const userId = w.paidMembers[0];
  if (!releaseId || !userId) throw new Error("A has no paid release");
  return { releaseId, userId };
}

/** The tax invoice number of A's paid order (the first entry of A's reward history). */
async function paidInvoiceOfA(w: World): Promise<string> {
  type Item = { invoiceNumber: string | null };
  const history = await jsonOf<Item[]>(
    await call(w.api, "GET", "/api/RewardHistory/get-reward-history", undefined, w.a.accessToken),
    "A's history",
  );
  const invoiceNumber = history.find((item) => item.invoiceNumber)?.invoiceNumber;
  if (!invoiceNumber) throw new Error("A has no paid order with an invoice");
  return invoiceNumber;
}

/** A fresh key of A's (to revoke: the fixtures' own key stays valid for the /api/v1 checks). */
async function spareKeyOfA(w: World): Promise<number> {
  const body = { name: "Spare key" };
  return (await jsonOf<{ id: number }>(await call(w.api, "POST", "/api/ApiKeys", body, w.a.accessToken), "A's key")).id;
}

/** Deletes A's webhook endpoints once there are a few, so a new one fits under the company's limit of 10. */
async function roomForWebhookOfA(w: World): Promise<void> {
  const list = await call(w.api, "GET", "/api/Webhooks", undefined, w.a.accessToken);
  const endpoints = await jsonOf<{ id: number }[]>(list, "A's webhooks");
  if (endpoints.length < 5) return;
  for (const e of endpoints) await call(w.api, "DELETE", `/api/Webhooks/${e.id}`, undefined, w.a.accessToken);
}

/** A fresh webhook endpoint of A's with one delivery (a test ping), by A's Owner (ADR 0045). */
async function webhookOfA(w: World): Promise<{ endpointId: number; deliveryId: number }> {
  await roomForWebhookOfA(w);
  const body = { url: "http://127.0.0.1:9/hook", events: ["order.released"] };
  const created = await jsonOf<{ id: number }>(
    await call(w.api, "POST", "/api/Webhooks", body, w.a.accessToken),
    "A's webhook",
  );
  const ping = await call(w.api, "POST", `/api/Webhooks/${created.id}/ping`, undefined, w.a.accessToken);
  return { endpointId: created.id, deliveryId: (await jsonOf<{ deliveryId: number }>(ping, "A's ping")).deliveryId };
}

const member = (w: World) => ({ firstName: "Zed", lastName: "Newman", email: `zed.${w.a.userId}@example.com` });

export const API_ROUTES: Record<string, Entry> = {
  "GET /api/Catalogue/latest-reward": { kind: "public" },
  "POST /api/Register": {
    kind: "public",
    body: () => ({
      firstName: "Fuzz",
      lastName: "Tester",
      email: "fuzz.register@example.com",
      companyName: "Fuzz Pty Ltd",
      password: "Fuzzing#2024",
      captchaToken: "captcha-token",
      isCaptchaV3: true,
    }),
  },
  "POST /api/WaitList": {
    kind: "public",
    body: () => ({
      firstName: "Fuzz",
      lastName: "Tester",
      email: "fuzz.waitlist@example.com",
      companyName: "Fuzz Pty Ltd",
      isOptedIn: true,
      captchaToken: "captcha-token",
      isCaptchaV3: true,
    }),
  },
  "POST /api/Help/create-help-anonymous": {
    kind: "public",
    body: () => ({
      firstName: "Fuzz",
      lastName: "Tester",
      email: "fuzz.help@example.com",
      message: "Hello",
      captchaToken: "captcha-token",
      isCaptchaV3: true,
    }),
  },
  "POST /api/Identity/sso/start": { kind: "public", body: (w) => ({ email: w.a.email }) },
  // A callback nobody started: refused (400) and nothing changes (modules/single-sign-on/single-sign-on.test.ts).
  "POST /api/Identity/sso/callback": {
    kind: "public",
    body: () => ({ query: "?code=forged-code&state=forged-state", state: "forged-state" }),
  },
  // A provider's back-channel logout; the real one posts a form, so any JSON body is a 400.
  "POST /api/Identity/sso/backchannel-logout": { kind: "public", body: () => ({ logout_token: "forged.token.value" }) },
  "POST /api/Identity/login": {
    kind: "public",
    body: (w) => ({
      userName: w.a.email,
      password: "Wrong#Password1",
      captchaToken: "captcha-token",
      isCaptchaV3: true,
    }),
  },
  "POST /api/Identity/VerifyEmail": {
    kind: "public",
    body: (w) => ({ userId: w.a.publicId, requestToken: "0123456789abcdef", verificationCode: "000000" }),
  },
  "POST /api/Identity/VerifyEmailRequest": { kind: "public", body: (w) => ({ userId: w.a.publicId }) },
  "POST /api/Identity/ResendVerifyEmailRequest": { kind: "public", body: (w) => ({ userId: w.a.publicId }) },
  "POST /api/Identity/ResetPasswordRequest": { kind: "public", body: () => ({ email: "nobody@example.com" }) },
  "POST /api/Identity/ResetPassword": {
    kind: "public",
    body: () => ({ passwordResetToken: "0123456789abcdef0123456789abcdef", password: "Another$2025" }),
  },
  "POST /api/Identity/login-code": {
    kind: "public",
    body: () => ({ challengeToken: "0123456789abcdef0123456789abcdef", code: "123456" }),
  },
  "POST /api/StripePayment/webhook": { kind: "webhook" },
  "POST /api/Redemptions": {
    kind: "partner",
    body: (w) => ({ accessCode: w.paidAccessCode, amountCents: 100, idempotencyKey: `fuzz-${Date.now()}` }),
  },
  "POST /api/ManagerInvites/preview": { kind: "public", body: () => ({ token: "0123456789abcdef0123456789abcdef" }) },
  "POST /api/ManagerInvites/accept": {
    kind: "public",
    body: () => ({
      token: "0123456789abcdef0123456789abcdef",
      firstName: "Fuzz",
      lastName: "Tester",
      password: "Fuzzing#2024",
      confirmPassword: "Fuzzing#2024",
    }),
  },

  "GET /api/Users/MyDetails": { kind: "bearer", scope: "self", owner: () => ({ path: "Users/MyDetails" }) },
  "GET /api/Users": { kind: "bearer", scope: "self", owner: () => ({ path: "Users?pageNumber=1&pageSize=8" }) },
  "GET /api/Identity/app-settings": { kind: "bearer", scope: "self", owner: () => ({ path: "Identity/app-settings" }) },
  "GET /api/Audit": { kind: "bearer", scope: "self", ownerOnly: true, owner: () => ({ path: "Audit?kind=team" }) },
  "GET /api/Audit/export": { kind: "bearer", scope: "self", ownerOnly: true, owner: () => ({ path: "Audit/export" }) },
  "GET /api/RewardHistory/get-reward-history": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "RewardHistory/get-reward-history" }),
  },
  "GET /api/RewardHistory": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "RewardHistory?pageNumber=1" }),
  },
  "GET /api/RewardHistory/export": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "RewardHistory/export" }),
  },
  "GET /api/Dashboard": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "Dashboard?pageNumber=1" }),
  },
  "GET /api/RewardReleases/:releaseId": {
    kind: "bearer",
    scope: "ids",
    owner: async (w) => ({ path: `RewardReleases/${(await paidReleaseOfA(w)).releaseId}` }),
  },
  "POST /api/RewardReleases/:releaseId/recipients/:userId/resend": {
    kind: "bearer",
    scope: "ids",
    owner: async (w) => {
      const { releaseId, userId } = await paidReleaseOfA(w);
      return { path: `RewardReleases/${releaseId}/recipients/${userId}/resend`, status: 204 };
    },
  },
  "GET /api/RewardOrders/:orderId": {
    kind: "bearer",
    scope: "ids",
    owner: (w) => ({ path: `RewardOrders/${w.scheduledOrder}` }),
  },
  "PUT /api/RewardOrders/:orderId/schedule": {
    kind: "bearer",
    scope: "ids",
    owner: (w) => ({
      path: `RewardOrders/${w.scheduledOrder}/schedule`,
      body: { sendAt: new Date(w.clock.now().getTime() + 3 * 24 * 60 * 60_000).toISOString() },
    }),
  },
  "POST /api/RewardOrders/:orderId/cancel": {
    kind: "bearer",
    scope: "ids",
    // After the calls that need it scheduled (a cancelled order is not), before the sign-outs.
    order: 6,
    owner: (w) => ({ path: `RewardOrders/${w.scheduledOrder}/cancel` }),
  },
  "GET /api/Invoices/:invoiceNumber": {
    kind: "bearer",
    scope: "ids",
    owner: async (w) => ({ path: `Invoices/${await paidInvoiceOfA(w)}` }),
  },
  "GET /api/Invoices/:invoiceNumber/pdf": {
    kind: "bearer",
    scope: "ids",
    owner: async (w) => ({ path: `Invoices/${await paidInvoiceOfA(w)}/pdf` }),
  },
  "GET /api/RewardMyTeam/get-reward": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "RewardMyTeam/get-reward" }),
  },
  "GET /api/RewardMyTeam/get-reward-page": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "RewardMyTeam/get-reward-page?pageNumber=1&pageSize=7" }),
  },
  "GET /api/RewardMyTeam/get-reward-summary": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "RewardMyTeam/get-reward-summary" }),
  },
  "GET /api/RewardMyTeam/email-sample": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "RewardMyTeam/email-sample" }),
  },
  "GET /api/Companies": { kind: "bearer", scope: "self", owner: () => ({ path: "Companies" }) },
  "PUT /api/Companies": {
    kind: "bearer",
    scope: "self",
    ownerOnly: true,
    owner: () => ({
      path: "Companies",
      body: { name: "Alpha Two Pty Ltd", ABN: "53004085616", size: "11-50", industry: "Retail" },
    }),
  },
  "POST /api/Help/create-help": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "Help/create-help", body: { message: "Hello there" } }),
  },
  "POST /api/Identity/onboarding-video-watched": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "Identity/onboarding-video-watched", status: 204 }),
  },
  "POST /api/Users/create-user": {
    kind: "bearer",
    scope: "self",
    owner: (w) => ({ path: "Users/create-user", body: member(w) }),
  },
  "POST /api/Users/create-user-bulk-upload": {
    kind: "bearer",
    scope: "self",
    owner: (w) => ({
      path: "Users/create-user-bulk-upload",
      body: { users: [{ ...member(w), email: `bulk.${w.a.userId}@example.com` }] },
    }),
  },
  "PUT /api/Users/:id": {
    kind: "bearer",
    scope: "ids",
    owner: (w) => ({
      path: `Users/${w.paidMembers[0]}`,
      body: { firstName: "Renamed", lastName: "Person", email: `renamed.${w.a.userId}@example.com` },
      status: 204,
    }),
  },
  "POST /api/Imports": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "Imports?kind=team&fileName=more.csv", body: TEAM_CSV, status: 201 }),
  },
  "GET /api/Imports/:id": {
    kind: "bearer",
    scope: "ids",
    owner: async (w) => ({ path: `Imports/${await stagedImport(w)}` }),
  },
  "POST /api/Imports/:id/start": {
    kind: "bearer",
    scope: "ids",
    owner: async (w) => ({ path: `Imports/${await stagedImport(w)}/start` }),
  },
  "DELETE /api/Imports/:id": {
    kind: "bearer",
    scope: "ids",
    owner: async (w) => ({ path: `Imports/${await stagedImport(w)}`, status: 204 }),
  },
  "DELETE /api/Users/:id": {
    kind: "bearer",
    scope: "ids",
    owner: (w) => ({ path: `Users/${w.paidMembers[1]}`, status: 204 }),
    order: 5,
  },
  "POST /api/RewardMyTeam/create-reward-search": {
    kind: "bearer",
    scope: "ids",
    owner: (w) => ({ path: "RewardMyTeam/create-reward-search", body: { userId: w.paidMembers[0] } }),
  },
  "PUT /api/RewardMyTeam/update-reward": {
    kind: "bearer",
    scope: "ids",
    // After create-reward-search (order 0) put this member back into A's draft.
    owner: (w) => ({ path: "RewardMyTeam/update-reward", body: { userId: w.paidMembers[0], value: 150 } }),
    order: 1,
  },
  "DELETE /api/RewardMyTeam/delete-reward": {
    kind: "bearer",
    scope: "ids",
    owner: (w) => ({ path: "RewardMyTeam/delete-reward", body: { userId: w.paidMembers[0] } }),
    order: 4,
  },
  "PUT /api/RewardMyTeam/update-all-reward": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "RewardMyTeam/update-all-reward", body: { value: 25 } }),
  },
  "PUT /api/RewardMyTeam/update-reward-name": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "RewardMyTeam/update-reward-name", body: { name: "Renamed Thanks" } }),
  },
  "PUT /api/RewardMyTeam/update-reward-message": {
    kind: "bearer",
    scope: "self",
    owner: () => ({
      path: "RewardMyTeam/update-reward-message",
      body: { message: "Thank you, team.\nWell done.", senderName: "The Board" },
    }),
  },
  "PUT /api/RewardMyTeam/update-reward-schedule": {
    kind: "bearer",
    scope: "self",
    // A change of A's draft (its version moves on, and A's pending payment with it): late.
    order: 7.9,
    owner: (w) => ({
      path: "RewardMyTeam/update-reward-schedule",
      body: { sendAt: new Date(w.clock.now().getTime() + 2 * 24 * 60 * 60_000).toISOString() },
    }),
  },
  "DELETE /api/RewardMyTeam/delete-all-reward": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "RewardMyTeam/delete-all-reward" }),
    order: 8,
  },
  "POST /api/RewardMyTeam/create-reward-user": {
    kind: "bearer",
    scope: "self",
    owner: (w) => ({
      path: "RewardMyTeam/create-reward-user",
      body: { firstName: "Rita", lastName: "Reward", email: `rita.${w.a.userId}@example.com`, value: 30 },
    }),
  },
  "POST /api/RewardMyTeam/bulk-upload-reward": {
    kind: "bearer",
    scope: "self",
    owner: (w) => ({
      path: "RewardMyTeam/bulk-upload-reward",
      body: { rewards: [{ firstName: "Bo", lastName: "Bulk", email: `bo.${w.a.userId}@example.com`, value: 12 }] },
    }),
  },
  "POST /api/StripePayment/check-payment-intent": {
    kind: "bearer",
    scope: "ids",
    owner: (w) => ({ path: "StripePayment/check-payment-intent", body: { paymentIntent: w.paid.paymentIntentId } }),
  },
  "POST /api/StripePayment/get-simulated-payment": {
    kind: "bearer",
    scope: "ids",
    owner: (w) => ({
      path: "StripePayment/get-simulated-payment",
      body: { paymentIntent: w.pending.paymentIntentId, clientSecret: w.pending.clientSecret },
    }),
    order: -3,
  },
  "POST /api/StripePayment/confirm-simulated-payment": {
    kind: "bearer",
    scope: "ids",
    // A card that asks for authentication, so complete-simulated-authentication has work next.
    owner: (w) => ({
      path: "StripePayment/confirm-simulated-payment",
      body: {
        paymentIntent: w.pending.paymentIntentId,
        clientSecret: w.pending.clientSecret,
        cardNumber: "4000 0025 0000 3155",
        expiry: "12/34",
        cvc: "123",
        nameOnCard: "Jane Citizen",
      },
    }),
    order: -2,
  },
  "POST /api/StripePayment/complete-simulated-authentication": {
    kind: "bearer",
    scope: "ids",
    owner: (w) => ({
      path: "StripePayment/complete-simulated-authentication",
      body: { paymentIntent: w.pending.paymentIntentId, clientSecret: w.pending.clientSecret, outcome: "complete" },
    }),
    order: -1,
  },
  "POST /api/StripePayment/create-payment-intent": {
    kind: "bearer",
    scope: "self",
    // Runs after the draft was rebuilt by the calls of order 0 and 1: pays its current total.
    owner: async (w) => {
      const summary = await w.a.json<{ total: number }>("GET", "RewardMyTeam/get-reward-summary");
      return { path: "StripePayment/create-payment-intent", body: { amount: Math.round(summary.total * 100) } };
    },
    order: 2,
  },
  "POST /api/Balance/pay-order": {
    kind: "bearer",
    scope: "self",
    // A's balance holds nothing (its top-ups are never paid here): the current total is refused as
    // short, 402, and nothing changes.
    owner: async (w) => {
      const summary = await w.a.json<{ total: number }>("GET", "RewardMyTeam/get-reward-summary");
      return { path: "Balance/pay-order", body: { amount: Math.round(summary.total * 100) }, status: 402 };
    },
    order: 2,
  },
  "POST /api/StripePayment/create-checkout-session": {
    kind: "bearer",
    scope: "self",
    // Only with Stripe: the simulated processor answers 404 to everyone (checked below).
    owner: () => ({ path: "StripePayment/create-checkout-session", body: { amount: 100 }, status: 404 }),
  },
  // A manager's own settings (modules/settings/api.server.ts): always the caller's own row.
  "PUT /api/Users/MyDetails/Name": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "Users/MyDetails/Name", body: { firstName: "Alpha", lastName: "Owner" } }),
  },
  "POST /api/Users/MyEmail/Request": {
    kind: "bearer",
    scope: "self",
    owner: (w) => ({
      path: "Users/MyEmail/Request",
      body: { newEmail: `moved.${w.a.userId}@example.com`, currentPassword: w.a.password },
    }),
  },
  "POST /api/Users/MyEmail/Confirm": {
    kind: "bearer",
    scope: "self",
    // The code went to a mailbox the suite does not read: a request token of nobody's is refused.
    owner: () => ({
      path: "Users/MyEmail/Confirm",
      body: { requestToken: "0123456789abcdef0123456789abcdef", verificationCode: "123456" },
      status: 400,
    }),
  },
  "GET /api/Users/MySessions": { kind: "bearer", scope: "self", owner: () => ({ path: "Users/MySessions" }) },
  "POST /api/Users/MySessions/SignOutOthers": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "Users/MySessions/SignOutOthers" }),
    order: 8.5,
  },
  "POST /api/Users/MyPassword": {
    kind: "bearer",
    scope: "self",
    // The same password again (sign-up's rules hold): the other calls still sign in with it.
    owner: (w) => ({ path: "Users/MyPassword", body: { currentPassword: w.a.password, newPassword: w.a.password } }),
    order: 8.6,
  },
  "GET /api/Managers": { kind: "bearer", scope: "self", ownerOnly: true, owner: () => ({ path: "Managers" }) },
  "POST /api/Managers/invites": {
    kind: "bearer",
    scope: "self",
    ownerOnly: true,
    owner: (w) => ({
      path: "Managers/invites",
      body: { email: `invitee.${w.a.userId}@example.com`, role: "manager" },
      status: 201,
    }),
  },
  "DELETE /api/Managers/invites/:id": {
    kind: "bearer",
    scope: "ids",
    ownerOnly: true,
    owner: async (w) => ({ path: `Managers/invites/${await pendingInvite(w)}`, status: 204 }),
  },
  "PUT /api/Managers/:id/role": {
    kind: "bearer",
    scope: "ids",
    ownerOnly: true,
    owner: (w) => ({ path: `Managers/${w.aManager.userId}/role`, body: { role: "owner" } }),
  },
  // Monthly budgets (ADR 0034): an Owner sets one; every manager reads this month's use.
  "PUT /api/Managers/:id/budget": {
    kind: "bearer",
    scope: "ids",
    ownerOnly: true,
    owner: (w) => ({ path: `Managers/${w.aManager.userId}/budget`, body: { budgetDollars: 500 } }),
  },
  "GET /api/Budgets": { kind: "bearer", scope: "self", owner: () => ({ path: "Budgets" }) },
  "DELETE /api/Managers/:id": {
    kind: "bearer",
    scope: "ids",
    ownerOnly: true,
    // After the role change (order 0): A's second manager goes, and A's owner stays.
    owner: (w) => ({ path: `Managers/${w.aManager.userId}`, status: 204 }),
    order: 7,
  },
  // Two-factor sign-in (ADR 0042): A turns it on, gets new codes and turns it off, before logging out.
  "GET /api/TwoFactor": { kind: "bearer", scope: "self", owner: () => ({ path: "TwoFactor" }) },
  "POST /api/TwoFactor/setup": {
    kind: "bearer",
    scope: "self",
    // With a bearer the challenge token is not read; without one an unknown challenge is a 401 too.
    owner: () => ({ path: "TwoFactor/setup", body: { challengeToken: "0123456789abcdef0123456789abcdef" } }),
    order: 7,
  },
  "POST /api/TwoFactor/confirm": {
    kind: "bearer",
    scope: "self",
    owner: async (w) => ({ path: "TwoFactor/confirm", body: { code: await totpCodeOfA(w), password: PASSWORD } }),
    order: 7.1,
  },
  "POST /api/TwoFactor/recovery-codes": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "TwoFactor/recovery-codes", body: { password: PASSWORD } }),
    order: 7.2,
  },
  "POST /api/TwoFactor/disable": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "TwoFactor/disable", body: { password: PASSWORD }, status: 204 }),
    order: 7.3,
  },
  "PUT /api/TwoFactor/company-requirement": {
    kind: "bearer",
    scope: "self",
    ownerOnly: true,
    owner: () => ({ path: "TwoFactor/company-requirement", body: { required: false } }),
  },
  // Approvals (ADR 0022 §6). The id routes run first (order < 0): later entries make A's Manager an Owner.
  "GET /api/Approvals/threshold": {
    kind: "bearer",
    scope: "self",
    ownerOnly: true,
    owner: () => ({ path: "Approvals/threshold" }),
  },
  "PUT /api/Approvals/threshold": {
    kind: "bearer",
    scope: "self",
    ownerOnly: true,
    owner: () => ({ path: "Approvals/threshold", body: { thresholdDollars: 0 } }),
  },
  "GET /api/Approvals/my-draft": { kind: "bearer", scope: "self", owner: () => ({ path: "Approvals/my-draft" }) },
  "POST /api/Approvals/request": {
    kind: "bearer",
    scope: "self",
    // An Owner's own order needs no approval: refused, nothing made.
    owner: () => ({ path: "Approvals/request", body: { amount: 13320 }, status: 400 }),
  },
  "GET /api/Approvals": {
    kind: "bearer",
    scope: "self",
    ownerOnly: true,
    owner: () => ({ path: "Approvals?status=pending" }),
  },
  "GET /api/Approvals/:orderId": {
    kind: "bearer",
    scope: "ids",
    owner: async (w) => ({ path: `Approvals/${await requestedApprovalOfA(w)}` }),
    order: -3,
  },
  "POST /api/Approvals/:orderId/approve": {
    kind: "bearer",
    scope: "ids",
    ownerOnly: true,
    owner: async (w) => ({ path: `Approvals/${await requestedApprovalOfA(w)}/approve`, status: 204 }),
    order: -2.9,
  },
  "POST /api/Approvals/:orderId/decline": {
    kind: "bearer",
    scope: "ids",
    ownerOnly: true,
    owner: async (w) => ({
      path: `Approvals/${await requestedApprovalOfA(w)}/decline`,
      body: { reason: "Over budget" },
      status: 204,
    }),
    order: -2.8,
  },
  "POST /api/Approvals/:orderId/payment-intent": {
    kind: "bearer",
    scope: "ids",
    owner: async (w) => ({ path: `Approvals/${await approvedApprovalOfA(w)}/payment-intent` }),
    order: -2.7,
  },
  // Company API keys (ADR 0028): an Owner's calls, and the calls a key makes.
  "GET /api/ApiKeys": { kind: "bearer", scope: "self", ownerOnly: true, owner: () => ({ path: "ApiKeys" }) },
  "POST /api/ApiKeys": {
    kind: "bearer",
    scope: "self",
    ownerOnly: true,
    owner: (w) => ({
      path: "ApiKeys",
      body: {
        name: "Payroll sync",
        expiresAt: new Date(w.clock.now().getTime() + 30 * 24 * 60 * 60_000).toISOString(),
      },
      status: 201,
    }),
  },
  "PUT /api/ApiKeys/:id/budget": {
    kind: "bearer",
    scope: "ids",
    ownerOnly: true,
    owner: async (w) => ({ path: `ApiKeys/${await spareKeyOfA(w)}/budget`, body: { budgetDollars: 1000 } }),
  },
  "DELETE /api/ApiKeys/:id": {
    kind: "bearer",
    scope: "ids",
    ownerOnly: true,
    owner: async (w) => ({ path: `ApiKeys/${await spareKeyOfA(w)}`, status: 204 }),
  },
  // Signed webhooks (ADR 0045): an Owner's calls.
  "GET /api/Webhooks": { kind: "bearer", scope: "self", ownerOnly: true, owner: () => ({ path: "Webhooks" }) },
  "POST /api/Webhooks": {
    kind: "bearer",
    scope: "self",
    ownerOnly: true,
    owner: async (w) => {
      await roomForWebhookOfA(w);
      return {
        path: "Webhooks",
        body: { url: "http://127.0.0.1:9/hook", events: ["order.released", "email.failed"] },
        status: 201,
      };
    },
  },
  "DELETE /api/Webhooks/:id": {
    kind: "bearer",
    scope: "ids",
    ownerOnly: true,
    owner: async (w) => ({ path: `Webhooks/${(await webhookOfA(w)).endpointId}`, status: 204 }),
  },
  "GET /api/Webhooks/:id/deliveries": {
    kind: "bearer",
    scope: "ids",
    ownerOnly: true,
    owner: async (w) => ({ path: `Webhooks/${(await webhookOfA(w)).endpointId}/deliveries` }),
  },
  "POST /api/Webhooks/:id/deliveries/:deliveryId/resend": {
    kind: "bearer",
    scope: "ids",
    ownerOnly: true,
    owner: async (w) => {
      const { endpointId, deliveryId } = await webhookOfA(w);
      return { path: `Webhooks/${endpointId}/deliveries/${deliveryId}/resend`, status: 202 };
    },
  },
  "POST /api/Webhooks/:id/ping": {
    kind: "bearer",
    scope: "ids",
    ownerOnly: true,
    owner: async (w) => ({ path: `Webhooks/${(await webhookOfA(w)).endpointId}/ping`, status: 202 }),
  },
  // The prepaid balance (ADR 0043): every manager reads it; only an Owner tops it up.
  // Automations (ADR 0035): an Owner's calls.
  "GET /api/Automations": { kind: "bearer", scope: "self", ownerOnly: true, owner: () => ({ path: "Automations" }) },
  "POST /api/Automations/create-automation": {
    kind: "bearer",
    scope: "self",
    ownerOnly: true,
    owner: () => ({ path: "Automations/create-automation", body: AUTOMATION, status: 201 }),
  },
  "PUT /api/Automations/update-automation-budget": {
    kind: "bearer",
    scope: "self",
    ownerOnly: true,
    owner: () => ({ path: "Automations/update-automation-budget", body: { budget: 500 }, status: 204 }),
  },
  "PUT /api/Automations/:automationId/update-automation": {
    kind: "bearer",
    scope: "ids",
    ownerOnly: true,
    owner: async (w) => ({
      path: `Automations/${await automationOfA(w)}/update-automation`,
      body: AUTOMATION,
      status: 204,
    }),
  },
  "PUT /api/Automations/:automationId/set-automation-enabled": {
    kind: "bearer",
    scope: "ids",
    ownerOnly: true,
    owner: async (w) => ({
      path: `Automations/${await automationOfA(w)}/set-automation-enabled`,
      body: { enabled: false },
      status: 204,
    }),
  },
  "GET /api/Balance": { kind: "bearer", scope: "self", owner: () => ({ path: "Balance" }) },
  "POST /api/Balance/TopUps": {
    kind: "bearer",
    scope: "self",
    ownerOnly: true,
    owner: () => ({ path: "Balance/TopUps", body: { amount: 5000 }, status: 201 }),
  },
  "POST /api/Balance/TopUps/checkout-session": {
    kind: "bearer",
    scope: "self",
    ownerOnly: true,
    // Stripe only: the simulated processor the suite runs on has no Checkout.
    owner: () => ({ path: "Balance/TopUps/checkout-session", body: { amount: 5000 }, status: 404 }),
  },
  "GET /api/Balance/TopUps/:id": {
    kind: "bearer",
    scope: "ids",
    ownerOnly: true,
    owner: async (w) => ({ path: `Balance/TopUps/${await topUpOfA(w)}` }),
  },
  "POST /api/Balance/TopUps/:id/check": {
    kind: "bearer",
    scope: "ids",
    ownerOnly: true,
    owner: async (w) => ({ path: `Balance/TopUps/${await topUpOfA(w)}/check` }),
  },
  "POST /api/Balance/TopUps/:id/pay-simulated": {
    kind: "bearer",
    scope: "ids",
    ownerOnly: true,
    owner: async (w) => ({
      path: `Balance/TopUps/${await topUpOfA(w)}/pay-simulated`,
      body: { cardNumber: "4242424242424242", expiry: "12/34", cvc: "123", nameOnCard: "Jane Citizen" },
    }),
  },
  "POST /api/Balance/TopUps/:id/authenticate-simulated": {
    kind: "bearer",
    scope: "ids",
    ownerOnly: true,
    owner: async (w) => ({
      path: `Balance/TopUps/${await topUpOfA(w)}/authenticate-simulated`,
      body: { outcome: "fail" },
    }),
  },
  // The OpenAPI document of /api/v1 (modules/api-v1/openapi.server.ts): public, so a system reads it before it holds a key.
  "GET /api/v1/openapi.json": { kind: "public" },
  // The OpenAPI document of the whole /api (modules/api-v1/openapi.server.ts): public, as /api/v1's is.
  "GET /api/openapi.json": { kind: "public" },
  "GET /api/v1/orders": {
    kind: "apiKey",
    scope: "self",
    request: () => ({ path: "v1/orders?pageNumber=1&pageSize=5" }),
  },
  // An order paid from the balance (ADR 0043). A's threshold is $0 (as the approval routes set
  // it), so A's key's order waits for an Owner (202, nothing charged); B has no threshold and no
  // balance: 402 for B's own order.
  "POST /api/v1/orders": {
    kind: "apiKey",
    scope: "self",
    request: async (w) => {
      await jsonOf(
        await call(w.api, "PUT", "/api/Approvals/threshold", { thresholdDollars: 0 }, w.a.accessToken),
        "A's threshold",
      );
      // A's key used once before the checks: its hourly api_key.used audit entry (ADR 0028 §6) is
      // then already written, so a refused call stores nothing at all.
      await jsonOf(await call(w.api, "GET", "/api/v1/orders", undefined, w.aApiKey), "A's key");
      return {
        path: "v1/orders",
        headers: { "idempotency-key": crypto.randomUUID() },
        body: {
          rewardName: "System Thanks",
          message: "From the payroll system",
          recipients: [{ email: "api.recipient@example.com", firstName: "Api", lastName: "Recipient", amount: 5 }],
        },
        status: 202,
      };
    },
    bStatus: 402,
  },
  // What an order would cost (ADR 0044): reads the key's own company only, writes nothing.
  "POST /api/v1/quotes": {
    kind: "apiKey",
    scope: "self",
    request: async (w) => {
      // As for the order above: the key's hourly api_key.used entry is written before the checks.
      await jsonOf(await call(w.api, "GET", "/api/v1/orders", undefined, w.aApiKey), "A's key");
      return {
        path: "v1/quotes",
        body: {
          rewardName: "System Thanks",
          recipients: [{ email: "api.recipient@example.com", firstName: "Api", lastName: "Recipient", amount: 5 }],
        },
      };
    },
  },
  "GET /api/v1/orders/:orderId": {
    kind: "apiKey",
    scope: "ids",
    request: (w) => ({ path: `v1/orders/${w.scheduledOrder}` }),
  },
  // Single sign-on (ADR 0046), an Owner's calls. The provider saved is a closed loopback port, so
  // "Test the connection" fails at once without leaving the machine; each save names its own
  // domain (a domain is one company's, and company B makes the same calls).
  "GET /api/SingleSignOn": { kind: "bearer", scope: "self", ownerOnly: true, owner: () => ({ path: "SingleSignOn" }) },
  "POST /api/SingleSignOn/test": {
    kind: "bearer",
    scope: "self",
    ownerOnly: true,
    owner: () => ({ path: "SingleSignOn/test" }),
  },
  "PUT /api/SingleSignOn": {
    kind: "bearer",
    scope: "self",
    ownerOnly: true,
    order: 8,
    owner: (w) => ({
      path: "SingleSignOn",
      body: {
        issuerUrl: "https://127.0.0.1:9",
        clientId: "rewards-portal",
        clientSecret: "a-client-secret",
        domains: [`a${w.a.userId}-${++ssoDomains}.example.com`],
        newManagerRole: "manager",
        required: false,
      },
    }),
  },
  "POST /api/Identity/logout": {
    kind: "bearer",
    scope: "self",
    owner: () => ({ path: "Identity/logout", status: 204 }),
    order: 9,
  },
};

/** Every route the API app answers (middleware entries, method ALL, are not routes). */
export function apiRoutes(api: Api): Array<{ method: string; path: string; key: string }> {
  const seen = new Map<string, { method: string; path: string; key: string }>();
  for (const r of api.routes) {
    if (r.method === "ALL") continue;
    const key = `${r.method} ${r.path.replace(/\/+$/, "")}`;
    seen.set(key, { method: r.method, path: r.path, key });
  }
  return [...seen.values()];
}
