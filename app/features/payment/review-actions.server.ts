// The Review & Pay page's action (portal.reward-my-team-review.tsx): the Pay post (simulated card,
// Stripe's Payment Element or Checkout), "Pay from the company balance" (ADR 0043),
// "Request approval", and saving the message for the email preview. Each Pay post is at most two API calls: the payment (or the approval request), which
// saves the wording and freezes the draft in one transaction (modules/reward-drafts/schema.ts
// rewardWordingSchema), then, for the simulated card, the card's confirmation.
import { redirect } from "react-router";
import {
  payOrderSchema,
  requestApprovalSchema,
  saveMessageSchema,
  simulatedPaySchema,
  stripePaySchema,
} from "../../../modules/orders/card-form.ts";
import {
  type PostedForm,
  readPostedForm,
  replyBanner,
  replyFields,
  replyInvalid,
  unknownIntent,
} from "../../lib/forms.server.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
import { requireOnboardedUser } from "../portal/portal.server.ts";
import type { Route } from "./+types/portal.reward-my-team-review";
import { CARD_SECRET_FIELDS, followSimulatedCard, normalisedCard, sendAtOf } from "./payment.server.ts";
import {
  CONFIRMATION_PATH,
  EMAIL_SAMPLE_PATH,
  PAY_INTENTS,
  PAYMENT_TEXT,
  REVIEW_PATH,
  SAVE_MESSAGE_FIELD,
  SAVE_MESSAGE_THEN,
} from "./payment.ts";

/** The review page's own replies never echo the card's secrets. */
const hideFields = CARD_SECRET_FIELDS;

export async function reviewAction({ context, request }: Route.ActionArgs) {
  const { api: client } = requireOnboardedUser(context);
  const form = await readPostedForm(context, request);
  // The message's own save (the preview link, the tooltip) is told apart by its field.
  if (form.has(SAVE_MESSAGE_FIELD)) return saveMessage(form, client);
  switch (form.intent) {
    case PAY_INTENTS.pay:
      return paySimulated(form, client);
    case PAY_INTENTS.requestApproval:
      return askForApproval(context, form, client);
    case PAY_INTENTS.payOrder:
      return payOrder(form, client);
    case PAY_INTENTS.checkout:
    case PAY_INTENTS.stripeIntent:
      return payWithStripe(form, client);
    default:
      return unknownIntent();
  }
}

type Client = Awaited<ReturnType<typeof requireOnboardedUser>>["api"];
type Context = Route.ActionArgs["context"];

/** What the recipients' email says and when it goes, as posted: saved to the draft before the order freezes it. */
type Wording = { rewardName: string; message: string; senderName: string; sendAt: string | null };

/** A refusal of the API: next to the send time when it is about it, else in the banner. */
function refusalReply(
  submission: Parameters<typeof replyInvalid>[0],
  refused: { status: number; detail: string; errors?: Record<string, string[]> },
) {
  const sendAt = refused.errors?.sendAt?.[0];
  if (sendAt) return replyFields(submission, { sendAt: [sendAt] }, { hideFields });
  return replyBanner(submission, refused.detail || PAYMENT_TEXT.paymentError, {
    status: refusalStatus(refused.status),
    hideFields,
  });
}

/** 'Preview the email' (then the sample page) or the tooltip's save (then an answer in place). */
async function saveMessage(form: PostedForm, client: Client) {
  const { submission } = form.parse(saveMessageSchema);
  if (submission.status !== "success") return replyInvalid(submission, false, { hideFields: CARD_SECRET_FIELDS });
  const { message, senderName } = submission.value;
  const saved = await client.call((api) =>
    api.RewardMyTeam["update-reward-message"].$put({ json: { message, senderName } }),
  );
  if (!saved.ok) return replyBanner(submission, saved.detail, { hideFields });
  if (submission.value[SAVE_MESSAGE_FIELD] === SAVE_MESSAGE_THEN.preview) throw redirect(EMAIL_SAMPLE_PATH);
  return { saved: saved.data };
}

/**
 * The payment for the total the page showed, with the wording it freezes: one call, which saves
 * the wording to the draft and freezes it in one transaction (modules/reward-drafts/schema.ts rewardWordingSchema).
 */
function createPayment(client: Client, wording: Wording, amountCents: number) {
  return client.call((api) =>
    api.StripePayment["create-payment-intent"].$post({
      json: { amount: amountCents, rewardName: wording.rewardName, wording },
    }),
  );
}

