// Values the global setup hands to test files through vitest's provide/inject.
export type PostgresProvided = { url: string; version: string } | { skipped: string };

declare module "vitest" {
  export interface ProvidedContext {
    postgres: PostgresProvided;
    /** A migrated PGlite data directory (a `dumpDataDir` tarball) that memory databases start from. */
    pgliteSeed: string;
  }
}
