// The finder the single-writer tests rely on must see a write, or those tests could never fail.
import { expect, test } from "vitest";
import { writersOf } from "./writers.ts";

test("the finder sees Drizzle and raw-SQL writes, and ignores reads", () => {
  // release.ts inserts reward_releases with Drizzle and reward_lots with raw SQL.
  expect(writersOf("rewardReleases", "reward_releases", ["insert"])).toContain("modules/orders/release.server.ts");
  expect(writersOf("rewardLots", "reward_lots", ["insert"])).toContain("modules/orders/release.server.ts");
  // Many modules read users; a table nobody names is written by nobody.
  expect(writersOf("noSuchTable", "no_such_table")).toEqual([]);
});
