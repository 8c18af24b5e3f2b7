// The services the web portal receives from server.ts on every request, through React
// Router's context. server.ts reads `webContext` from the built entry module so both sides
// use the same key (see app/entry.server.tsx).
import { createContext, type RouterContextProvider } from "react-router";
import type { ApiBindings } from "../server/api/deps.ts";
import type { FormGuards } from "../server/http/form-guards.ts";

export interface WebConfig {
  appUrl: string;
  isHttps: boolean;
  catalogueUrl: string;
  voucherUrl: string;
  companyProfileUrl: string;
  onboardingVideoUrl: string;
  howItWorksVideoUrl: string;
  /** Site keys only; secrets never leave the server side of the API. */
  captcha: { enabled: boolean; v3SiteKey?: string; v2SiteKey?: string };
  /** Where recipients and managers get help (shown in the sample reward email). */
  supportEmail: string;
  /** The card processor (docs/requirements.md §D6): Stripe's publishable key only when Stripe is in use. */
  payments: { kind: "simulated" | "stripe"; publishableKey?: string };
  /** DEMO_MODE: a deployment on the simulated services; every page says so (docs/requirements.md §D3). */
  demoMode: boolean;
}

export interface DevMailboxMessage {
  id: number;
  to: string;
  subject: string;
  text: string;
  html: string;
  status: string;
  createdAt: string;
}

export interface WebLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** The database half of the web session; the cookie half is app/lib/session.server.ts. */
export interface WebSessionStore {
  create(data: Record<string, unknown>, expires?: Date): Promise<string>;
  read(id: string): Promise<Record<string, unknown> | null>;
  update(id: string, data: Record<string, unknown>, expires?: Date): Promise<void>;
  delete(id: string): Promise<void>;
}

export interface WebServices {
  config: WebConfig;
  /** Signs the session cookie's id (SESSION_SECRET). */
  secret: string;
  /** The CSRF token and honeypot of every form, one pair per application (server/http/form-guards.ts). */
  formGuards: FormGuards;
  /** Sends a request to the provider API, in process (ADR 0015). */
  apiFetch: (request: Request, bindings?: ApiBindings) => Promise<Response>;
  logger: WebLogger;
  sessionStore: WebSessionStore;
  /** Present only while SMTP_URL is unset (docs/requirements.md §D3). */
  devMailbox?: {
    /** Outside demo mode only loopback clients may read it: it holds codes, reset links and passwords. */
    isOpenTo(clientIp: string): boolean;
    list(): Promise<DevMailboxMessage[]>;
  };
}

export interface RequestServices extends WebServices {
  /**
   * The CSP nonce of a page rendered for one signed-in visitor; undefined for a page rendered
   * for visitors without a session, whose inline scripts the edge allows by hash
   * (server/http/anonymous-pages.ts) and which must hold nothing per visitor.
   */
  nonce: string | undefined;
  clientIp: string;
  /** The browser's User-Agent, passed on to the API (a login records it for the list of sessions). */
  userAgent?: string;
}

export const webContext = createContext<RequestServices>();

export function services(context: Readonly<RouterContextProvider>): RequestServices {
  return context.get(webContext);
}
