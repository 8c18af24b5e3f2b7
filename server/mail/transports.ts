import nodemailer from "nodemailer";
import type { Logger } from "../logger.ts";
import type { MailTransport } from "./port.ts";

function messageId(id: number, appUrl: string): string {
  return `<outbox-${id}@${new URL(appUrl).hostname}>`;
}

export function smtpTransport(smtpUrl: string, appUrl: string): MailTransport {
  const transporter = nodemailer.createTransport(smtpUrl);
  return {
    name: "smtp",
    async send(email) {
      await transporter.sendMail({
        from: email.from,
        to: email.to,
        subject: email.subject,
        html: email.html,
        text: email.text,
        messageId: messageId(email.id, appUrl),
      });
    },
    async close() {
      transporter.close();
    },
  };
}

/** Local default: the message stays in the outbox table (listed at /dev/mailbox) and is logged. */
export function devMailboxTransport(logger: Logger): MailTransport {
  return {
    name: "dev-mailbox",
    async send(email) {
      logger.info(
        { emailId: email.id, to: email.to, subject: email.subject },
        "dev mailbox: email stored (see /dev/mailbox)",
      );
    },
  };
}
