// The bulk reward CSV of Reward My Team: the reader is core/reward-csv.ts (the server's import
// uses it too); here what only the page needs.
import { emailCheck } from "../../../core/csv.ts";
import type { RewardCsvRow } from "../../../core/reward-csv.ts";

export { FILE_TOO_LARGE_MESSAGE, INVALID_FILE_TYPE_MESSAGE, isCsvFileName } from "../../../core/csv.ts";
export { MAX_UPLOAD_BYTES } from "../../../core/limits.ts";
export * from "../../../core/reward-csv.ts";

/** Whether a stored value (a pending upload's row) is a row the reader gave. */
export function isRewardCsvRow(value: unknown): value is RewardCsvRow {
  if (typeof value !== "object" || value === null) return false;
  const row = value as Record<string, unknown>;
  return (
    typeof row.firstName === "string" &&
    typeof row.lastName === "string" &&
    typeof row.email === "string" &&
    emailCheck(row.email) &&
    typeof row.value === "number"
  );
}
