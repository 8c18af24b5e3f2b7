// The reward draft calls of docs/requirements.md §S7 (RewardMyTeam/*) and their rules (§S3, §S5, §S9;
// §D5). Shared by the provider API and the web forms. Pure code only: the browser
// bundle imports this folder.
import * as z from "zod/mini";
import { emailField, firstNameField, lastNameField } from "../../core/fields.ts";
import { LIMITS, MAX_DRAFT_RECIPIENTS, REWARD_MESSAGE_MAX, REWARD_NAME_MAX } from "../../core/limits.ts";
import { MAX_REWARD_DOLLARS } from "../../core/money.ts";
import { pageQuerySchema } from "../../core/paging.ts";
import { instantField } from "../scheduled-sends/schema.ts";

export { MAX_DRAFT_RECIPIENTS, REWARD_MESSAGE_MAX, REWARD_NAME_MAX } from "../../core/limits.ts";

/** docs/requirements.md §S9: the reward table shows 7 recipients a page, newest first. */
export const REWARD_PAGE_SIZE = 7;

/** The API's refusals (problem+json `detail`), word for word. */
export const REWARD_DETAILS = {
  amountFraction: "Amount must be a whole number of Reward Dollars (no cents).",
  amountTooLarge: `Amount must be at most ${MAX_REWARD_DOLLARS.toLocaleString("en-AU")} Reward Dollars.`,
  amountType: "Amount must be a number.",
  nameRequired: "Reward Name is required.",
  nameTooLong: `Reward Name must be at most ${REWARD_NAME_MAX} characters.`,
  messageTooLong: `Message must be at most ${REWARD_MESSAGE_MAX} characters.`,
  messageControl: "Message can contain only text and line breaks.",
  senderNameTooLong: `Sender name must be at most ${LIMITS.name} characters.`,
  senderNameControl: "Sender name must be one line of text.",
  userIdRequired: "userId is required.",
  memberNotFound: "Team member not found.",
  notInDraft: "This team member is not in your reward.",
  tooManyRecipients: `A reward can have at most ${MAX_DRAFT_RECIPIENTS.toLocaleString("en-AU")} recipients.`,
  rewardsRequired: "rewards is required.",
  rewardsEmpty: "rewards must contain at least one recipient.",
  managerEmail: "This email belongs to a program manager of your company; only team members can be rewarded.",
  /** The CSV row message of docs/requirements.md §S5 (prefixed "Row N: " like the other row messages). */
  csvWrongAmount: "Wrong Reward Amount",
} as const;

export type RewardAmountResult = { ok: true; dollars: number } | { ok: false; message: string };

/** A number written as people type it: digits, one optional point, an optional exponent. */
const NUMERIC = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * docs/requirements.md §S5 amount inputs and §D5: the whole Reward Dollars a typed (or sent) value
 * stands for. Non-numeric, empty, missing or negative → 0. A fraction ("10.5") or a value over
 * 10,000 is refused with a clear message. A leading "$" and thousands commas ("$1,000") are
 * tolerated; "10.00" is 10.
 */
export function parseRewardAmount(input: unknown): RewardAmountResult {
  let value: number;
  if (typeof input === "number") {
    value = input;
  } else if (typeof input === "string") {
    const text = input
      .trim()
      .replace(/^([+-]?)\$\s*/, "$1")
      .replace(/(\d),(?=\d{3}(\D|$))/g, "$1");
    if (!NUMERIC.test(text)) return { ok: true, dollars: 0 };
    value = Number(text);
  } else {
    return { ok: true, dollars: 0 };
  }
  if (Number.isNaN(value) || value <= 0) return { ok: true, dollars: 0 };
  if (value > MAX_REWARD_DOLLARS) return { ok: false, message: REWARD_DETAILS.amountTooLarge };
  if (!Number.isInteger(value)) return { ok: false, message: REWARD_DETAILS.amountFraction };
  return { ok: true, dollars: value };
}

/**
 * The Reward Amount cell of the bulk reward CSV (docs/requirements.md §S5 calls that check ineffective; this one is
 * real): a whole number from 0 to 10,000 (a "$" and thousands commas tolerated, as spreadsheets
 * write them); a blank cell is 0 (the value is optional, docs/requirements.md §S3). Anything else is null: "Row N: Wrong Reward Amount".
 */
export function csvRewardAmount(cell: string | null | undefined): number | null {
  const text = (cell ?? "")
    .trim()
    .replace(/^\$\s*/, "")
    .replace(/(\d),(?=\d{3}(\D|$))/g, "$1");
  if (text === "") return 0;
  if (!/^\d+(\.0*)?$/.test(text)) return null;
  const value = Number(text);
  return value <= MAX_REWARD_DOLLARS ? value : null;
}

