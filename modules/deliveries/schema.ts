// A released reward's delivery (not in SPEC): who it went to and what became of each recipient's
// email. Pure code: the API answers it, the portal page shows it.

/** queued → (sending) → sent; retrying after a failed attempt; failed once it gives up or is refused. */
export type EmailDeliveryState = "queued" | "sending" | "sent" | "retrying" | "failed";

export const DELIVERY_STATE_LABELS: Record<EmailDeliveryState, string> = {
  queued: "Queued",
  sending: "Sending",
  sent: "Sent",
  retrying: "Retrying",
  failed: "Failed",
};

/** The API's refusals (problem+json `detail`). */
export const DELIVERY_DETAILS = {
  notFound: "Reward not found.",
  recipientNotFound: "This person did not receive this reward.",
  /** A Manager's resend to an address other than the reward's first (ADR 0022 amendment). */
  newAddressOwnerOnly:
    "This person's email address has changed since the reward was sent. Only an Owner of your company can resend it to the new address: please ask an Owner.",
} as const;

/** GET /api/RewardReleases/:releaseId: cents, ISO 8601 dates. */
export interface ReleaseDelivery {
  releaseId: number;
  rewardName: string;
  releasedAt: string;
  invoiceNumber: string | null;
  amountCents: number;
  /**
   * Whether the caller may resend to a recipient whose `emailChanged` (an Owner; a Manager's
   * resend there is refused, ADR 0022 amendment): what the delivery page offers follows it.
   */
  canResendToNewAddress: boolean;
  recipients: Array<{
    userId: number;
    name: string;
    /** The address the reward was first sent to (the order's). */
    email: string;
    /** The member's address now: where a resend goes. */
    currentEmail: string;
    /** `currentEmail` is not `email` (letter case aside): only an Owner may resend. */
    emailChanged: boolean;
    amountCents: number;
    /** The newest reward email of this release to this recipient (a resend replaces the earlier one). */
    delivery: {
      state: EmailDeliveryState;
      attempts: number;
      /** Why the last attempt failed (retrying or failed). */
      lastError: string | null;
      sentAt: string | null;
      /** The address it went to (a resend goes to the member's address as it is then). */
      to: string;
      /** How many times the manager has resent it. */
      resends: number;
    } | null;
  }>;
}

/** Whether the page should look again soon (JavaScript on): something is still on its way. */
export function deliveryInFlight(delivery: ReleaseDelivery): boolean {
  return delivery.recipients.some((r) => r.delivery && ["queued", "sending", "retrying"].includes(r.delivery.state));
}
