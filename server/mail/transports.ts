import nodemailer from "nodemailer";
import type { Logger } from "../logger.ts";
import { type MailTransport, PermanentMailError } from "./port.ts";

function messageId(id: number, appUrl: string): string {
  return `<outbox-${id}@${new URL(appUrl).hostname}>`;
}

export function smtpTransport(smtpUrl: string, appUrl: string): MailTransport {
  // A pool keeps the SMTP connection open between messages: a new connection (greeting, EHLO)
  // per message cost ~130 ms against ~8 ms pooled (measured), so a 1,000-recipient
  // release took minutes to deliver. The pool reconnects by itself after an outage.
  const transporter = nodemailer.createTransport({ url: smtpUrl, pool: true });
  return {
    name: "smtp",
    // The recipient's own mailbox holds the message now: the outbox copy is redacted.
    keepsBodies: false,
    async send(email) {
      try {
        await transporter.sendMail({
          from: email.from,
          to: email.to,
          subject: email.subject,
          html: email.html,
          text: email.text,
          messageId: messageId(email.id, appUrl),
        });
      } catch (error) {
        if (isPermanentSmtpFailure(error)) throw new PermanentMailError(errorText(error), { cause: error });
        throw error;
      }
    },
    async close() {
      transporter.close();
    },
  };
}

/**
 * Whether an SMTP failure is about this message and will recur however often it is retried:
 * a 5xx reply to its recipient or its data (nodemailer sets `permanent` from the reply class
 * per RFC 5321: 5yz except 503), or an envelope nodemailer refuses before sending ("Invalid
 * recipient", "No recipients defined"). Everything else is transient: no connection, timeouts,
 * 4xx replies. So are failures of our own setup that an operator can fix within the retry window
 * without losing the queue: rejected credentials and a rejected sender (MAIL FROM).
 */
export function isPermanentSmtpFailure(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const e = error as { code?: unknown; command?: unknown; permanent?: unknown };
  if (e.code === "EAUTH" || e.command === "MAIL FROM") return false;
  if (e.permanent === true) return true;
  return e.code === "EENVELOPE" && e.command === "API";
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Local default: the message stays in the outbox table (listed at /dev/mailbox) and is logged. */
export function devMailboxTransport(logger: Logger): MailTransport {
  return {
    name: "dev-mailbox",
    // The outbox row IS this mailbox (/dev/mailbox): a local or demo user reads codes there.
    keepsBodies: true,
    async send(email) {
      logger.info(
        { emailId: email.id, to: email.to, subject: email.subject },
        "dev mailbox: email stored (see /dev/mailbox)",
      );
    },
  };
}
