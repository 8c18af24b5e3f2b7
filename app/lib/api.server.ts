// The one typed client the web routes use to reach the provider API (docs/requirements.md §D2). It calls
// the API in process (ADR 0015); the bearer token comes from the server-held session, never
// from the browser, and the client's address travels in a header only the edge sets.
// Every call's path, body and answer are the API's own types through hono/client (ADR 0016):
// renaming a route or changing its schema fails `npm run typecheck` here or at the caller.
import { type ClientResponse, hc, type InferRequestType } from "hono/client";
import type { SuccessStatusCode } from "hono/utils/http-status";
import type { RouterContextProvider } from "react-router";
import type { ApiBindings } from "../../server/api/deps.ts";
import type { Api } from "../../server/api/index.ts";
import { services } from "../context.ts";

export type ApiResult<T> =
  | { ok: true; status: number; data: T }
  | {
      ok: false;
      status: number;
      detail: string;
      errors?: Record<string, string[]>;
      /** The problem's members beyond the standard ones (RFC 9457 extensions), unchecked: parse before use. */
      extensions?: Record<string, unknown>;
    };

/** The members every problem has; anything else it carries is an extension. */
const PROBLEM_MEMBERS = new Set(["type", "title", "status", "detail", "instance", "errors"]);

/** The in-process API answers any origin; the URL only carries the path and query. */
const IN_PROCESS_ORIGIN = "http://api.internal";

const FALLBACK_DETAIL = "An error occurred while submitting the form. Please try again.";

export interface ApiClientOptions {
  /** The bearer token from the web session. */
  token?: string;
  /** Called on any 401 (docs/requirements.md §S8: the session ends and the browser lands on the login page). */
  onUnauthorized?: () => Promise<never>;
}

/** The JSON body a call sends, as the route's validator declares it. */
type Json<Call> = InferRequestType<Call> extends { json: infer J } ? J : never;
/** The query a call sends, with numbers and flags as the web holds them (sent as text). */
type Query<Call> =
  InferRequestType<Call> extends { query: infer Q } ? { [K in keyof Q]: string | number | boolean } : never;
/** What a call answers on success: its handler's `c.json(...)`, or undefined for an empty body. */
type Answer<R> =
  R extends ClientResponse<infer T, infer S, infer F>
    ? S extends SuccessStatusCode
      ? F extends "json"
        ? T
        : undefined
      : never
    : never;

type AnswerOf<Call extends (...args: never[]) => Promise<unknown>> = Answer<Awaited<ReturnType<Call>>>;

/** The in-process fetch threw: logged where it happened, answered as a 503. */
class ApiUnreachable extends Error {}

function queryText<Q extends Record<string, string | number | boolean | undefined>>(query: Q) {
  const text: Record<string, string> = {};
  for (const [key, value] of Object.entries(query)) if (value !== undefined) text[key] = String(value);
  return text;
}