/** A `value` as the API accepts it (number, numeric text, null or missing) → whole dollars. */
export const rewardValueField = z.pipe(
  z.optional(
    z.union([z.number(), z.string().check(z.maxLength(64)), z.null()], {
      error: REWARD_DETAILS.amountType,
    }),
  ),
  z.transform((value, ctx) => {
    const parsed = parseRewardAmount(value);
    if (parsed.ok) return parsed.dollars;
    ctx.issues.push({ code: "custom", message: parsed.message, input: value });
    return z.NEVER;
  }),
);

const userIdField = z
  .number({ error: REWARD_DETAILS.userIdRequired })
  .check(
    z.int(REWARD_DETAILS.userIdRequired),
    z.positive(REWARD_DETAILS.userIdRequired),
    z.maximum(Number.MAX_SAFE_INTEGER, REWARD_DETAILS.userIdRequired),
  );

/** POST create-reward-search and DELETE delete-reward: { userId }. */
export const rewardUserIdSchema = z.object({ userId: userIdField });
export type RewardUserIdRequest = z.input<typeof rewardUserIdSchema>;

/** PUT update-reward: { userId, value }. */
export const updateRewardSchema = z.object({ userId: userIdField, value: rewardValueField });
export type UpdateRewardRequest = z.input<typeof updateRewardSchema>;

/** PUT update-all-reward: { value }. */
export const updateAllRewardSchema = z.object({ value: rewardValueField });
export type UpdateAllRewardRequest = z.input<typeof updateAllRewardSchema>;

/** The reward name (docs/requirements.md §S3): trimmed, required, at most 100 characters. */
export const rewardNameField = z
  .string({ error: REWARD_DETAILS.nameRequired })
  .check(
    z.trim(),
    z.minLength(1, REWARD_DETAILS.nameRequired),
    z.maxLength(REWARD_NAME_MAX, REWARD_DETAILS.nameTooLong),
  );

/** PUT update-reward-name: { name }. */
export const updateRewardNameSchema = z.object({ name: rewardNameField });
export type UpdateRewardNameRequest = z.input<typeof updateRewardNameSchema>;

// Control characters (Unicode's Cc) other than a line break or a tab: nothing a person types.
const CONTROL = /[^\P{Cc}\n\t]/u;
const LINE_BREAK_OR_CONTROL = /\p{Cc}/u;

/** A text field checked after it is tidied (each check gives its message, or passes). */
function tidiedText(tidy: (text: string) => string, checks: Array<(text: string) => string | null>) {
  return z.pipe(
    z.optional(z.string()),
    z.transform((value, ctx) => {
      const text = tidy(value ?? "");
      for (const check of checks) {
        const message = check(text);
        if (message) {
          ctx.issues.push({ code: "custom", message, input: value });
          return z.NEVER;
        }
      }
      return text;
    }),
  );
}

/**
 * The sender's message to the recipients: optional plain text, Windows line ends made "\n",
 * trimmed, at most REWARD_MESSAGE_MAX characters. Shown escaped everywhere it appears.
 */
export const rewardMessageField = tidiedText(
  (text) => text.replace(/\r\n?/g, "\n").trim(),
  [
    (text) => (text.length > REWARD_MESSAGE_MAX ? REWARD_DETAILS.messageTooLong : null),
    (text) => (CONTROL.test(text) ? REWARD_DETAILS.messageControl : null),
  ],
);

/** Who the recipients' email says the reward is from; blank: the manager's own name. One line. */
export const senderNameField = tidiedText(
  (text) => text.trim(),
  [
    (text) => (text.length > LIMITS.name ? REWARD_DETAILS.senderNameTooLong : null),
    (text) => (LINE_BREAK_OR_CONTROL.test(text) ? REWARD_DETAILS.senderNameControl : null),
  ],
);

/** PUT update-reward-message (not in SPEC): { message?, senderName? }, both replaced. */
export const updateRewardMessageSchema = z.object({ message: rewardMessageField, senderName: senderNameField });
export type UpdateRewardMessageRequest = z.input<typeof updateRewardMessageSchema>;

/**
 * What the recipients' email says and when it goes, sent with the payment or the approval request
 * that freezes it (`wording` of create-payment-intent, create-checkout-session and
 * Approvals/request): saved to the draft in the same transaction, by the same rules as the three
 * update calls above, so one Pay post is one call and the order cannot freeze older words.
 */
export const rewardWordingSchema = z.object({
  rewardName: rewardNameField,
  message: rewardMessageField,
  senderName: senderNameField,
  sendAt: z.nullable(instantField),
});
export type RewardWording = z.output<typeof rewardWordingSchema>;

/** PUT update-reward-message: what the draft now holds; senderName is resolved (never blank). */
export interface RewardMessage {
  message: string;
  senderName: string;
}

