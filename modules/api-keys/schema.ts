// A company's API keys (ADR 0028): what an Owner posts to create one, what the API answers, and
// the messages. Shared by the provider API, the Settings → API keys page and the browser (ADR 0017).
import * as z from "zod/mini";
import { isCalendarDate } from "../audit/schema.ts";
import { apiKeyBudgetFormSchema } from "../budgets/schema.ts";

/** A key's name: what it is for ("Payroll sync"), shown in the list. */
export const API_KEY_NAME_MAX = 64;
/** A key may be made to expire at most two years ahead (ADR 0028). */
export const API_KEY_MAX_LIFETIME_MS = 2 * 366 * 24 * 60 * 60_000;
/** Every key starts so: a key is easy to recognise (a secret scanner, a log reader) and to tell from an access token. */
export const API_KEY_PREFIX = "rk_";
/** The characters of a key shown in lists (`rk_` and 8 more): enough to tell keys apart, useless to an attacker. */
export const API_KEY_SHOWN_CHARS = 11;

export const API_KEY_DETAILS = {
  nameRequired: "Name is required.",
  nameTooLong: `Name must be at most ${API_KEY_NAME_MAX} characters.`,
  expiresAtInvalid: "Expires must be a date and time in ISO 8601, such as 2027-06-30T00:00:00Z.",
  expiresAtPast: "Expires must be in the future.",
  expiresAtTooLate: "Expires must be at most two years from now.",
  expiresOnInvalid: "Expires on must be a date, such as 2027-06-30.",
  notFound: "This API key was not found.",
  unauthorized: "A valid API key is required (Authorization: Bearer rk_…). It may have been revoked or have expired.",
  orderNotFound: "The requested resource was not found.",
} as const;

/** POST /api/ApiKeys: a name, and an optional expiry (ISO 8601 with a zone; checked against the clock by the API). */
export const createApiKeySchema = z.object({
  name: z
    .string({ error: API_KEY_DETAILS.nameRequired })
    .check(
      z.trim(),
      z.minLength(1, API_KEY_DETAILS.nameRequired),
      z.maxLength(API_KEY_NAME_MAX, API_KEY_DETAILS.nameTooLong),
    ),
  expiresAt: z.optional(z.iso.datetime({ offset: true, error: API_KEY_DETAILS.expiresAtInvalid })),
});
export type CreateApiKeyRequest = z.input<typeof createApiKeySchema>;

/** Why `expiresAt` cannot be chosen at `now`, or null: in the future, at most two years ahead. */
export function apiKeyExpiryProblem(expiresAt: Date, now: Date): string | null {
  const ahead = expiresAt.getTime() - now.getTime();
  if (ahead <= 0) return API_KEY_DETAILS.expiresAtPast;
  if (ahead > API_KEY_MAX_LIFETIME_MS) return API_KEY_DETAILS.expiresAtTooLate;
  return null;
}

/** A key as GET /api/ApiKeys lists it: never the key itself. Times are ISO 8601. */
export interface ApiKeyView {
  id: number;
  name: string;
  /** The key's first characters (`rk_AbCd1234`). */
  prefix: string;
  createdAt: string;
  createdBy: { id: number; name: string };
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
  /** The key's monthly budget in cents (ADR 0034); null: unlimited. */
  monthlyBudgetCents: number | null;
}

/** POST /api/ApiKeys's answer: the only time the key is shown. */
export interface CreatedApiKey {
  id: number;
  name: string;
  prefix: string;
  key: string;
  createdAt: string;
  expiresAt: string | null;
}

// ─── Settings › API keys (app/features/settings/portal.settings.api-keys.tsx) ─────────────────

const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** The page's forms, told apart by `intent`: create (a name, and optionally the last day it works), revoke. */
export const apiKeysFormSchema = z.discriminatedUnion("intent", [
  apiKeyBudgetFormSchema,
  z.object({
    intent: z.literal("create"),
    name: createApiKeySchema.shape.name,
    /** A date field's YYYY-MM-DD: the key works to the end of that day in Sydney. */
    expiresOn: z.optional(
      z
        .string({ error: API_KEY_DETAILS.expiresOnInvalid })
        .check(
          z.regex(DAY_PATTERN, API_KEY_DETAILS.expiresOnInvalid),
          z.refine(isCalendarDate, API_KEY_DETAILS.expiresOnInvalid),
        ),
    ),
  }),
  z.object({ intent: z.literal("revoke"), apiKeyId: z.coerce.number().check(z.int(), z.positive()) }),
]);
