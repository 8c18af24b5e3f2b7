// The bulk reward CSV of Reward My Team: the reader is modules/reward-drafts/reward-csv.ts (the server's import
// uses it too); here what only the page needs.

export { FILE_TOO_LARGE_MESSAGE, INVALID_FILE_TYPE_MESSAGE, isCsvFileName } from "../../../core/csv.ts";
export { MAX_UPLOAD_BYTES } from "../../../core/limits.ts";
export * from "../../../modules/reward-drafts/reward-csv.ts";
