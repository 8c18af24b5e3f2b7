// The web session (DESIGN.md §2): the httpOnly cookie holds only a random id; the access token,
// the user's display details and flashed toasts live in the database row behind it.

import { createHmac, timingSafeEqual } from "node:crypto";
import {
  type Cookie,
  createCookie,
  createSession,
  createSessionStorage,
  type RouterContextProvider,
  type Session,
} from "react-router";
import type { AppSettings, MyDetails } from "../../core/account-forms.ts";
import { services } from "../context.ts";
import type { Toast } from "./toast.ts";

export interface SessionData {
  accessToken: string;
  user: Pick<MyDetails, "id" | "companyId" | "firstName" | "lastName" | "fullName" | "email" | "companyName">;
  appSettings: AppSettings;
}

export interface SessionFlashData {
  toast: Toast;
}

export type WebSession = Session<SessionData, SessionFlashData>;

type Context = Readonly<RouterContextProvider>;
/** One storage per running application, keyed by its session store (tests and benchmarks run several). */
const storages = new WeakMap<object, ReturnType<typeof build>>();

/**
 * The session cookie, holding `<id>.<HMAC-SHA256 of the id with SESSION_SECRET>` (DESIGN.md §3:
 * the secret signs cookies). Signed here with node:crypto, synchronously, rather than by React
 * Router's `secrets`, whose signing is an async WebCrypto call on every request (ADR 0011).
 */
export function sessionCookie(isHttps: boolean, secret: string): Cookie {
  const plain = createCookie(isHttps ? "__Host-session" : "session", {
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

/**
 * The session row is read once per GET: the root, portal and page loaders all ask for it, in
 * parallel, for the same request. Each caller gets its own copy (what one sets or flashes is
 * only written when that caller commits). Posts read it afresh: their loaders run after the
 * action, which may have changed it.
 */
const readsOfRequest = new WeakMap<Request, Promise<WebSession>>();

export async function getSession(context: Context, request: Request): Promise<WebSession> {
  const cookie = request.headers.get("cookie");
  if (request.method !== "GET" && request.method !== "HEAD") return storage(context).getSession(cookie);
  let read = readsOfRequest.get(request);
  if (!read) {
    read = storage(context).getSession(cookie);
    readsOfRequest.set(request, read);
  }
  const session = await read;
  // session.data holds the flashed keys too (`__flash_toast__`); createSession keeps them.
  return createSession<SessionData, SessionFlashData>(structuredClone(session.data) as SessionData, session.id);
}

export function commitSession(context: Context, session: WebSession): Promise<string> {
  return storage(context).commitSession(session);
}

export function destroySession(context: Context, session: WebSession): Promise<string> {
  return storage(context).destroySession(session);
}

/**
 * A brand-new session (new id) for a fresh login, so an id planted before login is useless
 * afterwards. The old row is deleted; its cookie is replaced by the new one.
 */
export async function startNewSession(context: Context, request: Request, data: SessionData): Promise<string> {
  const old = await getSession(context, request);
  if (old.id) await services(context).sessionStore.delete(old.id);
  const fresh = await storage(context).getSession();
  fresh.set("accessToken", data.accessToken);
  fresh.set("user", data.user);
  fresh.set("appSettings", data.appSettings);
  return commitSession(context, fresh);
}