/** A new team member to reward (docs/requirements.md §S3, §S5 reward single add): the team rules plus a value. */
export const newRewardUserSchema = z.object({
  firstName: firstNameField,
  lastName: lastNameField,
  email: emailField,
  value: rewardValueField,
});
export type NewRewardUser = z.input<typeof newRewardUserSchema>;
export type NewRewardUserParsed = z.output<typeof newRewardUserSchema>;

/**
 * The bulk variant ({ rewards: [...] }, docs/requirements.md §S7): 1 to 5,000 rows, each checked like the single
 * form; a row's message reads "Row N: <message>" (N from 1). An email repeated within the list
 * (any letter case) is refused ("Row N: ...") rather than guessed at: which amount was meant?
 */
export const bulkRewardSchema = z.object({
  rewards: z.pipe(
    z
      .array(z.unknown(), { error: REWARD_DETAILS.rewardsRequired })
      .check(
        z.minLength(1, REWARD_DETAILS.rewardsEmpty),
        z.maxLength(
          MAX_DRAFT_RECIPIENTS,
          `A file can hold at most ${MAX_DRAFT_RECIPIENTS.toLocaleString("en-AU")} recipients.`,
        ),
      ),
    z.transform((rows, ctx) => {
      const parsed: NewRewardUserParsed[] = [];
      const firstRowOf = new Map<string, number>();
      rows.forEach((row, index) => {
        const n = index + 1;
        const result = newRewardUserSchema.safeParse(row ?? {});
        if (!result.success) {
          for (const issue of result.error.issues) {
            ctx.issues.push({
              code: "custom",
              path: [index, ...issue.path],
              message: `Row ${n}: ${issue.message}`,
              input: row,
            });
          }
          return;
        }
        const key = result.data.email.toLowerCase();
        const first = firstRowOf.get(key);
        if (first !== undefined) {
          ctx.issues.push({
            code: "custom",
            path: [index, "email"],
            message: duplicateRowMessage(n, first),
            input: row,
          });
          return;
        }
        firstRowOf.set(key, n);
        parsed.push(result.data);
      });
      return parsed;
    }),
  ),
});
export type BulkRewardRequest = { rewards: NewRewardUser[] };

export function duplicateRowMessage(row: number, firstRow: number): string {
  return `Row ${row}: Email Address repeats row ${firstRow}; list each recipient once.`;
}

/** GET get-reward-page query (not in SPEC): one page of the table, newest first; lenient (core/paging.ts). */
export const rewardPageQuerySchema = pageQuerySchema({ pageSize: REWARD_PAGE_SIZE });

// ─── Answers ─────────────────────────────────────────────────────────────────────────────────

/** A recipient row (docs/requirements.md §S3): reward is whole Reward Dollars (never null from this API). */
export interface RewardRecipient {
  userId: number;
  fullName: string;
  email: string;
  reward: number;
}

/** GET get-reward-page: a page of the table plus the footer figures. */
export interface RewardRecipientPage {
  items: RewardRecipient[];
  totalPages: number;
  hasPreviousPage: boolean;
  hasNextPage: boolean;
  pageNumber: number;
  /** Total Recipients: N */
  totalCount: number;
  /** Total Reward Dollars (ex GST), in dollars. */
  totalRewards: number;
}

/** PUT update-all-reward: the footer figures after the change. */
export interface RewardDraftTotals {
  recipientCount: number;
  totalRewards: number;
}

/**
 * GET get-reward-summary (docs/requirements.md §S3 plus rewardName, recipientCount, version): dollars as numbers
 * with two decimals (111 for $111.00), computed by core/money.ts.
 */
export interface RewardSummary {
  rewards: Array<{ userId: number; fullName: string; reward: number }>;
  totalRewards: number;
  serviceFee: number;
  gst: number;
  total: number;
  rewardName: string;
  /** The sender's message to every recipient ('' for none). */
  message: string;
  /** The name the recipients' email gives as the sender: the one set, else the manager's. */
  senderName: string;
  /** When the rewards are to be sent (ISO 8601); null: as soon as they are paid. */
  sendAt: string | null;
  recipientCount: number;
  /** Bumped by every change of the draft: a payment is created for one version. */
  version: number;
}

/** POST create-reward-user (single form): the recipient row, and whether the member is new. */
export interface CreateRewardUserResponse extends RewardRecipient {
  firstName: string;
  lastName: string;
  isNewTeamMember: boolean;
}

/** POST bulk-upload-reward and create-reward-user with { rewards }. */
export interface BulkRewardUploadResponse {
  /** Rows now in the draft with their value: newRecipients + updatedRecipients. */
  successfullyAdded: number;
  /** Rows added to the draft. */
  newRecipients: number;
  /** Rows whose member was already in the draft: the amount was replaced. */
  updatedRecipients: number;
  /** Team members created because the email was new to the company. */
  newTeamMembers: number;
  /** The draft's recipients after the upload. */
  recipientCount: number;
}
