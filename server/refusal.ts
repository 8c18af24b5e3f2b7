// A refusal of the domain (ADR 0039): what was refused, as a kind of core/refusals.ts with the
// data its words need; no HTTP here. The API edge answers each kind with its status and
// problem+json (server/api/refusals.ts); a job or another rule may catch it and read its kind.
import type { RefusalDataOf, RefusalKind } from "../core/refusals.ts";

/** No data for a kind without any; optional data for a kind whose data is all optional. */
type DataArgs<K extends RefusalKind> =
  RefusalDataOf<K> extends undefined
    ? []
    : Record<string, never> extends RefusalDataOf<K>
      ? [data?: RefusalDataOf<K>]
      : [data: RefusalDataOf<K>];

/** Thrown by a rule that refuses; nothing it was asked to write is written. */
export class Refusal<K extends RefusalKind = RefusalKind> extends Error {
  readonly kind: K;
  readonly data: RefusalDataOf<K>;
  constructor(kind: K, ...data: DataArgs<K>) {
    super(kind);
    this.name = "Refusal";
    this.kind = kind;
    this.data = (data[0] ?? (undefined as unknown as RefusalDataOf<K>)) as RefusalDataOf<K>;
  }
}

/** Whether `error` is a refusal of this kind (its data then typed). */
export function isRefusal<K extends RefusalKind>(error: unknown, kind: K): error is Refusal<K> {
  return error instanceof Refusal && error.kind === kind;
}
