// Statements a page runs on every request, built and prepared once per database (no query
// building per request; on PostgreSQL each connection also parses and plans them once).
import type { Db } from "./client.ts";

/**
 * `build(db)` made at the first use with each database and kept. Only for a `Db`: a
 * transaction's statements are built in it.
 */
export function preparedOnce<Statement>(build: (db: Db) => Statement): (db: Db) => Statement {
  const byDb = new WeakMap<Db, Statement>();
  return (db) => {
    let statement = byDb.get(db);
    if (!statement) {
      statement = build(db);
      byDb.set(db, statement);
    }
    return statement;
  };
}