export function createApiClient(context: Readonly<RouterContextProvider>, options: ApiClientOptions = {}) {
  const s = services(context);
  // The client lives for one request: its calls share one bearer check of its token.
  const bindings: ApiBindings = { bearerChecks: new Map() };

  async function inProcessFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const request = new Request(input, init);
    request.headers.set("accept", "application/json");
    if (options.token) request.headers.set("authorization", `Bearer ${options.token}`);
    request.headers.set("x-rewards-client-ip", s.clientIp);
    if (s.userAgent) request.headers.set("user-agent", s.userAgent);
    try {
      return await s.apiFetch(request, bindings);
    } catch (error) {
      const path = new URL(request.url).pathname.replace(/^\/api\//, "");
      s.logger.error({ err: error instanceof Error ? error.message : String(error), path }, "provider API unreachable");
      throw new ApiUnreachable();
    }
  }

  const api = hc<Api>(IN_PROCESS_ORIGIN, { fetch: inProcessFetch }).api;

  async function call<R extends ClientResponse<unknown, number, string>>(
    send: Promise<R>,
  ): Promise<ApiResult<Answer<R>>> {
    let response: R;
    try {
      response = await send;
    } catch (error) {
      if (error instanceof ApiUnreachable) return { ok: false, status: 503, detail: FALLBACK_DETAIL };
      throw error;
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (response.ok) return { ok: true, status: response.status, data: parsed as Answer<R> };
    if (response.status === 401 && options.onUnauthorized) await options.onUnauthorized();
    const problem = (parsed ?? {}) as { detail?: unknown; errors?: Record<string, string[]> };
    const extensions =
      typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
        ? Object.fromEntries(Object.entries(parsed).filter(([key]) => !PROBLEM_MEMBERS.has(key)))
        : {};
    return {
      ok: false,
      status: response.status,
      detail: typeof problem.detail === "string" ? problem.detail : FALLBACK_DETAIL,
      errors: problem.errors,
      ...(Object.keys(extensions).length > 0 ? { extensions } : {}),
    };
  }

  /** A call that answers a file (`read` takes its body), not JSON; a problem is read as call() reads it. */
  async function callFile<T>(
    send: Promise<ClientResponse<unknown, number, string>>,
    read: (response: ClientResponse<unknown, number, string>) => Promise<T>,
  ): Promise<ApiResult<T>> {
    let response: ClientResponse<unknown, number, string>;
    try {
      response = await send;
    } catch (error) {
      if (error instanceof ApiUnreachable) return { ok: false, status: 503, detail: FALLBACK_DETAIL };
      throw error;
    }
    if (response.ok) return { ok: true, status: response.status, data: await read(response) };
    return call(Promise.resolve(response)) as Promise<ApiResult<never>>;
  }
  /** A CSV file. */
  const callText = (send: Promise<ClientResponse<unknown, number, string>>) => callFile(send, (r) => r.text());
  /** A PDF. */
  const callBytes = (send: Promise<ClientResponse<unknown, number, string>>) => callFile(send, (r) => r.arrayBuffer());

  const draft = api.RewardMyTeam;
  const payment = api.StripePayment;

  return {
    latestRewards: () => call(api.Catalogue["latest-reward"].$get()),
    joinWaitList: (json: Json<typeof api.WaitList.$post>) => call(api.WaitList.$post({ json })),
    createHelpAnonymous: (json: Json<(typeof api.Help)["create-help-anonymous"]["$post"]>) =>
      call(api.Help["create-help-anonymous"].$post({ json })),

    // Accounts (docs/requirements.md §S7). After register the code is already emailed: go straight to verify.
    register: (json: Json<typeof api.Register.$post>) => call(api.Register.$post({ json })),
    verifyEmailRequest: (userId: Json<typeof api.Identity.VerifyEmailRequest.$post>["userId"]) =>
      call(api.Identity.VerifyEmailRequest.$post({ json: { userId } })),
    resendVerifyEmailRequest: (userId: Json<typeof api.Identity.ResendVerifyEmailRequest.$post>["userId"]) =>
      call(api.Identity.ResendVerifyEmailRequest.$post({ json: { userId } })),
    verifyEmail: (json: Json<typeof api.Identity.VerifyEmail.$post>) => call(api.Identity.VerifyEmail.$post({ json })),
    login: (json: Json<typeof api.Identity.login.$post>) => call(api.Identity.login.$post({ json })),
    logout: () => call(api.Identity.logout.$post()),
    appSettings: () => call(api.Identity["app-settings"].$get()),
    onboardingVideoWatched: () => call(api.Identity["onboarding-video-watched"].$post()),
    myDetails: () => call(api.Users.MyDetails.$get()),
    resetPasswordRequest: (email: Json<typeof api.Identity.ResetPasswordRequest.$post>["email"]) =>
      call(api.Identity.ResetPasswordRequest.$post({ json: { email } })),
    resetPassword: (json: Json<typeof api.Identity.ResetPassword.$post>) =>
      call(api.Identity.ResetPassword.$post({ json })),
    // Two-factor sign-in (ADR 0023; server/api/two-factor.ts). The set-up calls take a login's
    // set-up challenge in place of the bearer.
    loginCode: (json: Json<(typeof api.Identity)["login-code"]["$post"]>) =>
      call(api.Identity["login-code"].$post({ json })),
    twoFactorStatus: () => call(api.TwoFactor.$get()),
    twoFactorSetup: (json: Json<typeof api.TwoFactor.setup.$post>) => call(api.TwoFactor.setup.$post({ json })),
    twoFactorConfirm: (json: Json<typeof api.TwoFactor.confirm.$post>) => call(api.TwoFactor.confirm.$post({ json })),
    twoFactorDisable: (password: Json<typeof api.TwoFactor.disable.$post>["password"]) =>
      call(api.TwoFactor.disable.$post({ json: { password } })),
    regenerateRecoveryCodes: (password: Json<(typeof api.TwoFactor)["recovery-codes"]["$post"]>["password"]) =>
      call(api.TwoFactor["recovery-codes"].$post({ json: { password } })),
    setTwoFactorRequirement: (required: boolean) =>
      call(api.TwoFactor["company-requirement"].$put({ json: { required } })),
    saveCompanyDetails: (json: Json<typeof api.Companies.$put>) => call(api.Companies.$put({ json })),
    createHelp: (json: Json<(typeof api.Help)["create-help"]["$post"]>) =>
      call(api.Help["create-help"].$post({ json })),
    rewardHistory: () => call(api.RewardHistory["get-reward-history"].$get()),
    rewardHistoryPage: (query: Query<typeof api.RewardHistory.$get>) =>
      call(api.RewardHistory.$get({ query: queryText(query) })),
    rewardHistoryCsv: () => callText(api.RewardHistory.export.$get()),
    spendSummary: () => call(api.RewardHistory.spend.$get()),

    // A manager's own settings and the company's details (server/api/settings.ts, companies.ts).
    companyDetails: () => call(api.Companies.$get()),
    updateMyName: (json: Json<typeof api.Users.MyDetails.Name.$put>) => call(api.Users.MyDetails.Name.$put({ json })),
    requestEmailChange: (json: Json<typeof api.Users.MyEmail.Request.$post>) =>
      call(api.Users.MyEmail.Request.$post({ json })),
    confirmEmailChange: (json: Json<typeof api.Users.MyEmail.Confirm.$post>) =>
      call(api.Users.MyEmail.Confirm.$post({ json })),
    changeMyPassword: (json: Json<typeof api.Users.MyPassword.$post>) => call(api.Users.MyPassword.$post({ json })),
    mySessions: () => call(api.Users.MySessions.$get()),
    signOutOtherSessions: () => call(api.Users.MySessions.SignOutOthers.$post()),

    // A company's managers (Owners; server/api/managers.ts) and the public side of an invitation.
    listManagers: () => call(api.Managers.$get()),
    inviteManager: (json: Json<typeof api.Managers.invites.$post>) => call(api.Managers.invites.$post({ json })),
    revokeManagerInvite: (id: number) => call(api.Managers.invites[":id"].$delete({ param: { id: String(id) } })),
    changeManagerRole: (id: number, role: Json<(typeof api.Managers)[":id"]["role"]["$put"]>["role"]) =>
      call(api.Managers[":id"].role.$put({ param: { id: String(id) }, json: { role } })),
    removeManager: (id: number) => call(api.Managers[":id"].$delete({ param: { id: String(id) } })),
    previewManagerInvite: (token: string) => call(api.ManagerInvites.preview.$post({ json: { token } })),
    acceptManagerInvite: (json: Json<typeof api.ManagerInvites.accept.$post>) =>
      call(api.ManagerInvites.accept.$post({ json })),

    // A company's API keys (Owners; server/api/api-keys.ts, ADR 0028).
    listApiKeys: () => call(api.ApiKeys.$get()),
    createApiKey: (json: Json<typeof api.ApiKeys.$post>) => call(api.ApiKeys.$post({ json })),
    revokeApiKey: (id: number) => call(api.ApiKeys[":id"].$delete({ param: { id: String(id) } })),
    // A company's webhooks (Owners; server/api/webhooks.ts, ADR 0029).
    listWebhooks: () => call(api.Webhooks.$get()),
    registerWebhook: (json: Json<typeof api.Webhooks.$post>) => call(api.Webhooks.$post({ json })),
    deleteWebhook: (id: number) => call(api.Webhooks[":id"].$delete({ param: { id: String(id) } })),
    webhookDeliveries: (id: number) => call(api.Webhooks[":id"].deliveries.$get({ param: { id: String(id) } })),
    resendWebhookDelivery: (id: number, deliveryId: number) =>
      call(
        api.Webhooks[":id"].deliveries[":deliveryId"].resend.$post({
          param: { id: String(id), deliveryId: String(deliveryId) },
        }),
      ),
    pingWebhook: (id: number) => call(api.Webhooks[":id"].ping.$post({ param: { id: String(id) } })),
    // The OpenAPI document of /api/v1 (public; read by the API reference page).
    openApiDocument: () => callText(api.v1["openapi.json"].$get()),

    // The prepaid balance and its card top-ups (server/api/balance.ts, ADR 0029): amounts in cents.
    balance: () => call(api.Balance.$get()),
    createTopUp: (amountCents: number) => call(api.Balance.TopUps.$post({ json: { amount: amountCents } })),
    createTopUpCheckout: (amountCents: number) =>
      call(api.Balance.TopUps["checkout-session"].$post({ json: { amount: amountCents } })),
    topUp: (id: number) => call(api.Balance.TopUps[":id"].$get({ param: { id: String(id) } })),
    checkTopUp: (id: number) => call(api.Balance.TopUps[":id"].check.$post({ param: { id: String(id) } })),
    payTopUpSimulated: (id: number, json: Json<(typeof api.Balance.TopUps)[":id"]["pay-simulated"]["$post"]>) =>
      call(api.Balance.TopUps[":id"]["pay-simulated"].$post({ param: { id: String(id) }, json })),
    authenticateTopUpSimulated: (id: number, outcome: "complete" | "fail") =>
      call(api.Balance.TopUps[":id"]["authenticate-simulated"].$post({ param: { id: String(id) }, json: { outcome } })),

    // The audit trail (Owners; server/api/audit.ts).
    auditPage: (query: Query<typeof api.Audit.$get>) => call(api.Audit.$get({ query: queryText(query) })),
    auditCsv: (query: Query<typeof api.Audit.export.$get>) =>
      callText(api.Audit.export.$get({ query: queryText(query) })),

    // A released reward's delivery and the resend of a recipient's email.
    rewardOrder: (orderId: number) => call(api.RewardOrders[":orderId"].$get({ param: { orderId: String(orderId) } })),
    rescheduleRewardOrder: (orderId: number, sendAt: string) =>
      call(api.RewardOrders[":orderId"].schedule.$put({ param: { orderId: String(orderId) }, json: { sendAt } })),
    cancelRewardOrder: (orderId: number) =>
      call(api.RewardOrders[":orderId"].cancel.$post({ param: { orderId: String(orderId) } })),
    releaseDelivery: (releaseId: number) =>
      call(api.RewardReleases[":releaseId"].$get({ param: { releaseId: String(releaseId) } })),
    resendRewardEmail: (releaseId: number, userId: number) =>
      call(
        api.RewardReleases[":releaseId"].recipients[":userId"].resend.$post({
          param: { releaseId: String(releaseId), userId: String(userId) },
        }),
      ),

    // Tax invoices of paid orders.
    invoice: (invoiceNumber: string) => call(api.Invoices[":invoiceNumber"].$get({ param: { invoiceNumber } })),
    invoicePdf: (invoiceNumber: string) =>
      callBytes(api.Invoices[":invoiceNumber"].pdf.$get({ param: { invoiceNumber } })),

    // My Team (docs/requirements.md §S7).
    listTeam: (query: Query<typeof api.Users.$get>) => call(api.Users.$get({ query: queryText(query) })),
    createTeamMember: (json: Json<(typeof api.Users)["create-user"]["$post"]>) =>
      call(api.Users["create-user"].$post({ json })),
    bulkCreateTeamMembers: (users: Json<(typeof api.Users)["create-user-bulk-upload"]["$post"]>["users"]) =>
      call(api.Users["create-user-bulk-upload"].$post({ json: { users } })),
    updateTeamMember: (id: number, body: Omit<Json<(typeof api.Users)[":id"]["$put"]>, "id">) =>
      call(api.Users[":id"].$put({ param: { id: String(id) }, json: { id, ...body } })),
    removeTeamMember: (id: number) => call(api.Users[":id"].$delete({ param: { id: String(id) } })),

    // ─── Reward draft (docs/requirements.md §S7 RewardMyTeam) ───
    /** create-reward-search: adds a team member with amount 0; answers the whole list. */
    addRewardRecipient: (userId: Json<(typeof draft)["create-reward-search"]["$post"]>["userId"]) =>
      call(draft["create-reward-search"].$post({ json: { userId } })),
    /** update-reward: `value` as typed (docs/requirements.md §S5 conversions run on the server). */
    updateReward: (
      userId: Json<(typeof draft)["update-reward"]["$put"]>["userId"],
      value: Json<(typeof draft)["update-reward"]["$put"]>["value"],
    ) => call(draft["update-reward"].$put({ json: { userId, value } })),
    updateAllReward: (value: Json<(typeof draft)["update-all-reward"]["$put"]>["value"]) =>
      call(draft["update-all-reward"].$put({ json: { value } })),
    updateRewardMessage: (json: Json<(typeof draft)["update-reward-message"]["$put"]>) =>
      call(draft["update-reward-message"].$put({ json })),
    deleteReward: (userId: Json<(typeof draft)["delete-reward"]["$delete"]>["userId"]) =>
      call(draft["delete-reward"].$delete({ json: { userId } })),
    deleteAllReward: () => call(draft["delete-all-reward"].$delete()),
    getReward: () => call(draft["get-reward"].$get()),
    /** Not in SPEC: one page of the table (newest first) with Total Recipients and Reward Dollars. */
    getRewardPage: (query: Query<(typeof draft)["get-reward-page"]["$get"]>) =>
      call(draft["get-reward-page"].$get({ query: queryText(query) })),
    rewardSummary: () => call(draft["get-reward-summary"].$get()),
    /** Not in SPEC: the recipient email with sample values ('Sample of Email' on the Review page). */
    rewardEmailSample: () => call(draft["email-sample"].$get()),
    /** A flat body (no `rewards`) is answered with the one recipient it added, never the bulk summary. */
    createRewardUser: (json: Exclude<Json<(typeof draft)["create-reward-user"]["$post"]>, { rewards: unknown }>) =>
      call(draft["create-reward-user"].$post({ json })) as Promise<
        ApiResult<Extract<AnswerOf<(typeof draft)["create-reward-user"]["$post"]>, { isNewTeamMember: boolean }>>
      >,
    bulkUploadReward: (rewards: Json<(typeof draft)["bulk-upload-reward"]["$post"]>["rewards"]) =>
      call(draft["bulk-upload-reward"].$post({ json: { rewards } })),

    // ─── CSV imports (server/api/imports.ts): the file is the body, streamed as it arrives ───
    startImport: (query: Query<typeof api.Imports.$post>, file: ReadableStream<Uint8Array>) =>
      call(
        api.Imports.$post(
          { query: queryText(query) },
          // A stream body needs half duplex in Node's fetch; the API reads it as it comes.
          { init: { body: file, headers: { "content-type": "text/csv" }, duplex: "half" } as RequestInit },
        ),
      ),
    readImport: (id: string, sample?: number) =>
      call(api.Imports[":id"].$get({ param: { id }, query: queryText({ sample }) })),
    queueImport: (id: string) => call(api.Imports[":id"].start.$post({ param: { id } })),
    discardImport: (id: string) => call(api.Imports[":id"].$delete({ param: { id } })),

    // ─── Payments (docs/requirements.md §S7 StripePayment; server/api/payments.ts) ───
    /** Freezes the draft into an order; `amount` is the total in cents the page showed. */
    createPaymentIntent: (json: Json<(typeof payment)["create-payment-intent"]["$post"]>) =>
      call(payment["create-payment-intent"].$post({ json })),
    /** Stripe without JavaScript: the hosted Checkout page's URL (404 with the simulated processor). */
    createCheckoutSession: (json: Json<(typeof payment)["create-checkout-session"]["$post"]>) =>
      call(payment["create-checkout-session"].$post({ json })),
    /** `paymentIntent` is a PaymentIntent id (pi_…) or a Checkout Session id (cs_…). */
    checkPaymentIntent: (paymentIntent: Json<(typeof payment)["check-payment-intent"]["$post"]>["paymentIntent"]) =>
      call(payment["check-payment-intent"].$post({ json: { paymentIntent } })),
    /** The simulated card form: 200 with status succeeded, requires_action or failed (+ message, field). */
    confirmSimulatedPayment: (json: Json<(typeof payment)["confirm-simulated-payment"]["$post"]>) =>
      call(payment["confirm-simulated-payment"].$post({ json })),
    completeSimulatedAuthentication: (json: Json<(typeof payment)["complete-simulated-authentication"]["$post"]>) =>
      call(payment["complete-simulated-authentication"].$post({ json })),
    getSimulatedPayment: (json: Json<(typeof payment)["get-simulated-payment"]["$post"]>) =>
      call(payment["get-simulated-payment"].$post({ json })),

    // ─── Approvals (ADR 0022 §6; server/api/approvals.ts) ───
    approvalThreshold: () => call(api.Approvals.threshold.$get()),
    setApprovalThreshold: (json: Json<typeof api.Approvals.threshold.$put>) =>
      call(api.Approvals.threshold.$put({ json })),
    /** The threshold that applies to the caller and the newest approval order of their draft. */
    myDraftApproval: () => call(api.Approvals["my-draft"].$get()),
    /** Freezes the draft into an order waiting for an Owner; `amount` is the total in cents the page showed. */
    requestApproval: (json: Json<typeof api.Approvals.request.$post>) => call(api.Approvals.request.$post({ json })),
    listApprovals: (status: "pending" | "decided") => call(api.Approvals.$get({ query: { status } })),
    getApproval: (orderId: number) => call(api.Approvals[":orderId"].$get({ param: { orderId: String(orderId) } })),
    approveApproval: (orderId: number) =>
      call(api.Approvals[":orderId"].approve.$post({ param: { orderId: String(orderId) } })),
    declineApproval: (orderId: number, reason: string) =>
      call(api.Approvals[":orderId"].decline.$post({ param: { orderId: String(orderId) }, json: { reason } })),
    /** The payment of an approved order for its own total (an Owner, or the requester). */
    payApprovedOrder: (orderId: number) =>
      call(api.Approvals[":orderId"]["payment-intent"].$post({ param: { orderId: String(orderId) } })),
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;
