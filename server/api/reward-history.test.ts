// GET /api/RewardHistory/get-reward-history (SPEC §7): an empty list until rewards exist.
import { beforeEach, expect, it } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { accountsApi, call, signUpVerified } from "./accounts.testkit.ts";

describeEachDatabase("GET /api/RewardHistory/get-reward-history", ({ database }) => {
  const config = testConfig();
  beforeEach(() => truncateAll(database().db));

  it("answers 200 with an empty list for a signed-in user", async () => {
    const { api } = accountsApi(database().db, { config });
    const account = await signUpVerified(api, database().db);
    const res = await call(api, "GET", "/api/RewardHistory/get-reward-history", undefined, account.accessToken);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual([]);
  });

  it("answers 401 without a token or with a revoked one", async () => {
    const { api } = accountsApi(database().db, { config });
    const res = await call(api, "GET", "/api/RewardHistory/get-reward-history");
    expect((await expectProblem(res, 401)).detail).toBe(DETAILS.unauthorized);
    const account = await signUpVerified(api, database().db);
    await call(api, "POST", "/api/Identity/logout", undefined, account.accessToken);
    await expectProblem(
      await call(api, "GET", "/api/RewardHistory/get-reward-history", undefined, account.accessToken),
      401,
    );
  });
});
