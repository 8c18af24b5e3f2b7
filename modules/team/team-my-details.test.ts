// GET /api/Users/MyDetails (docs/requirements.md §S7): the token's own user, never anyone else's.
import { eq } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import { users } from "../../server/db/schema.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { accountsApi, call, signUpVerified } from "../identity/accounts.testkit.ts";

describeEachDatabase("GET /api/Users/MyDetails", ({ database }) => {
  const config = testConfig();
  const db = () => database().db;
  beforeEach(() => truncateAll(db()));

  it("answers the signed-in user's details with SPEC's fields", async () => {
    const { api } = accountsApi(db(), { config });
    const account = await signUpVerified(api, db(), {
      firstName: "Jane",
      lastName: "Citizen",
      email: "Jane@Example.com",
      companyName: "Acme Pty Ltd",
    });
    const res = await call(api, "GET", "/api/Users/MyDetails", undefined, account.accessToken);
    expect(res.status).toBe(200);
    const [user] = await db().select().from(users).where(eq(users.id, account.userId));
    expect(await res.json()).toEqual({
      id: account.userId,
      companyId: user?.companyId,
      firstName: "Jane",
      lastName: "Citizen",
      email: "Jane@Example.com",
      phone: "",
      companyName: "Acme Pty Ltd",
      fullName: "Jane Citizen",
      // Whoever signs a company up is its first Owner (ADR 0022).
      managerRole: "owner",
    });
  });

  it("shows each user only their own details and company", async () => {
    const { api } = accountsApi(db(), { config });
    const a = await signUpVerified(api, db(), { firstName: "Ann", companyName: "Alpha" });
    const b = await signUpVerified(api, db(), { firstName: "Bob", companyName: "Beta" });
    const meA = (await (await call(api, "GET", "/api/Users/MyDetails", undefined, a.accessToken)).json()) as Record<
      string,
      unknown
    >;
    const meB = (await (await call(api, "GET", "/api/Users/MyDetails", undefined, b.accessToken)).json()) as Record<
      string,
      unknown
    >;
    expect(meA).toMatchObject({ id: a.userId, firstName: "Ann", companyName: "Alpha", email: a.email });
    expect(meB).toMatchObject({ id: b.userId, firstName: "Bob", companyName: "Beta", email: b.email });
    expect(meA.companyId).not.toBe(meB.companyId);
    // Query strings and ids in the path change nothing.
    const probe = await call(api, "GET", `/api/Users/MyDetails?id=${b.userId}`, undefined, a.accessToken);
    expect(await probe.json()).toMatchObject({ id: a.userId });
  });

  it("answers 401 without a token, with an unknown token and with a revoked one", async () => {
    const { api } = accountsApi(db(), { config });
    expect((await expectProblem(await call(api, "GET", "/api/Users/MyDetails"), 401)).detail).toBe(
      DETAILS.unauthorized,
    );
    await expectProblem(await call(api, "GET", "/api/Users/MyDetails", undefined, "q".repeat(43)), 401);
    const account = await signUpVerified(api, db());
    expect((await call(api, "POST", "/api/Identity/logout", undefined, account.accessToken)).status).toBe(204);
    await expectProblem(await call(api, "GET", "/api/Users/MyDetails", undefined, account.accessToken), 401);
  });
});
