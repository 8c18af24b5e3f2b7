// The RewardMyTeam calls of docs/requirements.md §S7: the caller's reward draft. Bearer-authenticated,
// scoped to the caller's company and own draft; another company's user id answers 404 and
// changes nothing. The rules live in modules/reward-drafts/service.server.ts and modules/reward-drafts/schema.ts.
//
//   POST   /RewardMyTeam/create-reward-search  { userId }        → RewardRecipient[] (the list)
//   PUT    /RewardMyTeam/update-reward         { userId, value } → RewardRecipient
//   PUT    /RewardMyTeam/update-all-reward     { value }         → RewardDraftTotals
//   PUT    /RewardMyTeam/update-reward-name    { name }          → { rewardName }
//   PUT    /RewardMyTeam/update-reward-message { message?, senderName? } → RewardMessage (not in SPEC)
//   PUT    /RewardMyTeam/update-reward-schedule { sendAt: ISO 8601 | null } → RewardSchedule (not in SPEC)
//   DELETE /RewardMyTeam/delete-reward         { userId }        → 204
//   DELETE /RewardMyTeam/delete-all-reward                       → 204
//   GET    /RewardMyTeam/get-reward                              → RewardRecipient[] newest first
//   GET    /RewardMyTeam/get-reward-page?pageNumber&pageSize     → RewardRecipientPage (not in SPEC)
//   GET    /RewardMyTeam/get-reward-summary                      → RewardSummary
//   POST   /RewardMyTeam/create-reward-user    flat NewRewardUser → CreateRewardUserResponse,
//                                              or { rewards }     → BulkRewardUploadResponse
//   POST   /RewardMyTeam/bulk-upload-reward    { rewards }        → BulkRewardUploadResponse
import { Hono, type MiddlewareHandler } from "hono";
import { z } from "zod";
import { requireAuth } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import { problemFromZod } from "../../server/api/refusals.ts";
import { BULK_JSON_BYTES, jsonBody, pageParams } from "../../server/http/validate.ts";
import { sampleRecipientEmail } from "../../server/mail/templates/rewards.ts";
import { Refusal } from "../../server/refusal.ts";
import { getMyDetails } from "../identity/service.server.ts";
import { type RewardSchedule, updateRewardScheduleSchema } from "../scheduled-sends/schema.ts";
import {
  type BulkRewardUploadResponse,
  bulkRewardSchema,
  type CreateRewardUserResponse,
  type NewRewardUserParsed,
  newRewardUserSchema,
  rewardPageQuerySchema,
  rewardUserIdSchema,
  updateAllRewardSchema,
  updateRewardMessageSchema,
  updateRewardNameSchema,
  updateRewardSchema,
} from "./schema.ts";
import {
  addNewRecipients,
  addRecipient,
  type DraftOwner,
  draftSummary,
  draftWording,
  findRecipient,
  listRecipients,
  recipientPage,
  removeAllRecipients,
  removeRecipient,
  setAllAmounts,
  setRecipientAmount,
  setRewardMessage,
  setRewardName,
  setRewardSchedule,
} from "./service.server.ts";

function parseOrThrow<S extends z.core.$ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = z.safeParse(schema, value);
  if (!parsed.success) throw problemFromZod(parsed.error);
  return parsed.data;
}

/**
 * create-reward-user's body: a flat NewRewardUser or { rewards }. Any JSON object passes here;
 * the handler picks the schema by the `rewards` key, so the field errors are that variant's.
 */
const createRewardUserBody = z.custom<z.input<typeof newRewardUserSchema> | z.input<typeof bulkRewardSchema>>();

/** get-reward-page's query; out-of-range values fall back to the defaults (rewardPageQuerySchema). */
const rewardPageQuery = pageParams(rewardPageQuerySchema);

