// The one place where a refusal of the API becomes the page's words (ADR 0039). A page names the
// kinds it expects (core/refusals.ts) and, where its words differ from the API's, its own; it
// never compares a problem's detail. The API's detail is docs/requirements.md's words for the
// kind, already made with the refusal's data (the balance, the member's name), so a page that
// lists a kind says it word for word.
import type { RefusalKind } from "../../core/refusals.ts";
import type { ApiResult } from "./api.server.ts";

type ApiFailure = Extract<ApiResult<unknown>, { ok: false }>;

/** The refusals a page says: the kinds it lists, each with the page's own words or (true) the API's. */
export type PageRefusals = { readonly [K in RefusalKind]?: string | true };

/** The kinds a page says in the API's words. */
export function inApiWords(...kinds: readonly RefusalKind[]): PageRefusals {
  return Object.fromEntries(kinds.map((kind) => [kind, true]));
}

/** Whether the failure is a refusal of this kind (or of one of these). */
export function refusedAs(failure: ApiFailure, ...kinds: readonly RefusalKind[]): boolean {
  return failure.code !== undefined && kinds.includes(failure.code);
}

/**
 * The words the page says for this failure: "any" says whatever the API answered, in its words; a list
 * says its kinds; undefined: not one the page says (it shows its generic message).
 */
export function refusalWords(failure: ApiFailure, shown: PageRefusals | "any" | undefined): string | undefined {
  if (shown === "any") return failure.detail;
  if (shown === undefined || failure.code === undefined) return undefined;
  const words = shown[failure.code];
  if (words === undefined) return undefined;
  return words === true ? failure.detail : words;
}

/** What the two-factor calls refuse (ADR 0042), said on every page that makes them. */
export const TWO_FACTOR_REFUSALS = inApiWords(
  "wrong-code",
  "code-reused",
  "wrong-recovery-code",
  "wrong-password",
  "challenge-expired",
  "challenge-ended",
  "challenge-too-many",
  "challenge-locked",
  "two-factor-already-on",
  "two-factor-not-on",
  "two-factor-setup-first",
  "two-factor-required-by-company",
);
