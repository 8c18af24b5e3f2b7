// The one typed client the web routes use to reach the provider API (DESIGN.md §2). It calls
// the API in process (ADR 0015); the bearer token comes from the server-held session, never
// from the browser, and the client's address travels in a header only the edge sets.
import type { RouterContextProvider } from "react-router";
import type {
  AppSettings,
  CompanyDetailsRequest,
  CompanyDetailsResponse,
  HelpRequest,
  LoginRequest,
  LoginResponse,
  MyDetails,
  RegisterRequest,
  RegisterResponse,
  ResetPasswordRequest,
  RewardHistoryItem,
  VerifyEmailRequest,
  VerifyEmailRequestResponse,
  VerifyEmailResponse,
} from "../../core/account-forms.ts";
import type {
  CheckPaymentIntentResponse,
  CompleteSimulatedAuthenticationRequest,
  ConfirmSimulatedPaymentRequest,
  CreateCheckoutSessionResponse,
  CreatePaymentIntentRequest,
  CreatePaymentIntentResponse,
  SimulatedPaymentInfo,
  SimulatedPaymentResponse,
} from "../../core/payments.ts";
import type { HelpAnonymousRequest, LatestReward, WaitListRequest } from "../../core/public-forms.ts";
import type {
  BulkRewardUploadResponse,
  CreateRewardUserResponse,
  NewRewardUser,
  RewardDraftTotals,
  RewardRecipient,
  RewardRecipientPage,
  RewardSummary,
} from "../../core/rewards.ts";
import type { BulkTeamUploadResponse, TeamListQuery, TeamMember, TeamMemberInput, TeamPage } from "../../core/team.ts";
import { services } from "../context.ts";

export type ApiResult<T> =
  | { ok: true; status: number; data: T }
  | { ok: false; status: number; detail: string; errors?: Record<string, string[]> };

/** The in-process API answers any origin; the URL only carries the path and query. */
const IN_PROCESS_ORIGIN = "http://api.internal";

const FALLBACK_DETAIL = "An error occurred while submitting the form. Please try again.";

export interface ApiClientOptions {
  /** The bearer token from the web session. */
  token?: string;
  /** Called on any 401 (SPEC §8: the session ends and the browser lands on the login page). */
  onUnauthorized?: () => Promise<never>;
}

