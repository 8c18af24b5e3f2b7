// What an order line may be (docs/rules.md): only modules/orders/order-lines.server.ts writes order_lines,
// so every line passes its check ($1 to $10,000, an active member of the company).
import { expect, test } from "vitest";
import { writersOf } from "./writers.ts";

test("order_lines are inserted only by the order-line chokepoint", () => {
  expect(writersOf("orderLines", "order_lines", ["insert"])).toEqual(["modules/orders/order-lines.server.ts"]);
});
