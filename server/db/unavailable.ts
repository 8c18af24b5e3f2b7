// Whether an error means the database cannot be reached right now (a PostgreSQL server restarting,
// a dropped connection), as opposed to a bug or a bad query: the API answers those with 503 and
// Retry-After instead of 500, so clients know to try again (tests/fault/postgres-restart.test.ts).

/** Node socket errors and PostgreSQL's connection-exception and operator-intervention classes. */
const NETWORK_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "ENOTFOUND", "EAI_AGAIN"]);
const POSTGRES_CODES = /^(08\d{3}|57P0[1-3])$/;
const MESSAGES =
  /connection terminated|terminating connection|connection (?:is )?closed|client has encountered a connection error|timeout exceeded when trying to connect/i;

export function isDatabaseUnavailable(error: unknown): boolean {
  // drizzle wraps the driver's error in `cause`; follow the chain a few steps.
  let e: unknown = error;
  for (let depth = 0; depth < 5 && e && typeof e === "object"; depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown };
    if (typeof code === "string" && (NETWORK_CODES.has(code) || POSTGRES_CODES.test(code))) return true;
    if (typeof message === "string" && MESSAGES.test(message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
