// The account emails: the 6-digit verification code, the password-reset link, the notice of a
// sign-in stopped at its second factor (identity.ts, two-factor.ts); a manager's new-address code and
// the notice to the old address (settings.ts); the invitation of a manager (managers.ts). Codes and
// links appear only here, never in logs.
import { INVITE_TTL_DAYS, type ManagerRole, ROLE_LABELS } from "../../../modules/managers/schema.ts";
import { email, type RenderedEmail } from "./render.ts";

export function verificationEmail(to: string, firstName: string, code: string): RenderedEmail {
  return email(to, "Your verification code", {
    heading: "Verify your email",
    paragraphs: [
      `Hi ${firstName},`,
      "Enter this 6-digit code on the verify page to confirm your email address and log in. The code expires in 10 minutes and can be used once.",
      "If you did not sign up for a Reward Portal account, you can ignore this email.",
    ],
    details: [["Verification code", code]],
  });
}

export function passwordResetEmail(to: string, firstName: string, link: string): RenderedEmail {
  return email(to, "Reset your password", {
    heading: "Reset your password",
    paragraphs: [
      `Hi ${firstName},`,
      "We received a request to reset the password of your Reward Portal account. The link below is valid for 1 hour and can be used once.",
      "If you did not ask for this, you can ignore this email; your password stays the same.",
    ],
    action: { label: "Reset Password", url: link },
  });
}

/**
 * A login challenge used up by wrong second-factor codes (ADR 0042): the password
 * was right, so whoever tried knows it. The owner is told, and pointed at a reset, which ends
 * every session and every sign-in in progress (identity.ts completePasswordReset).
 */
export function secondFactorFailuresEmail(to: string, firstName: string, resetUrl: string): RenderedEmail {
  return email(to, "Someone tried to sign in with your password", {
    heading: "Someone tried to sign in to your account",
    paragraphs: [
      `Hi ${firstName},`,
      "Just now, someone who knows your password tried to sign in to your Reward Portal account and entered the wrong two-factor code five times, so that sign-in was stopped.",
      "If this was not you, reset your password now: resetting it signs out every session and stops every sign-in in progress. Your authenticator app keeps working.",
      "If it was you, you can ignore this email.",
    ],
    action: { label: "Reset Password", url: resetUrl },
  });
}

// A manager's own settings: the code that proves a new address, and the notice to the old
// address once the change is done (so a change nobody asked for is noticed by whoever still
// reads the old mailbox).
export function emailChangeCodeEmail(to: string, firstName: string, code: string): RenderedEmail {
  return email(to, "Confirm your new email address", {
    heading: "Confirm your new email address",
    paragraphs: [
      `Hi ${firstName},`,
      "Enter this 6-digit code on your Profile settings page to make this your Reward Portal sign-in address. The code expires in 10 minutes and can be used once.",
      "If you did not ask for this, you can ignore this email; nothing changes.",
    ],
    details: [["Verification code", code]],
  });
}

export function emailChangedNotice(to: string, firstName: string, newEmail: string): RenderedEmail {
  return email(to, "Your sign-in email address was changed", {
    heading: "Your email address was changed",
    paragraphs: [
      `Hi ${firstName},`,
      `Your Reward Portal account now signs in with ${newEmail}. This address will no longer receive account emails.`,
      "If you did not make this change, contact your company's Owner or our support team straight away.",
    ],
  });
}

/** The invitation email (ADR 0022 §5): who invited them to which company, the role, the link and its lifetime. */
export function managerInviteEmail(input: {
  to: string;
  inviterName: string;
  companyName: string;
  role: ManagerRole;
  link: string;
}): RenderedEmail {
  return email(input.to, `${input.inviterName} invited you to ${input.companyName} on Reward Portal`, {
    heading: `Join ${input.companyName} on Reward Portal`,
    paragraphs: [
      "Hi,",
      `${input.inviterName} invited you to reward the team of ${input.companyName} on Reward Portal as ${input.role === "owner" ? "an Owner" : "a Manager"}.`,
      `Choose your name and password with the link below to accept. The link is valid for ${INVITE_TTL_DAYS} days and can be used once.`,
      "If you were not expecting this invitation, you can ignore this email.",
    ],
    details: [
      ["Company", input.companyName],
      ["Invited by", input.inviterName],
      ["Role", ROLE_LABELS[input.role]],
    ],
    action: { label: "Accept Invitation", url: input.link },
  });
}

/** To each Owner when someone joined the company through its single sign-on (ADR 0046, just in time). */
export function singleSignOnManagerJoinedEmail(input: {
  to: string;
  ownerFirstName: string;
  companyName: string;
  managerEmail: string;
  role: ManagerRole;
}): RenderedEmail {
  return email(input.to, `${input.managerEmail} joined ${input.companyName} through single sign-on`, {
    heading: "A new manager signed in with single sign-on",
    paragraphs: [
      `Hi ${input.ownerFirstName},`,
      `${input.managerEmail} signed in to Reward Portal for the first time with your company's identity provider and is now ${input.role === "owner" ? "an Owner" : "a Manager"} of ${input.companyName}.`,
      "You can change their role or remove them under Settings › Managers. If you did not expect this, check who your identity provider lets in.",
    ],
    details: [
      ["Company", input.companyName],
      ["Email", input.managerEmail],
      ["Role", ROLE_LABELS[input.role]],
    ],
  });
}
