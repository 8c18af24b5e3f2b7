// The emails of a manager's own settings: the 6-digit code that proves a new address, and the
// notice to the old address once the change is done (so a change nobody asked for is noticed
// by whoever still reads the old mailbox). The code appears only here, never in logs.
import type { EmailContent } from "../mail/port.ts";
import { renderEmail } from "../mail/templates.ts";

export function emailChangeCodeEmail(to: string, firstName: string, code: string): EmailContent {
  return {
    to,
    subject: "Confirm your new email address",
    ...renderEmail({
      heading: "Confirm your new email address",
      paragraphs: [
        `Hi ${firstName},`,
        "Enter this 6-digit code on your Profile settings page to make this your Reward Portal sign-in address. The code expires in 10 minutes and can be used once.",
        "If you did not ask for this, you can ignore this email; nothing changes.",
      ],
      details: [["Verification code", code]],
    }),
  };
}

export function emailChangedNotice(to: string, firstName: string, newEmail: string): EmailContent {
  return {
    to,
    subject: "Your sign-in email address was changed",
    ...renderEmail({
      heading: "Your email address was changed",
      paragraphs: [
        `Hi ${firstName},`,
        `Your Reward Portal account now signs in with ${newEmail}. This address will no longer receive account emails.`,
        "If you did not make this change, contact your company's Owner or our support team straight away.",
      ],
    }),
  };
}
