// What an order line may be (docs/rules.md): the one writer of order_lines. Every path that makes
// a line (a draft's card, Checkout or balance payment and its approval request, a reward CSV
// through the draft, an API order, an automation) calls insertOrderLines, which checks each line
// before writing any: its amount from $1 to $10,000 (core/money.ts isLineAmount) and its member
// an active team member of the order's company. The members' rows are read FOR SHARE, so a
// removal running at the same moment waits for this transaction (and the release's re-check sees
// the line) or commits first (and the line is refused). A refused line is an OrderLineError, a
// Refusal (line-amount, line-member-inactive) the API answers as problem+json; an automation
// reads lineProblems first and skips the occasion with the reason instead.
import { and, eq, inArray } from "drizzle-orm";
import { formatDollars, isLineAmount, MAX_LINE_CENTS, MIN_LINE_CENTS } from "../../core/money.ts";
import type { Tx } from "../../server/db/client.ts";
import { orderLines, users } from "../../server/db/schema.ts";
import { Refusal } from "../../server/refusal.ts";

export interface NewOrderLine {
  userId: number;
  firstName: string;
  lastName: string;
  email: string;
  amountCents: number;
  /** The recipient's own message (an automation's rendered template); null or left out: the order's. */
  message?: string | null;
}

export const ORDER_LINE_DETAILS = {
  amount: `A reward must be from ${formatDollars(MIN_LINE_CENTS)} to ${formatDollars(MAX_LINE_CENTS)}.`,
  member: "The recipient is no longer a team member of your company.",
} as const;

export type LineProblem = { kind: "amount"; detail: string } | { kind: "member"; detail: string };

/** A refused line: its amount, or its member no longer active (the API answers it as any Refusal). */
export class OrderLineError extends Refusal<"line-amount" | "line-member-inactive"> {
  readonly index: number;
  readonly problem: LineProblem;
  constructor(index: number, problem: LineProblem) {
    super(problem.kind === "amount" ? "line-amount" : "line-member-inactive", { index });
    this.name = "OrderLineError";
    this.index = index;
    this.problem = problem;
  }
}

/** The amount's problem alone (pure): for a door that wants to say it before any transaction. */
export function lineAmountProblem(amountCents: number): LineProblem | null {
  return isLineAmount(amountCents) ? null : { kind: "amount", detail: ORDER_LINE_DETAILS.amount };
}

/**
 * Each line's problem by its index (none: an empty map), with the members' rows locked FOR SHARE
 * until the caller's transaction ends.
 */
export async function lineProblems(
  tx: Tx,
  companyId: number,
  lines: readonly Pick<NewOrderLine, "userId" | "amountCents">[],
): Promise<Map<number, LineProblem>> {
  const problems = new Map<number, LineProblem>();
  const ids = [...new Set(lines.map((l) => l.userId))].sort((a, b) => a - b);
  const active = new Set<number>();
  const CHUNK = 5000;
  for (let i = 0; i < ids.length; i += CHUNK) {
    const rows = await tx
      .select({ id: users.id })
      .from(users)
      .where(
        and(
          inArray(users.id, ids.slice(i, i + CHUNK)),
          eq(users.companyId, companyId),
          eq(users.role, "member"),
          eq(users.isActive, true),
        ),
      )
      .for("share");
    for (const r of rows) active.add(r.id);
  }
  lines.forEach((line, index) => {
    const amount = lineAmountProblem(line.amountCents);
    if (amount) problems.set(index, amount);
    else if (!active.has(line.userId)) problems.set(index, { kind: "member", detail: ORDER_LINE_DETAILS.member });
  });
  return problems;
}

const INSERT_CHUNK = 1000;

/** Checks every line (see the top of this file) and writes them all, or throws OrderLineError and writes none. */
export async function insertOrderLines(
  tx: Tx,
  companyId: number,
  orderId: number,
  lines: readonly NewOrderLine[],
): Promise<void> {
  const problems = await lineProblems(tx, companyId, lines);
  const first = [...problems.entries()].sort(([a], [b]) => a - b)[0];
  if (first) throw new OrderLineError(first[0], first[1]);
  for (let i = 0; i < lines.length; i += INSERT_CHUNK) {
    await tx.insert(orderLines).values(
      lines.slice(i, i + INSERT_CHUNK).map((l) => ({
        orderId,
        companyId,
        userId: l.userId,
        firstName: l.firstName,
        lastName: l.lastName,
        email: l.email,
        amountCents: l.amountCents,
        message: l.message ?? null,
      })),
    );
  }
}
