// Server-only helpers of the account forms (their schemas are core/account-forms.ts, which the
// browser validates with too): the inputs never echoed back, and the verify page's address.
import * as z from "zod/mini";
import { userIdField, verifyPageTokenField } from "../../../core/account-forms.ts";

/** The password inputs: never sent back into the re-rendered page. */
export const PASSWORD_FIELDS = ["password", "confirmPassword"] as const;

const verifyParamsSchema = z.object({ userId: userIdField, requestToken: verifyPageTokenField });

/** The verify page's address: both parameters present and well formed, or undefined. */
export function verifyParams(url: URL): { userId: string; requestToken: string } | undefined {
  const parsed = verifyParamsSchema.safeParse({
    userId: url.searchParams.get("userId") ?? undefined,
    requestToken: url.searchParams.get("requestToken") ?? undefined,
  });
  return parsed.success ? parsed.data : undefined;
}

/** The address of the verify page for this request. */
export function verifyHref(userId: string, requestToken: string, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams({ userId, requestToken, ...extra });
  return `/corporate/verify?${params}`;
}
