// The limits of docs/requirements.md §S5 and §S9 and the upload caps of §D7, written once. No zod here:
// the schemas (core/fields.ts and the modules using it), the CSV reader, the route modules and
// the server all read these numbers, and the browser can import them without any validator.

/** docs/requirements.md §S9 field limits (characters). */
export const LIMITS = {
  name: 64,
  email: 256,
  companyName: 100,
  message: 256,
} as const;

/** docs/requirements.md §S5: a new password has at least 8 characters. */
export const PASSWORD_MIN_LENGTH = 8;
/** Not a SPEC rule: a ceiling so a megabyte "password" cannot tie up the hasher. */
export const PASSWORD_MAX_LENGTH = 256;

/** docs/requirements.md §S5: the verification code is exactly 6 digits. */
export const VERIFICATION_CODE_LENGTH = 6;
/** docs/requirements.md §S5: an ABN is exactly 11 digits. */
export const ABN_LENGTH = 11;

/** The reward name (docs/requirements.md §S3) is required for payment and at most this long. */
export const REWARD_NAME_MAX = 100;

/** The sender's optional message to every recipient of a reward (plain text, line breaks kept). */
export const REWARD_MESSAGE_MAX = 500;

/**
 * docs/requirements.md §D7: a team or reward import holds at most this many rows, in a file of at most
 * MAX_UPLOAD_BYTES. Every message naming the limit reads this number.
 */
export const MAX_IMPORT_ROWS = 50_000;
/** Room for 50,000 rows of about 200 bytes (names and addresses well past the usual lengths). */
export const MAX_UPLOAD_BYTES = 10 * 1024 * 1024;
/** The most recipients one reward draft (and one bulk upload) may hold: the team import's cap. */
export const MAX_DRAFT_RECIPIENTS = MAX_IMPORT_ROWS;

/**
 * The email rule (docs/requirements.md §S5 "a standard address pattern"): zod's own z.email() pattern, kept here
 * so the schemas and the CSV reader check addresses with the same expression.
 */
export const EMAIL_PATTERN =
  /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;
