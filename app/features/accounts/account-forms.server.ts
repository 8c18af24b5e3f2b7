// Server-only helpers of the account forms (their schemas are modules/identity/schema.ts, which the
// browser validates with too): the inputs never echoed back, and the addresses of the verify and
// reset pages.
import * as z from "zod/mini";
import { userIdField, verifyPageTokenField } from "../../../modules/identity/schema.ts";

/** Query parameters a link page needs, each with the pattern a value must match to reach the page. */
export type OpaqueQuery = Readonly<Record<string, RegExp>>;

/**
 * The query's values when each of its names is present and its first value matches the pattern
 * (what the loader and action of such a page read), else undefined. Other parameters are ignored.
 */
export function opaqueQueryValues<Names extends string>(
  params: URLSearchParams,
  query: Readonly<Record<Names, RegExp>>,
): Record<Names, string> | undefined {
  const values = {} as Record<Names, string>;
  for (const name of Object.keys(query) as Names[]) {
    const value = params.get(name);
    if (value === null || !query[name].test(value)) return undefined;
    values[name] = value;
  }
  return values;
}

/** The password inputs: never sent back into the re-rendered page. */
export const PASSWORD_FIELDS = ["password", "confirmPassword"] as const;

/**
 * The verify page's link (docs/requirements.md §S2): userId a UUID in either letter case, requestToken 1 to 200
 * characters once trimmed (the schemas' own rules, as patterns the edge can test before it serves
 * the page every such link shares).
 */
export const VERIFY_PAGE_QUERY = {
  userId: /^\s*[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\s*$/i,
  requestToken: /^\s*\S(?:[\s\S]{0,198}\S)?\s*$/,
} satisfies OpaqueQuery;

/** The reset page's link (docs/requirements.md §S2): a passwordResetToken that is not blank. */
export const RESET_PAGE_QUERY = { passwordResetToken: /\S/ } satisfies OpaqueQuery;

const verifyParamsSchema = z.object({ userId: userIdField, requestToken: verifyPageTokenField });

/** The verify page's address: both parameters present and well formed, or undefined. */
export function verifyParams(url: URL): { userId: string; requestToken: string } | undefined {
  const values = opaqueQueryValues(url.searchParams, VERIFY_PAGE_QUERY);
  const parsed = values ? verifyParamsSchema.safeParse(values) : undefined;
  return parsed?.success ? parsed.data : undefined;
}

/**
 * The verify page's parameters from the API's answer to the login of an unverified manager (the
 * problem's userId and requestToken extensions), or undefined when it carries none that fit.
 */
export function verifyParamsOf(extensions: Record<string, unknown> | undefined) {
  const parsed = extensions ? verifyParamsSchema.safeParse(extensions) : undefined;
  return parsed?.success ? parsed.data : undefined;
}

/** The reset page's token, trimmed, or undefined when the address has none. */
export function resetToken(url: URL): string | undefined {
  return opaqueQueryValues(url.searchParams, RESET_PAGE_QUERY)?.passwordResetToken.trim();
}

/** The address of the verify page for this request. */
export function verifyHref(userId: string, requestToken: string, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ userId, requestToken, ...extra });
  return `/corporate/verify?${params}`;
}
