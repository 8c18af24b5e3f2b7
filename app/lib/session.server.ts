// The web session (docs/requirements.md §D2): the httpOnly cookie holds only a random id; the access token,
// the user's display details and flashed toasts live in the database row behind it.

import { createHmac, timingSafeEqual } from "node:crypto";
import {
  type Cookie,
  createContext,
  createCookie,
  createSessionStorage,
  type MiddlewareFunction,
  type RouterContextProvider,
  type Session,
} from "react-router";
import type { AppSettings, MyDetails } from "../../modules/identity/schema.ts";
import { SESSION_COOKIE_NAMES } from "../../modules/identity/session-cookie.ts";
import { services } from "../context.ts";
import type { Toast } from "./toast.ts";

export interface SessionData {
  accessToken: string;
  user: Pick<MyDetails, "id" | "companyId" | "firstName" | "lastName" | "fullName" | "email" | "companyName">;
  appSettings: AppSettings;
  /** An email change waiting for the code sent to the new address (Settings › Profile). */
  emailChange?: { requestToken: string; newEmail: string };
}

export interface SessionFlashData {
  toast: Toast;
  /** New two-factor recovery codes, shown once on the next page (ADR 0042), then gone from the session. */
  recoveryCodes: string[];
}

export type WebSession = Session<SessionData, SessionFlashData>;

type Context = Readonly<RouterContextProvider>;
/** One storage per running application, keyed by its session store (tests and benchmarks run several). */
const storages = new WeakMap<object, ReturnType<typeof build>>();

/**
 * The session cookie, holding `<id>.<HMAC-SHA256 of the id with SESSION_SECRET>` (docs/requirements.md §D3:
 * the secret signs cookies). Signed here with node:crypto, synchronously, rather than by React
 * Router's `secrets`, whose signing is an async WebCrypto call on every request (ADR 0011).
 */
export function sessionCookie(isHttps: boolean, secret: string): Cookie {
  const plain = createCookie(SESSION_COOKIE_NAMES[isHttps ? 1 : 0], {
    httpOnly: true,
    secure: isHttps,
    // Lax, not Strict: Strict would drop the session on the return from the payment page.
    sameSite: "lax",
    path: "/",
  });
  return {
    name: plain.name,
    isSigned: true,
    get expires() {
      return plain.expires;
    },
    async parse(header, options) {
      const value = await plain.parse(header, options);
      return typeof value === "string" ? verifiedSessionId(secret, value) : null;
    },
    serialize(id, options) {
      return plain.serialize(typeof id === "string" && id !== "" ? signSessionId(secret, id) : id, options);
    },
  };
}

export function signSessionId(secret: string, id: string): string {
  return `${id}.${createHmac("sha256", secret).update(id).digest("base64url")}`;
}

/** The session id from a cookie value, or null when its signature is not ours. */
export function verifiedSessionId(secret: string, value: string): string | null {
  const id = value.slice(0, value.lastIndexOf("."));
  if (!id) return null;
  const expected = Buffer.from(signSessionId(secret, id));
  const given = Buffer.from(value);
  return expected.length === given.length && timingSafeEqual(expected, given) ? id : null;
}

function build(context: Context) {
  const { config, secret, sessionStore } = services(context);
  return createSessionStorage<SessionData, SessionFlashData>({
    cookie: sessionCookie(config.isHttps, secret),
    createData: (data, expires) => sessionStore.create(data, expires),
    readData: (id) => sessionStore.read(id) as Promise<Partial<SessionData> | null>,
    updateData: (id, data, expires) => sessionStore.update(id, data, expires),
    deleteData: (id) => sessionStore.delete(id),
  });
}

function storage(context: Context) {
  const key = services(context).sessionStore;
  let s = storages.get(key);
  if (!s) {
    s = build(context);
    storages.set(key, s);
  }
  return s;
}

interface SessionHolder {
  session: WebSession;
  /** The data as read, to tell whether anything needs writing back. */
  initial: string;
  /** Ended (logout, a 401): nothing is written back; the destroying cookie is already set. */
  ended: boolean;
}

const sessionContext = createContext<SessionHolder>();

/**
 * The root middleware: reads the session once per request into the context, lets the loaders
 * and actions read and change it (getSession), and writes it back once, after them, when it
 * changed (a login's new session, a refreshed setting, a flashed or shown toast).
 */
export const sessionMiddleware: MiddlewareFunction<Response> = async ({ context, request }, next) => {
  const session = await storage(context).getSession(request.headers.get("cookie"));
  const holder: SessionHolder = { session, initial: JSON.stringify(session.data), ended: false };
  context.set(sessionContext, holder);
  const response = await next();
  if (holder.ended || JSON.stringify(holder.session.data) === holder.initial) return response;
  const setCookie = await storage(context).commitSession(holder.session);
  try {
    response.headers.append("set-cookie", setCookie);
    return response;
  } catch {
    // A response with immutable headers (Response.redirect and the like): copy it.
    const copy = new Response(response.body, response);
    copy.headers.append("set-cookie", setCookie);
    return copy;
  }
};

/** This request's session (sessionMiddleware read it); what is set or flashed is written after the response is made. */
export function getSession(context: Context): WebSession {
  return context.get(sessionContext).session;
}

/** Ends the session (logout, a 401): its row goes, and the answer must carry this Set-Cookie. */
export async function endSession(context: Context): Promise<string> {
  const holder = context.get(sessionContext);
  holder.ended = true;
  return storage(context).destroySession(holder.session);
}

/**
 * A brand-new session (new id) for a fresh login, so an id planted before login is useless
 * afterwards. The old row is deleted; the middleware writes the new one and its cookie.
 */
export async function startNewSession(context: Context, data: SessionData): Promise<void> {
  const holder = context.get(sessionContext);
  if (holder.session.id) await services(context).sessionStore.delete(holder.session.id);
  const fresh = await storage(context).getSession();
  fresh.set("accessToken", data.accessToken);
  fresh.set("user", data.user);
  fresh.set("appSettings", data.appSettings);
  holder.session = fresh;
  holder.ended = false;
}
