// A released reward's delivery (modules/deliveries/schema.ts; the rules in modules/deliveries/service.server.ts), for any
// manager of the company:
//   GET  /RewardReleases/:releaseId                               → ReleaseDelivery
//   POST /RewardReleases/:releaseId/recipients/:userId/resend     → 204: a new password, a new email
// Another company's release, or a recipient not in it, answers 404 and changes nothing; a
// Manager's resend to an address other than the reward's first answers 403 (ADR 0022 amendment).
import { Hono, type MiddlewareHandler } from "hono";
import { requireAuth } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import type { RateLimits } from "../../server/api/rate-limits.ts";
import { idParams } from "../../server/http/validate.ts";
import { Refusal } from "../../server/refusal.ts";
import { releaseDelivery, resendRewardEmail } from "./service.server.ts";

const releaseParam = idParams({ releaseId: "release-not-found" });
const recipientParam = idParams({ releaseId: "release-not-found", userId: "recipient-not-found" });

export function deliveriesRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>, limits: RateLimits, now: () => Date) {
  return new Hono<ApiEnv>()
    .get("/RewardReleases/:releaseId", auth, releaseParam, async (c) => {
      const delivery = await releaseDelivery(deps.db, requireAuth(c), c.req.valid("param").releaseId);
      if (!delivery) throw new Refusal("release-not-found");
      return c.json(delivery);
    })
    .post("/RewardReleases/:releaseId/recipients/:userId/resend", auth, recipientParam, async (c) => {
      const { userId: actorId, companyId, clientIp } = requireAuth(c);
      const { releaseId, userId } = c.req.valid("param");
      // Each resend hashes a new password and emails an address: plenty for a person, not a script.
      await limits.perAccount("rewardResend", actorId);
      const outcome = await resendRewardEmail(
        deps.db,
        deps.config,
        { companyId, userId: actorId, clientIp },
        releaseId,
        userId,
        now(),
      );
      if (outcome === "release_not_found") throw new Refusal("release-not-found");
      if (outcome === "recipient_not_found") throw new Refusal("recipient-not-found");
      if (outcome === "owner_required") throw new Refusal("new-address-owner-only");
      deps.onEmailQueued?.();
      return c.body(null, 204);
    });
}
