// The account emails: the 6-digit verification code and the password-reset link. Each has an
// HTML and a plain-text part (renderEmail). The code and the link appear only here, never in logs.
import type { EmailContent } from "../mail/port.ts";
import { renderEmail } from "../mail/templates.ts";

export function verificationEmail(to: string, firstName: string, code: string): EmailContent {
  return {
    to,
    subject: "Your verification code",
    ...renderEmail({
      heading: "Verify your email",
      paragraphs: [
        `Hi ${firstName},`,
        "Enter this 6-digit code on the verify page to confirm your email address and log in. The code expires in 10 minutes and can be used once.",
        "If you did not sign up for a Reward Portal account, you can ignore this email.",
      ],
      details: [["Verification code", code]],
    }),
  };
}

export function passwordResetEmail(to: string, firstName: string, link: string): EmailContent {
  return {
    to,
    subject: "Reset your password",
    ...renderEmail({
      heading: "Reset your password",
      paragraphs: [
        `Hi ${firstName},`,
        "We received a request to reset the password of your Reward Portal account. The link below is valid for 1 hour and can be used once.",
        "If you did not ask for this, you can ignore this email; your password stays the same.",
      ],
      action: { label: "Reset Password", url: link },
    }),
  };
}

/**
 * A login challenge used up by wrong second-factor codes (ADR 0023's Amendments): the password
 * was right, so whoever tried knows it. The owner is told, and pointed at a reset, which ends
 * every session and every sign-in in progress (identity.ts completePasswordReset).
 */
export function secondFactorFailuresEmail(to: string, firstName: string, resetUrl: string): EmailContent {
  return {
    to,
    subject: "Someone tried to sign in with your password",
    ...renderEmail({
      heading: "Someone tried to sign in to your account",
      paragraphs: [
        `Hi ${firstName},`,
        "Just now, someone who knows your password tried to sign in to your Reward Portal account and entered the wrong two-factor code five times, so that sign-in was stopped.",
        "If this was not you, reset your password now: resetting it signs out every session and stops every sign-in in progress. Your authenticator app keeps working.",
        "If it was you, you can ignore this email.",
      ],
      action: { label: "Reset Password", url: resetUrl },
    }),
  };
}
