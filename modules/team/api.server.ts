// The Users calls of docs/requirements.md §S7: GET /Users/MyDetails (accounts) and My Team (§S2): GET /Users,
// POST /Users/create-user, POST /Users/create-user-bulk-upload, PUT and DELETE /Users/{id}.
// Always the caller's company; another company's member answers 404 and changes nothing.
import { Hono, type MiddlewareHandler } from "hono";
import { pageQuerySchema } from "../../core/paging.ts";
import { DETAILS } from "../../core/public-forms.ts";
import { requireAuth } from "../../server/api/auth.ts";
import type { ApiDeps, ApiEnv } from "../../server/api/deps.ts";
import { ProblemError } from "../../server/http/problem.ts";
import { BULK_JSON_BYTES, idParams, jsonBody, pageOf, queryParams } from "../../server/http/validate.ts";
import { Refusal } from "../../server/refusal.ts";
import { getMyDetails } from "../identity/service.server.ts";
import {
  bulkTeamUploadSchema,
  MAX_PAGE_SIZE,
  TEAM_PAGE_SIZE,
  teamMemberSchema,
  updateTeamMemberSchema,
} from "./schema.ts";
import { createUser, createUserBulkUpload, deleteUser, listTeamMembers, updateUser } from "./service.server.ts";

/** The longest search text accepted (a name or an address is far shorter). */
const MAX_SEARCH_LENGTH = 256;
const MAX_PAGE_NUMBER = 2_147_483_647;

export const LIST_DETAILS = {
  pageNumber: "pageNumber must be a whole number of at least 1.",
  pageSize: `pageSize must be a whole number from 1 to ${MAX_PAGE_SIZE}.`,
  search: `search must be at most ${MAX_SEARCH_LENGTH} characters.`,
  isRewardMyTeam: "isRewardMyTeam must be true or false.",
  idMismatch: "The id in the body must match the id in the address.",
} as const;

/** GET /Users's page: strict, a malformed or out-of-range value is a 400 with LIST_DETAILS (core/paging.ts). */
const teamPageSchema = pageQuerySchema(
  { pageSize: TEAM_PAGE_SIZE, maxPageSize: MAX_PAGE_SIZE, maxPageNumber: MAX_PAGE_NUMBER },
  LIST_DETAILS,
);

function flag(value: string | undefined): boolean {
  const text = value?.trim().toLowerCase() ?? "";
  if (text === "" || text === "false") return false;
  if (text === "true") return true;
  throw new ProblemError(400, LIST_DETAILS.isRewardMyTeam);
}

/**
 * A bulk upload's validation failure names the row ("Row 3: The email format is incorrect.",
 * rows numbered from 1 as in the file after its heading); a failure of the whole list (too many
 * rows, none, not a list) keeps its own message.
 */
function numberRows(problem: ProblemError): ProblemError {
  if (!problem.errors) return problem;
  const entries = Object.entries(problem.errors);
  const whole = entries.find(([key]) => key === "users" || key === "body");
  if (whole?.[1][0]) return new ProblemError(400, whole[1][0], problem.errors);
  for (const [key, messages] of entries) {
    const row = /^users\.(\d+)(\.|$)/.exec(key);
    if (row?.[1] && messages[0]) {
      return new ProblemError(400, `Row ${Number(row[1]) + 1}: ${messages[0]}`, problem.errors);
    }
  }
  return problem;
}

/** GET /Users's query; each parameter optional (a default applies), refused with LIST_DETAILS. */
const teamListQuery = queryParams(
  (query: { pageNumber?: string; pageSize?: string; search?: string; isRewardMyTeam?: "true" | "false" }) => {
    const { pageNumber, pageSize } = pageOf(teamPageSchema, query);
    const search = query.search ?? "";
    if (search.length > MAX_SEARCH_LENGTH) throw new ProblemError(400, LIST_DETAILS.search);
    return { pageNumber, pageSize, search, isRewardMyTeam: flag(query.isRewardMyTeam) };
  },
);

/** The member of the path: /Users/{id}; anything that cannot be an id is a member that does not exist. */
const memberParam = idParams({ id: "member-not-found" });

export function usersRoutes(deps: ApiDeps, auth: MiddlewareHandler<ApiEnv>) {
  const now = () => deps.now?.() ?? new Date();

  return (
    new Hono<ApiEnv>()
      /** { id, companyId, firstName, lastName, email, phone, companyName, fullName, managerRole } of the token's user. */
      .get("/Users/MyDetails", auth, async (c) => {
        const details = await getMyDetails(deps.db, requireAuth(c));
        if (!details) throw new ProblemError(401, DETAILS.unauthorized);
        return c.json(details);
      })
      /** A page of the caller's active team members: { items, totalPages, hasPreviousPage, hasNextPage, pageNumber, totalCount }. */
      .get("/Users", auth, teamListQuery, async (c) => {
        return c.json(await listTeamMembers(deps.db, requireAuth(c), { ...c.req.valid("query"), now: now() }));
      })
      /** Adds one member: 200 with the TeamMember; 409 when the address is active in the company. */
      .post("/Users/create-user", auth, jsonBody(teamMemberSchema), async (c) => {
        const result = await createUser(deps.db, requireAuth(c), c.req.valid("json"), now());
        if (result.status === "duplicate") throw new Refusal("email-in-company");
        return c.json(result.member);
      })
      /** Adds up to MAX_IMPORT_ROWS members at once (within BULK_JSON_BYTES), all or nothing: { successfullyAdded, duplicates }. */
      .post(
        "/Users/create-user-bulk-upload",
        auth,
        jsonBody(bulkTeamUploadSchema, { maxBytes: BULK_JSON_BYTES, onInvalid: numberRows }),
        async (c) => {
          return c.json(await createUserBulkUpload(deps.db, requireAuth(c), c.req.valid("json").users, now()));
        },
      )
      /** Changes a member of the caller's company: 204; 404 for anyone else; 409 for a taken address. */
      .put("/Users/:id", auth, memberParam, jsonBody(updateTeamMemberSchema), async (c) => {
        const owner = requireAuth(c);
        const { id } = c.req.valid("param");
        const body = c.req.valid("json");
        if (body.id !== undefined && body.id !== id) throw new ProblemError(400, LIST_DETAILS.idMismatch);
        const result = await updateUser(deps.db, owner, id, body, now());
        if (result === "not_found") throw new Refusal("member-not-found");
        if (result === "duplicate") throw new Refusal("email-in-company");
        return c.body(null, 204);
      })
      /**
       * Removes (inactivates) a member of the caller's company: 204; 404 for anyone else; 409 while
       * they are on a paid order not yet released (release-rules.ts assertRemovable).
       */
      .delete("/Users/:id", auth, memberParam, async (c) => {
        const removed = await deleteUser(deps.db, requireAuth(c), c.req.valid("param").id, now());
        if (!removed) throw new Refusal("member-not-found");
        return c.body(null, 204);
      })
  );
}
