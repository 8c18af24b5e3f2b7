// Real email for the end-to-end tests: a second test server sends its mail
// by SMTP to a server the test run starts (smtp-app.ts: smtp-server on a loopback port, the
// messages listed over HTTP for the specs). The first test server keeps the dev mailbox, which
// other specs read.
import { expect } from "@playwright/test";

/** The test server that sends real email (see playwright.config.ts). */
export const MAIL_APP_PORT = Number(process.env.E2E_MAIL_APP_PORT ?? 3151);
/** Where smtp-app.ts lists what its SMTP server received. */
export const MAIL_API_PORT = Number(process.env.E2E_MAIL_API_PORT ?? 3152);
export const MAIL_APP_URL = `http://127.0.0.1:${MAIL_APP_PORT}`;
export const MAIL_API_URL = `http://127.0.0.1:${MAIL_API_PORT}`;

/** One message as the SMTP server received it (MIME decoded). */
export interface CaughtEmail {
  /** Envelope recipients. */
  to: string[];
  subject: string;
  text: string;
  html: string;
}

/** Every message received for `address`, oldest first. */
export async function emailsTo(address: string): Promise<CaughtEmail[]> {
  const response = await fetch(`${MAIL_API_URL}/messages?to=${encodeURIComponent(address)}`);
  if (!response.ok) throw new Error(`mail API answered ${response.status}`);
  return (await response.json()) as CaughtEmail[];
}

/** Makes the test SMTP server refuse `address` for good (550), or accept it again. */
export async function bounce(address: string, on = true): Promise<void> {
  const response = await fetch(`${MAIL_API_URL}/bounces?to=${encodeURIComponent(address)}`, {
    method: on ? "POST" : "DELETE",
  });
  if (response.status !== 204) throw new Error(`mail API answered ${response.status}`);
}

/**
 * Waits for the `count`-th message (1-based, oldest first) to `address` whose subject is
 * `subject`, and returns it. The outbox sends within a second or two.
 */
export async function waitForEmail(address: string, subject: string, count = 1): Promise<CaughtEmail> {
  let found: CaughtEmail | undefined;
  await expect
    .poll(
      async () => {
        const matching = (await emailsTo(address)).filter((m) => m.subject === subject);
        found = matching[count - 1];
        return matching.length;
      },
      { message: `email #${count} '${subject}' to ${address}`, timeout: 20_000 },
    )
    .toBeGreaterThanOrEqual(count);
  if (!found) throw new Error("unreachable");
  return found;
}

/** The 6-digit code of a verification email (its text part reads 'Verification code: 123456'). */
export function verificationCodeOf(email: CaughtEmail): string {
  const code = /Verification code:\s*(\d{6})/.exec(email.text)?.[1];
  if (!code) throw new Error(`no verification code in: ${email.text}`);
  return code;
}

/** The reset link of a password-reset email. */
export function resetLinkOf(email: CaughtEmail): URL {
  const link = /(https?:\/\/\S+\/corporate\/forgot-password\?passwordResetToken=[\w.~%-]+)/.exec(email.text)?.[1];
  if (!link) throw new Error(`no reset link in: ${email.text}`);
  return new URL(link);
}

/** The mail app's test clock: how far ahead of real time it runs (smtp-app.ts, test-clock.ts). */
export async function serverClockOffset(): Promise<number> {
  const response = await fetch(`${MAIL_API_URL}/clock`);
  if (!response.ok) throw new Error(`mail API answered ${response.status}`);
  return ((await response.json()) as { offsetMs: number }).offsetMs;
}

/**
 * Moves the mail app's clock on by `ms`, in steps of 30 seconds a few hundred milliseconds apart:
 * a sign-up of another spec in flight meanwhile loses seconds, not the 10 minutes its code lasts.
 */
export async function advanceServerClock(ms: number): Promise<void> {
  const step = 30_000;
  for (let done = 0; done < ms; done += step) {
    const response = await fetch(`${MAIL_API_URL}/clock?advanceMs=${Math.min(step, ms - done)}`, { method: "POST" });
    if (!response.ok) throw new Error(`mail API answered ${response.status}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
