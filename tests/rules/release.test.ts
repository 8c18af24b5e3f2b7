// When a release may pay a member (docs/rules.md): only the release (modules/orders/release.server.ts
// releaseOrder, which asks modules/orders/release-rules.server.ts whether each line's member is still
// active) makes a release, a lot or a recipient account; the ledger is written only by the
// release (credits), redemption and expiry (lots.ts: debits, forfeits) and removal (team.ts:
// the forfeit of a removed member's balance).
import { expect, test } from "vitest";
import { writersOf } from "./writers.ts";

test("reward_releases, reward_lots and recipient_accounts are inserted only by release.ts", () => {
  expect(writersOf("rewardReleases", "reward_releases")).toEqual(["modules/orders/release.server.ts"]);
  expect(writersOf("rewardLots", "reward_lots", ["insert"])).toEqual(["modules/orders/release.server.ts"]);
  expect(writersOf("recipientAccounts", "recipient_accounts", ["insert"])).toEqual([
    "modules/orders/release.server.ts",
  ]);
});

test("reward_ledger is inserted only by the release, redemption and expiry, and removal", () => {
  expect(writersOf("rewardLedger", "reward_ledger", ["insert"])).toEqual([
    "modules/lots/service.server.ts",
    "modules/orders/release.server.ts",
    "modules/team/service.server.ts",
  ]);
});
