// The RewardMyTeam calls of SPEC §7: the caller's reward draft. Bearer-authenticated,
// scoped to the caller's company and own draft; another company's user id answers 404 and
// changes nothing. The rules live in server/domain/reward-draft.ts and core/rewards.ts.
//
//   POST   /RewardMyTeam/create-reward-search  { userId }        → RewardRecipient[] (the list)
//   PUT    /RewardMyTeam/update-reward         { userId, value } → RewardRecipient
//   PUT    /RewardMyTeam/update-all-reward     { value }         → RewardDraftTotals
//   PUT    /RewardMyTeam/update-reward-name    { name }          → { rewardName }
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
import {
  type BulkRewardUploadResponse,
  bulkRewardSchema,
  type CreateRewardUserResponse,
  type NewRewardUserParsed,
  newRewardUserSchema,
  REWARD_DETAILS,
  rewardPageQuerySchema,
  rewardUserIdSchema,
  updateAllRewardSchema,
  updateRewardNameSchema,
  updateRewardSchema,
} from "../../core/rewards.ts";
import { getMyDetails } from "../domain/identity.ts";
import {
  addNewRecipients,
  addRecipient,
  DraftError,
  type DraftOwner,
  draftSummary,
  findRecipient,
  listRecipients,
  recipientPage,
  removeAllRecipients,
  removeRecipient,
  setAllAmounts,
  setRecipientAmount,
  setRewardName,
} from "../domain/reward-draft.ts";
import { ProblemError, problemFromZod } from "../http/problem.ts";
import { BULK_JSON_BYTES, jsonBody } from "../http/validate.ts";
import { sampleRecipientEmail } from "../mail/reward-emails.ts";
import { requireAuth } from "./auth.ts";
import type { ApiDeps, ApiEnv } from "./deps.ts";

/** A refusal of the domain as problem+json. */
function problemOf(error: DraftError): ProblemError {
  switch (error.kind) {
    case "member_not_found":
      return new ProblemError(404, REWARD_DETAILS.memberNotFound);
    case "not_in_draft":
      return new ProblemError(404, REWARD_DETAILS.notInDraft);
    case "too_many":
      return new ProblemError(400, REWARD_DETAILS.tooManyRecipients);
    case "manager_email":
      return new ProblemError(
        400,
        error.row !== undefined ? `Row ${error.row}: ${REWARD_DETAILS.managerEmail}` : REWARD_DETAILS.managerEmail,
      );
  }
}

async function refusing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DraftError) throw problemOf(error);
    throw error;
  }
}

function parseOrThrow<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw problemFromZod(parsed.error);
  return parsed.data;
}

/** Any JSON object: create-reward-user picks its variant by the `rewards` key. */
const bodyObject = z.record(z.string(), z.unknown());

export function rewardMyTeamRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>, now: () => Date) {
  const api = new Hono<ApiEnv>();
  const owner = (c: Parameters<typeof requireAuth>[0]): DraftOwner => {
    const { userId, companyId } = requireAuth(c);
    return { userId, companyId };
  };

  async function bulkAdd(who: DraftOwner, rows: NewRewardUserParsed[]): Promise<BulkRewardUploadResponse> {
    const result = await refusing(() => addNewRecipients(deps.db, who, rows, now()));
    return {
      successfullyAdded: rows.length,
      newRecipients: result.newRecipients,
      updatedRecipients: result.updatedRecipients,
      newTeamMembers: result.newTeamMembers,
      recipientCount: result.recipientCount,
    };
  }

  api.post("/RewardMyTeam/create-reward-search", auth, async (c) => {
    const who = owner(c);
    const { userId } = await jsonBody(c, rewardUserIdSchema);
    await refusing(() => addRecipient(deps.db, who, userId, now()));
    return c.json(await listRecipients(deps.db, who));
  });

  api.put("/RewardMyTeam/update-reward", auth, async (c) => {
    const who = owner(c);
    const { userId, value } = await jsonBody(c, updateRewardSchema);
    return c.json(await refusing(() => setRecipientAmount(deps.db, who, userId, value, now())));
  });

  api.put("/RewardMyTeam/update-all-reward", auth, async (c) => {
    const who = owner(c);
    const { value } = await jsonBody(c, updateAllRewardSchema);
    return c.json(await setAllAmounts(deps.db, who, value, now()));
  });

  api.put("/RewardMyTeam/update-reward-name", auth, async (c) => {
    const who = owner(c);
    const { name } = await jsonBody(c, updateRewardNameSchema);
    return c.json({ rewardName: await setRewardName(deps.db, who, name, now()) });
  });

  api.delete("/RewardMyTeam/delete-reward", auth, async (c) => {
    const who = owner(c);
    const { userId } = await jsonBody(c, rewardUserIdSchema);
    await refusing(() => removeRecipient(deps.db, who, userId, now()));
    return c.body(null, 204);
  });

  api.delete("/RewardMyTeam/delete-all-reward", auth, async (c) => {
    await removeAllRecipients(deps.db, owner(c), now());
    return c.body(null, 204);
  });

  api.get("/RewardMyTeam/get-reward", auth, async (c) => c.json(await listRecipients(deps.db, owner(c))));

  api.get("/RewardMyTeam/get-reward-page", auth, async (c) => {
    const who = owner(c);
    const { pageNumber, pageSize } = rewardPageQuerySchema.parse({
      pageNumber: c.req.query("pageNumber"),
      pageSize: c.req.query("pageSize"),
    });
    return c.json(await recipientPage(deps.db, who, pageNumber, pageSize));
  });

  /** Not in SPEC: the recipient email with sample values, for the Review page's 'Sample of Email'. */
  api.get("/RewardMyTeam/email-sample", auth, async (c) => {
    const me = await getMyDetails(deps.db, requireAuth(c));
    const email = sampleRecipientEmail({
      companyName: me?.companyName || "Your company",
      catalogueUrl: deps.config.CATALOGUE_URL,
      supportEmail: deps.config.SUPPORT_EMAIL,
      now: now(),
    });
    return c.json({ subject: email.subject, html: email.html, text: email.text });
  });

  api.get("/RewardMyTeam/get-reward-summary", auth, async (c) => c.json(await draftSummary(deps.db, owner(c))));

  api.post("/RewardMyTeam/create-reward-user", auth, async (c) => {
    const who = owner(c);
    const body = await jsonBody(c, bodyObject, { maxBytes: BULK_JSON_BYTES });
    if ("rewards" in body) {
      const { rewards } = parseOrThrow(bulkRewardSchema, body);
      return c.json(await bulkAdd(who, rewards));
    }
    const row = parseOrThrow(newRewardUserSchema, body);
    const result = await refusing(() => addNewRecipients(deps.db, who, [row], now()));
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
  });

  api.post("/RewardMyTeam/bulk-upload-reward", auth, async (c) => {
    const who = owner(c);
    const { rewards } = await jsonBody(c, bulkRewardSchema, { maxBytes: BULK_JSON_BYTES });
    return c.json(await bulkAdd(who, rewards));
  });

  return api;
}