export function createApiClient(context: Readonly<RouterContextProvider>, options: ApiClientOptions = {}) {
  const s = services(context);

  async function call<T>(method: string, path: string, body?: unknown): Promise<ApiResult<T>> {
    const headers = new Headers({ accept: "application/json" });
    if (body !== undefined) headers.set("content-type", "application/json");
    if (options.token) headers.set("authorization", `Bearer ${options.token}`);
    headers.set("x-rewards-client-ip", s.clientIp);
    const request = new Request(new URL(`/api/${path.replace(/^\/+/, "")}`, IN_PROCESS_ORIGIN), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let response: Response;
    try {
      response = await s.apiFetch(request);
    } catch (error) {
      s.logger.error({ err: error instanceof Error ? error.message : String(error), path }, "provider API unreachable");
      return { ok: false, status: 503, detail: FALLBACK_DETAIL };
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (response.ok) return { ok: true, status: response.status, data: parsed as T };
    if (response.status === 401 && options.onUnauthorized) await options.onUnauthorized();
    const problem = (parsed ?? {}) as { detail?: unknown; errors?: Record<string, string[]> };
    return {
      ok: false,
      status: response.status,
      detail: typeof problem.detail === "string" ? problem.detail : FALLBACK_DETAIL,
      errors: problem.errors,
    };
  }

  return {
    latestRewards: () => call<LatestReward[]>("GET", "Catalogue/latest-reward"),
    joinWaitList: (body: WaitListRequest) => call<undefined>("POST", "WaitList", body),
    createHelpAnonymous: (body: HelpAnonymousRequest) => call<undefined>("POST", "Help/create-help-anonymous", body),

    // Accounts (SPEC §7). After register the code is already emailed: go straight to verify.
    register: (body: RegisterRequest) => call<RegisterResponse>("POST", "Register", body),
    verifyEmailRequest: (userId: string) =>
      call<VerifyEmailRequestResponse>("POST", "Identity/VerifyEmailRequest", { userId }),
    resendVerifyEmailRequest: (userId: string) =>
      call<VerifyEmailRequestResponse>("POST", "Identity/ResendVerifyEmailRequest", { userId }),
    verifyEmail: (body: VerifyEmailRequest) => call<VerifyEmailResponse>("POST", "Identity/VerifyEmail", body),
    login: (body: LoginRequest) => call<LoginResponse>("POST", "Identity/login", body),
    logout: () => call<undefined>("POST", "Identity/logout"),
    appSettings: () => call<AppSettings>("GET", "Identity/app-settings"),
    onboardingVideoWatched: () => call<undefined>("POST", "Identity/onboarding-video-watched"),
    myDetails: () => call<MyDetails>("GET", "Users/MyDetails"),
    resetPasswordRequest: (email: string) => call<undefined>("POST", "Identity/ResetPasswordRequest", { email }),
    resetPassword: (body: ResetPasswordRequest) => call<undefined>("POST", "Identity/ResetPassword", body),
    saveCompanyDetails: (body: CompanyDetailsRequest) => call<CompanyDetailsResponse>("PUT", "Companies/", body),
    createHelp: (body: HelpRequest) => call<undefined>("POST", "Help/create-help", body),
    rewardHistory: () => call<RewardHistoryItem[]>("GET", "RewardHistory/get-reward-history"),

    // My Team (SPEC §7).
    listTeam: (query: TeamListQuery) => {
      const params = new URLSearchParams({
        pageNumber: String(query.pageNumber),
        pageSize: String(query.pageSize),
        search: query.search ?? "",
      });
      if (query.isRewardMyTeam) params.set("isRewardMyTeam", "true");
      return call<TeamPage>("GET", `Users?${params}`);
    },
    createTeamMember: (body: TeamMemberInput) => call<TeamMember>("POST", "Users/create-user", body),
    bulkCreateTeamMembers: (users: TeamMemberInput[]) =>
      call<BulkTeamUploadResponse>("POST", "Users/create-user-bulk-upload", { users }),
    updateTeamMember: (id: number, body: TeamMemberInput) => call<undefined>("PUT", `Users/${id}`, { id, ...body }),
    removeTeamMember: (id: number) => call<undefined>("DELETE", `Users/${id}`),

    // ─── Reward draft (SPEC §7 RewardMyTeam) ───
    /** create-reward-search: adds a team member with amount 0; answers the whole list. */
    addRewardRecipient: (userId: number) =>
      call<RewardRecipient[]>("POST", "RewardMyTeam/create-reward-search", { userId }),
    /** update-reward: `value` as typed (SPEC §5 conversions run on the server). */
    updateReward: (userId: number, value: number | string) =>
      call<RewardRecipient>("PUT", "RewardMyTeam/update-reward", { userId, value }),
    updateAllReward: (value: number | string) =>
      call<RewardDraftTotals>("PUT", "RewardMyTeam/update-all-reward", { value }),
    updateRewardName: (name: string) =>
      call<{ rewardName: string }>("PUT", "RewardMyTeam/update-reward-name", { name }),
    deleteReward: (userId: number) => call<undefined>("DELETE", "RewardMyTeam/delete-reward", { userId }),
    deleteAllReward: () => call<undefined>("DELETE", "RewardMyTeam/delete-all-reward"),
    getReward: () => call<RewardRecipient[]>("GET", "RewardMyTeam/get-reward"),
    /** Not in SPEC: one page of the table (newest first) with Total Recipients and Reward Dollars. */
    getRewardPage: (query: { pageNumber: number; pageSize: number }) =>
      call<RewardRecipientPage>(
        "GET",
        `RewardMyTeam/get-reward-page?${new URLSearchParams({ pageNumber: String(query.pageNumber), pageSize: String(query.pageSize) })}`,
      ),
    rewardSummary: () => call<RewardSummary>("GET", "RewardMyTeam/get-reward-summary"),
    /** Not in SPEC: the recipient email with sample values ('Sample of Email' on the Review page). */
    rewardEmailSample: () => call<{ subject: string; html: string; text: string }>("GET", "RewardMyTeam/email-sample"),
    createRewardUser: (body: NewRewardUser) =>
      call<CreateRewardUserResponse>("POST", "RewardMyTeam/create-reward-user", body),
    bulkUploadReward: (rewards: NewRewardUser[]) =>
      call<BulkRewardUploadResponse>("POST", "RewardMyTeam/bulk-upload-reward", { rewards }),

    // ─── Payments (SPEC §7 StripePayment; server/api/payments.ts) ───
    /** Freezes the draft into an order; `amount` is the total in cents the page showed. */
    createPaymentIntent: (body: CreatePaymentIntentRequest) =>
      call<CreatePaymentIntentResponse>("POST", "StripePayment/create-payment-intent", body),
    /** Stripe without JavaScript: the hosted Checkout page's URL (404 with the simulated processor). */
    createCheckoutSession: (body: CreatePaymentIntentRequest) =>
      call<CreateCheckoutSessionResponse>("POST", "StripePayment/create-checkout-session", body),
    /** `paymentIntent` is a PaymentIntent id (pi_…) or a Checkout Session id (cs_…). */
    checkPaymentIntent: (paymentIntent: string) =>
      call<CheckPaymentIntentResponse>("POST", "StripePayment/check-payment-intent", { paymentIntent }),
    /** The simulated card form: 200 with status succeeded, requires_action or failed (+ message, field). */
    confirmSimulatedPayment: (body: ConfirmSimulatedPaymentRequest) =>
      call<SimulatedPaymentResponse>("POST", "StripePayment/confirm-simulated-payment", body),
    completeSimulatedAuthentication: (body: CompleteSimulatedAuthenticationRequest) =>
      call<SimulatedPaymentResponse>("POST", "StripePayment/complete-simulated-authentication", body),
    getSimulatedPayment: (body: { paymentIntent: string; clientSecret: string }) =>
      call<SimulatedPaymentInfo>("POST", "StripePayment/get-simulated-payment", body),
  };
}

export type ApiClient = ReturnType<typeof createApiClient>;