export function rewardMyTeamRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>, now: () => Date) {
  const owner = (c: Parameters<typeof requireAuth>[0]): DraftOwner => {
    const { userId, companyId, clientIp } = requireAuth(c);
    return { userId, companyId, clientIp };
  };

  async function bulkAdd(who: DraftOwner, rows: NewRewardUserParsed[]): Promise<BulkRewardUploadResponse> {
    const result = await addNewRecipients(deps.db, who, rows, now());
    return {
      successfullyAdded: rows.length,
      newRecipients: result.newRecipients,
      updatedRecipients: result.updatedRecipients,
      newTeamMembers: result.newTeamMembers,
      recipientCount: result.recipientCount,
    };
  }

  return (
    new Hono<ApiEnv>()
      .post("/RewardMyTeam/create-reward-search", auth, jsonBody(rewardUserIdSchema), async (c) => {
        const who = owner(c);
        const { userId } = c.req.valid("json");
        await addRecipient(deps.db, who, userId, now());
        return c.json(await listRecipients(deps.db, who));
      })
      .put("/RewardMyTeam/update-reward", auth, jsonBody(updateRewardSchema), async (c) => {
        const who = owner(c);
        const { userId, value } = c.req.valid("json");
        return c.json(await setRecipientAmount(deps.db, who, userId, value, now()));
      })
      .put("/RewardMyTeam/update-all-reward", auth, jsonBody(updateAllRewardSchema), async (c) => {
        return c.json(await setAllAmounts(deps.db, owner(c), c.req.valid("json").value, now()));
      })
      .put("/RewardMyTeam/update-reward-name", auth, jsonBody(updateRewardNameSchema), async (c) => {
        return c.json({ rewardName: await setRewardName(deps.db, owner(c), c.req.valid("json").name, now()) });
      })
      /** Not in SPEC: the sender's message to every recipient and the name it is from. */
      .put("/RewardMyTeam/update-reward-message", auth, jsonBody(updateRewardMessageSchema), async (c) => {
        return c.json(await setRewardMessage(deps.db, owner(c), c.req.valid("json"), now()));
      })
      /** Not in SPEC: when the order made from the draft is released (null: once paid). */
      .put("/RewardMyTeam/update-reward-schedule", auth, jsonBody(updateRewardScheduleSchema), async (c) => {
        const { sendAt } = c.req.valid("json");
        const saved = await setRewardSchedule(deps.db, owner(c), sendAt ? new Date(sendAt) : null, now());
        if (!saved.ok) throw new Refusal(saved.refused);
        return c.json<RewardSchedule>({ sendAt: saved.sendAt });
      })
      .delete("/RewardMyTeam/delete-reward", auth, jsonBody(rewardUserIdSchema), async (c) => {
        const who = owner(c);
        const { userId } = c.req.valid("json");
        await removeRecipient(deps.db, who, userId, now());
        return c.body(null, 204);
      })
      .delete("/RewardMyTeam/delete-all-reward", auth, async (c) => {
        await removeAllRecipients(deps.db, owner(c), now());
        return c.body(null, 204);
      })
      .get("/RewardMyTeam/get-reward", auth, async (c) => c.json(await listRecipients(deps.db, owner(c))))
      .get("/RewardMyTeam/get-reward-page", auth, rewardPageQuery, async (c) => {
        const { pageNumber, pageSize } = c.req.valid("query");
        return c.json(await recipientPage(deps.db, owner(c), pageNumber, pageSize));
      })
      /** Not in SPEC: the recipient email with sample values, for the Review page's 'Sample of Email'. */
      .get("/RewardMyTeam/email-sample", auth, async (c) => {
        const me = await getMyDetails(deps.db, requireAuth(c));
        const email = sampleRecipientEmail({
          ...(await draftWording(deps.db, owner(c))),
          companyName: me?.companyName || "Your company",
          catalogueUrl: deps.config.CATALOGUE_URL,
          supportEmail: deps.config.SUPPORT_EMAIL,
          now: now(),
        });
        return c.json({ subject: email.subject, html: email.html, text: email.text });
      })
      .get("/RewardMyTeam/get-reward-summary", auth, async (c) => c.json(await draftSummary(deps.db, owner(c))))
      .post(
        "/RewardMyTeam/create-reward-user",
        auth,
        jsonBody(createRewardUserBody, { maxBytes: BULK_JSON_BYTES }),
        async (c) => {
          const who = owner(c);
          const body = c.req.valid("json");
          if ("rewards" in body) {
            const { rewards } = parseOrThrow(bulkRewardSchema, body);
            return c.json(await bulkAdd(who, rewards));
          }
          const row = parseOrThrow(newRewardUserSchema, body);
          const result = await addNewRecipients(deps.db, who, [row], now());
          const [added] = result.rows;
          const recipient = added && (await findRecipient(deps.db, who, added.memberId));
          if (!added || !recipient) throw new Error("the new recipient is not in the draft");
          // The member's names as stored: an existing member keeps theirs.
          const answer: CreateRewardUserResponse = {
            ...recipient,
            firstName: added.firstName,
            lastName: added.lastName,
            isNewTeamMember: added.isNewTeamMember,
          };
          return c.json(answer);
        },
      )
      .post(
        "/RewardMyTeam/bulk-upload-reward",
        auth,
        jsonBody(bulkRewardSchema, { maxBytes: BULK_JSON_BYTES }),
        async (c) => {
          return c.json(await bulkAdd(owner(c), c.req.valid("json").rewards));
        },
      )
  );
}
