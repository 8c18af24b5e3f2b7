// When a release may pay a member (docs/rules.md): only the release (server/domain/release.ts
// releaseOrder, which asks server/domain/release-rules.ts whether each line's member is still
// active) makes a release, a lot or a recipient account; the ledger is written only by the
// release (credits), redemption and expiry (lots.ts: debits, forfeits) and removal (team.ts:
// the forfeit of a removed member's balance).
import { expect, test } from "vitest";
import { writersOf } from "./writers.ts";

test("reward_releases, reward_lots and recipient_accounts are inserted only by release.ts", () => {
  expect(writersOf("rewardReleases", "reward_releases")).toEqual(["server/domain/release.ts"]);
  expect(writersOf("rewardLots", "reward_lots", ["insert"])).toEqual(["server/domain/release.ts"]);
  expect(writersOf("recipientAccounts", "recipient_accounts", ["insert"])).toEqual(["server/domain/release.ts"]);
});

test("reward_ledger is inserted only by the release, redemption and expiry, and removal", () => {
  expect(writersOf("rewardLedger", "reward_ledger", ["insert"])).toEqual([
    "server/domain/lots.ts",
    "server/domain/release.ts",
    "server/domain/team.ts",
  ]);
});
