// The catalogue partner's call (issue "expiry that is real"; rules in modules/lots/service.server.ts):
//   POST /Redemptions { accessCode, amountCents, idempotencyKey }
//     → 201 { redemptionId, amountCents, balanceCents, lots: [{ lotId, amountCents, expiresAt }] }
//     → 200 with the very same body when the key was used before for the same access code and amount
//       (a replay changes nothing); 409 when it was used for another request
//     → 404 unknown access code; 422 more than the recipient's balance (nothing changes)
// Authenticated by the partner's key from configuration (PARTNER_API_KEY), sent as
// `Authorization: Bearer <key>`, never by a manager's token: without the right key (or with no
// key configured) every request answers 401. The comparison takes the same time whatever the key.
import { createHash, timingSafeEqual } from "node:crypto";
import { Hono, type MiddlewareHandler } from "hono";
import { z } from "zod";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import { clientKey, type RateLimits } from "../../server/api/rate-limits.ts";
import { ProblemError } from "../../server/http/problem.ts";
import { documented } from "../../server/http/route-doc.ts";
import { jsonBody } from "../../server/http/validate.ts";
import { MAX_REDEMPTION_CENTS, redeem } from "./service.server.ts";

export const REDEMPTION_DETAILS = {
  unauthorized: "A valid partner key is required (Authorization: Bearer <key>).",
  notFound: "No reward account has this access code.",
  insufficient: "The amount is more than the recipient's balance of Reward Dollars.",
  keyReused: "This idempotencyKey was already used for a different redemption.",
  accessCode: "accessCode must be the recipient's access code.",
  amountCents: `amountCents must be a whole number of cents from 1 to ${MAX_REDEMPTION_CENTS}.`,
  idempotencyKey: "idempotencyKey must be 1 to 255 printable characters without spaces.",
} as const;

export const redemptionRequestSchema = z.object({
  accessCode: z
    .string({ error: REDEMPTION_DETAILS.accessCode })
    .trim()
    .min(1, REDEMPTION_DETAILS.accessCode)
    .max(64, REDEMPTION_DETAILS.accessCode),
  amountCents: z
    .number({ error: REDEMPTION_DETAILS.amountCents })
    .int(REDEMPTION_DETAILS.amountCents)
    .min(1, REDEMPTION_DETAILS.amountCents)
    .max(MAX_REDEMPTION_CENTS, REDEMPTION_DETAILS.amountCents),
  idempotencyKey: z
    .string({ error: REDEMPTION_DETAILS.idempotencyKey })
    .regex(/^[\x21-\x7e]{1,255}$/, REDEMPTION_DETAILS.idempotencyKey),
});

const digest = (text: string) => createHash("sha256").update(text).digest();

/** The partner's key check: a Bearer token equal to PARTNER_API_KEY, compared in constant time. */
function partnerAuth(key: string | undefined, limits: RateLimits): MiddlewareHandler<ApiEnv> {
  const expected = key ? digest(key) : undefined;
  // Marked for the OpenAPI document of /api (server/http/route-doc.ts).
  return documented<MiddlewareHandler<ApiEnv>>(
    async (c, next) => {
      const header = c.req.header("authorization") ?? "";
      const given = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
      // Hashing both sides gives equal lengths, so timingSafeEqual compares every byte.
      const ok = expected !== undefined && given !== undefined && timingSafeEqual(digest(given), expected);
      if (!ok) {
        // Wrong keys are counted per client address (the right one never is): 429 once spent.
        await limits.perAccount("partnerKeyFailure", clientKey(c.get("clientIp")));
        throw new ProblemError(401, REDEMPTION_DETAILS.unauthorized);
      }
      await limits.perAccount("partnerRedemption", "partner");
      await next();
    },
    { security: "partner" },
  );
}

export function redemptionsRoutes(deps: ApiDeps, limits: RateLimits, now: () => Date) {
  return new Hono<ApiEnv>().post(
    "/Redemptions",
    partnerAuth(deps.config.PARTNER_API_KEY, limits),
    jsonBody(redemptionRequestSchema),
    async (c) => {
      const body = c.req.valid("json");
      const outcome = await redeem(deps.db, { ...body, now: now() });
      switch (outcome.kind) {
        case "redeemed":
          return c.json(outcome.redemption, 201);
        case "replayed":
          return c.json(outcome.redemption, 200, { "idempotent-replayed": "true" });
        case "not_found":
          throw new ProblemError(404, REDEMPTION_DETAILS.notFound);
        case "insufficient":
          throw new ProblemError(422, REDEMPTION_DETAILS.insufficient, undefined, {
            balanceCents: outcome.balanceCents,
          });
        case "key_reused":
          throw new ProblemError(409, REDEMPTION_DETAILS.keyReused);
      }
    },
  );
}
