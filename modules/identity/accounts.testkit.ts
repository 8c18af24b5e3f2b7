// Test helpers for the account calls: an API over a test database with an injectable clock, and
// shortcuts that sign a manager up (reading the code from the outbox row's text) and log in.
// Used by the *.test.ts files beside it; never by the application.
import { and, desc, eq } from "drizzle-orm";
import { TOTP } from "otpauth";
import { expect, vi } from "vitest";
import { createApi } from "../../server/api/index.ts";
import type { Captcha } from "../../server/captcha/port.ts";
import type { Config } from "../../server/config.ts";
import type { Db } from "../../server/db/client.ts";
import { emailOutbox, users } from "../../server/db/schema.ts";
import type { Logger } from "../../server/logger.ts";
import { expectJson } from "../../tests/support/api.ts";
import { captureLogs } from "../../tests/support/logs.ts";

export const PASSWORD = "Secret#2024";
export const NEW_PASSWORD = "Another$2025";

export function testClock(start = new Date("2025-03-01T09:00:00.000Z")) {
  let current = start.getTime();
  return {
    now: () => new Date(current),
    advance(ms: number) {
      current += ms;
    },
  };
}
export type TestClock = ReturnType<typeof testClock>;

export interface AccountsApiOptions {
  config: Config;
  captcha?: Captcha;
  logger?: Logger;
  clock?: TestClock;
}

export function accountsApi(db: Db, options: AccountsApiOptions) {
  const clock = options.clock ?? testClock();
  const onEmailQueued = vi.fn();
  const captcha: Captcha = options.captcha ?? { enabled: false, verify: async () => true };
  const api = createApi({
    db,
    config: options.config,
    logger: options.logger ?? captureLogs("silent").logger,
    captcha,
    onEmailQueued,
    now: clock.now,
  });
  return { api, clock, onEmailQueued };
}

type Fetchable = { request: (path: string, init?: RequestInit) => Response | Promise<Response> };

export function call(api: Fetchable, method: string, path: string, body?: unknown, token?: string) {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token) headers.authorization = `Bearer ${token}`;
  return api.request(path, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

export async function emailsTo(db: Db, address: string) {
  return db
    .select()
    .from(emailOutbox)
    .where(and(eq(emailOutbox.toAddress, address)))
    .orderBy(desc(emailOutbox.id));
}

export async function lastEmailTo(db: Db, address: string) {
  const [row] = await emailsTo(db, address);
  if (!row) throw new Error(`no email to ${address}`);
  return row;
}

/** The 6-digit code of the newest verification email to `address` (from its text part). */
export async function latestCode(db: Db, address: string): Promise<string> {
  const row = await lastEmailTo(db, address);
  const match = /Verification code: (\d{6})\b/.exec(row.text);
  if (!match?.[1]) throw new Error(`no verification code in the newest email to ${address}`);
  return match[1];
}

/** The reset token of the newest reset email to `address` (from the link in its text part). */
export async function latestResetToken(db: Db, address: string): Promise<string> {
  const row = await lastEmailTo(db, address);
  const match = /\/corporate\/forgot-password\?passwordResetToken=([A-Za-z0-9_-]+)/.exec(row.text);
  if (!match?.[1]) throw new Error(`no reset link in the newest email to ${address}`);
  return decodeURIComponent(match[1]);
}

let counter = 0;

export function registration(overrides: Record<string, unknown> = {}) {
  counter++;
  return {
    firstName: "Jane",
    lastName: "Citizen",
    email: `jane.citizen.${counter}@example.com`,
    companyName: "Acme Pty Ltd",
    password: PASSWORD,
    captchaToken: "captcha-token",
    isCaptchaV3: true,
    ...overrides,
  };
}

/**
 * Registers a manager. `publicId` is the userId Register answered (a UUID: the id the
 * verification calls take); `userId` is the internal users.id, the id the other tables and the
 * domain's callers use.
 */
export async function signUp(api: Fetchable, db: Db, overrides: Record<string, unknown> = {}) {
  const body = registration(overrides);
  const res = await call(api, "POST", "/api/Register", body);
  expect(res.status, await res.clone().text()).toBe(200);
  const answer = (await res.json()) as { userId: string; requestToken: string };
  const [user] = await db.select({ id: users.id }).from(users).where(eq(users.publicId, answer.userId));
  if (!user) throw new Error(`Register answered ${answer.userId}, which is no user's public id`);
  const code = await latestCode(db, body.email);
  return { ...body, userId: user.id, publicId: answer.userId, requestToken: answer.requestToken, code };
}

/** Signs up and verifies: answers the access token of the verification too. */
export async function signUpVerified(api: Fetchable, db: Db, overrides: Record<string, unknown> = {}) {
  const account = await signUp(api, db, overrides);
  const res = await call(api, "POST", "/api/Identity/VerifyEmail", {
    userId: account.publicId,
    requestToken: account.requestToken,
    verificationCode: account.code,
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const { accessToken } = (await res.json()) as { accessToken: string };
  return { ...account, accessToken };
}

/** The code an authenticator app holding `secret` shows at `at`. */
export function authenticatorCode(secret: string, at: Date): string {
  return TOTP.generate({ secret: new TOTP({ secret }).secret, timestamp: at.getTime() });
}

/** A verified Owner with two-factor sign-in on (set up with the password); their sign-up session stays open. */
export async function ownerWithApp(api: Fetchable, db: Db, now: Date) {
  const owner = await signUpVerified(api, db);
  const started = await expectJson<{ secret: string }>(
    await call(api, "POST", "/api/TwoFactor/setup", {}, owner.accessToken),
  );
  await expectJson(
    await call(
      api,
      "POST",
      "/api/TwoFactor/confirm",
      { code: authenticatorCode(started.secret, now), password: PASSWORD },
      owner.accessToken,
    ),
  );
  return { ...owner, secret: started.secret };
}

export async function logIn(api: Fetchable, email: string, password = PASSWORD): Promise<Response> {
  return call(api, "POST", "/api/Identity/login", {
    userName: email,
    password,
    captchaToken: "captcha-token",
    isCaptchaV3: true,
  });
}
