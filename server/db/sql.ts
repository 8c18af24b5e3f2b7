// Small helpers for the hand-written set-based statements (an INSERT ... SELECT over many rows in
// one statement: drizzle's multi-row VALUES binds every column of every row, several times slower
// for thousands of rows on PGlite).
import { type SQL, sql } from "drizzle-orm";

/** A column's name as an SQL identifier (the column list of an INSERT, a bare column reference). */
export const col = (column: { name: string }) => sql.identifier(column.name);

/** One column of `unnestRows`: its values, one per row, and their PostgreSQL element type. */
export interface ArrayColumn {
  type: "text" | "bigint" | "integer";
  values: readonly unknown[];
}

/**
 * The FROM item `unnest($1::type[], ...) with ordinality as alias(name, ..., n)`: the rows of
 * parallel arrays, one parameter per column whatever the row count. `alias.n` is the 1-based
 * position in the arrays (`order by alias.n` inserts in array order).
 */
export function unnestRows(alias: string, columns: Record<string, ArrayColumn>): SQL {
  const entries = Object.entries(columns);
  const arrays = entries.map(([, c]) => sql`${sql.param(c.values)}::${sql.raw(c.type)}[]`);
  const names = [...entries.map(([name]) => sql.identifier(name)), sql.identifier("n")];
  return sql`unnest(${sql.join(arrays, sql`, `)}) with ordinality as ${sql.identifier(alias)}(${sql.join(names, sql`, `)})`;
}

/** The rows of `db.execute` (node-postgres and PGlite answer { rows }; an array as it is). */
export function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : ((result as { rows?: T[] }).rows ?? [])) as T[];
}
