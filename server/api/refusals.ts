// The one place where the domain's refusals become HTTP answers: the API's error handler
// (index.ts) asks here for every error a route lets through. A payment-side refusal carries its
// status, detail and field errors (PaymentError); a reward draft's carries its kind (DraftError),
// mapped to the words of modules/reward-drafts/schema.ts. Routes call the domain directly and let refusals throw.

import { RemovalRefused } from "../../modules/orders/release-rules.server.ts";
import { PaymentError } from "../../modules/orders/service.server.ts";
import { REWARD_DETAILS } from "../../modules/reward-drafts/schema.ts";
import { DraftError } from "../../modules/reward-drafts/service.server.ts";
import { ProblemError } from "../http/problem.ts";

/** The problem+json a refusal of the domain answers, or undefined for any other error. */
export function problemOfRefusal(error: unknown): ProblemError | undefined {
  if (error instanceof PaymentError) return new ProblemError(error.status, error.message, error.errors);
  if (error instanceof DraftError) return draftProblem(error);
  // A member on a paid order not yet released (docs/rules.md "When a release may pay a member").
  if (error instanceof RemovalRefused) return new ProblemError(409, error.message);
  return undefined;
}

function draftProblem(error: DraftError): ProblemError {
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
