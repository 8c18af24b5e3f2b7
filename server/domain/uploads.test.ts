// Pending CSV uploads: kept for their owner and kind only, replaced by a newer file, gone when expired or deleted.
import { beforeEach, expect, it } from "vitest";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { accountsApi, signUpVerified } from "../api/accounts.testkit.ts";
import { PENDING_UPLOAD_TTL_MS, pendingUploadStore } from "./uploads.ts";

describeEachDatabase("pending uploads", ({ database }) => {
  const db = () => database().db;
  beforeEach(() => truncateAll(db()));

  it("keeps rows for their owner and kind until deleted, replaced or expired", async () => {
    const { api } = accountsApi(db(), { config: testConfig() });
    const alice = await signUpVerified(api, db(), { email: "alice@example.com" });
    const bob = await signUpVerified(api, db(), { email: "bob@example.com" });
    let now = new Date("2026-01-01T00:00:00Z");
    const store = pendingUploadStore(db(), () => now);
    const rows = [{ firstName: "Ann", lastName: "Lee", email: "ann@example.com" }];

    const id = await store.save({ userId: alice.userId, kind: "team", fileName: "team.csv", rows });
    expect(await store.read(id, alice.userId, "team")).toEqual({ fileName: "team.csv", rows });
    expect(await store.read(id, bob.userId, "team")).toBeNull();
    expect(await store.read(id, alice.userId, "reward")).toBeNull();
    await store.delete(id, bob.userId);
    expect(await store.read(id, alice.userId, "team")).not.toBeNull();

    const newer = await store.save({ userId: alice.userId, kind: "team", fileName: "b.csv", rows: [] });
    expect(await store.read(id, alice.userId, "team")).toBeNull();
    expect(await store.read(newer, alice.userId, "team")).toEqual({ fileName: "b.csv", rows: [] });

    now = new Date(now.getTime() + PENDING_UPLOAD_TTL_MS + 1);
    expect(await store.read(newer, alice.userId, "team")).toBeNull();

    const last = await store.save({ userId: alice.userId, kind: "team", fileName: "c.csv", rows });
    await store.delete(last, alice.userId);
    expect(await store.read(last, alice.userId, "team")).toBeNull();
  });
});