function wordingOf(value: Omit<Wording, "sendAt"> & { sendWhen: "now" | "later"; sendAt: string }): Wording {
  return {
    rewardName: value.rewardName.trim(),
    message: value.message,
    senderName: value.senderName,
    sendAt: sendAtOf(value),
  };
}

/** 409 (the draft changed since the page was shown) is kept: it makes the page reload its figures. */
function refusalStatus(status: number) {
  return status === 409 ? 409 : 400;
}

async function paySimulated(form: PostedForm, client: Client) {
  const { submission } = form.parse(simulatedPaySchema);
  if (submission.status !== "success") return replyInvalid(submission, false, { hideFields: CARD_SECRET_FIELDS });
  const { amount } = submission.value;
  const created = await createPayment(client, wordingOf(submission.value), amount);
  if (!created.ok) return refusalReply(submission, created);
  const { paymentIntentId, clientSecret } = created.data;
  const confirmed = await client.call((api) =>
    api.StripePayment["confirm-simulated-payment"].$post({
      json: { paymentIntent: paymentIntentId, clientSecret, ...normalisedCard(submission.value) },
    }),
  );
  if (!confirmed.ok) {
    const status = confirmed.status === 409 ? 409 : 402;
    return replyBanner(submission, confirmed.detail || PAYMENT_TEXT.paymentError, { status, hideFields });
  }
  // A declined card (or a field the processor refused) is answered 200 with status failed.
  const outcome = confirmed.data as typeof confirmed.data & { status: string; message?: string; field?: string };
  followSimulatedCard(created.data, outcome.status);
  const message = outcome.message || PAYMENT_TEXT.paymentError;
  if (outcome.field && outcome.field !== "cardNumber")
    return replyFields(submission, { [outcome.field]: [message] }, { hideFields });
  return replyBanner(submission, message, { status: 402, hideFields });
}

async function payWithStripe(form: PostedForm, client: Client) {
  const { submission } = form.parse(stripePaySchema);
  if (submission.status !== "success") return replyInvalid(submission);
  const { amount, intent } = submission.value;
  const wording = wordingOf(submission.value);
  switch (intent) {
    case PAY_INTENTS.stripeIntent: {
      const created = await createPayment(client, wording, amount);
      if (!created.ok) return refusalReply(submission, created);
      return { clientSecret: created.data.clientSecret };
    }
    case PAY_INTENTS.checkout: {
      const json = { amount, rewardName: wording.rewardName, wording };
      const session = await client.call((api) => api.StripePayment["create-checkout-session"].$post({ json }));
      if (!session.ok) return refusalReply(submission, session);
      throw redirect(session.data.url);
    }
    default:
      return unknownIntent();
  }
}

/**
 * "Pay from the company balance": one call, which saves the wording, freezes the draft, charges the
 * balance and releases (or schedules) the order; then the confirmation page for that order. A
 * short balance (402) or a card payment already under way (409) is shown in the banner.
 */
async function payOrder(form: PostedForm, client: Client) {
  const { submission } = form.parse(payOrderSchema);
  if (submission.status !== "success") return replyInvalid(submission, false, { hideFields: CARD_SECRET_FIELDS });
  const wording = wordingOf(submission.value);
  const paid = await client.call((api) =>
    api.Balance["pay-order"].$post({
      json: { amount: submission.value.amount, rewardName: wording.rewardName, wording },
    }),
  );
  if (!paid.ok) return refusalReply(submission, paid);
  throw redirect(`${CONFIRMATION_PATH}?${new URLSearchParams({ order: String(paid.data.orderId) })}`);
}

/** "Request approval": saves the reward name, then freezes the draft for an Owner (no payment). */
async function askForApproval(context: Context, form: PostedForm, client: Client) {
  const { submission } = form.parse(requestApprovalSchema);
  if (submission.status !== "success") return replyInvalid(submission);
  const wording = wordingOf(submission.value);
  const asked = await client.call((api) =>
    api.Approvals.request.$post({ json: { amount: submission.value.amount, rewardName: wording.rewardName, wording } }),
  );
  if (!asked.ok) return refusalReply(submission, asked);
  return redirectWithToast(context, REVIEW_PATH, {
    type: "success",
    title: "Approval requested",
    description: "The Owners of your company have been emailed. You can pay once one of them approves.",
  });
}

// Keep what is on screen after a failed post (the card entries, the error next to them); a
// refusal because the draft changed is the one answer that brings fresh figures.
// The sample tooltip's save changes nothing the page shows (and a reload would replace the page,
// tooltip and all, with 'Loading rewards...').
