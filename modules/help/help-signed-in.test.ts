// POST /api/Help/create-help (docs/requirements.md §S7, §S5): the signed-in Contact Us form, stored with the user
// and company, and emailed to SUPPORT_EMAIL through the outbox.
import { count, eq } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import { helpRequests, users } from "../../server/db/schema.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { accountsApi, call, lastEmailTo, signUpVerified } from "../identity/accounts.testkit.ts";

const SUPPORT_EMAIL = "support@portal.test";

describeEachDatabase("POST /api/Help/create-help", ({ database }) => {
  const config = testConfig({ SUPPORT_EMAIL });
  const db = () => database().db;
  beforeEach(() => truncateAll(db()));

  it("stores the message with the user and company and emails support: 200", async () => {
    const { api, onEmailQueued } = accountsApi(db(), { config });
    const account = await signUpVerified(api, db(), { firstName: "Jane", lastName: "Citizen" });
    onEmailQueued.mockClear();
    const message = "Where is <my> invoice?";
    const res = await call(api, "POST", "/api/Help/create-help", { message }, account.accessToken);
    expect(res.status).toBe(200);
    const [user] = await db().select().from(users).where(eq(users.id, account.userId));
    const [row] = await db().select().from(helpRequests);
    expect(row).toMatchObject({
      firstName: "Jane",
      lastName: "Citizen",
      email: account.email,
      message,
      userId: account.userId,
      companyId: user?.companyId,
    });
    const mail = await lastEmailTo(db(), SUPPORT_EMAIL);
    expect(mail.text).toContain(message);
    expect(mail.text).toContain(account.email);
    expect(mail.html).toContain("Where is &lt;my&gt; invoice?");
    expect(onEmailQueued).toHaveBeenCalledTimes(1);
  });

  it.each([
    [{}, "Message is required."],
    [{ message: "" }, "Message is required."],
    [{ message: "   " }, "Message is required."],
    [{ message: "m".repeat(257) }, "Message must be less than 256 characters."],
  ])("%j → 400 %s, nothing stored", async (body, detail) => {
    const { api } = accountsApi(db(), { config });
    const account = await signUpVerified(api, db());
    const problem = await expectProblem(
      await call(api, "POST", "/api/Help/create-help", body, account.accessToken),
      400,
    );
    expect(problem.detail).toBe(detail);
    expect((await db().select({ n: count() }).from(helpRequests))[0]?.n).toBe(0);
  });

  it("accepts 256 characters", async () => {
    const { api } = accountsApi(db(), { config });
    const account = await signUpVerified(api, db());
    const res = await call(api, "POST", "/api/Help/create-help", { message: "m".repeat(256) }, account.accessToken);
    expect(res.status).toBe(200);
  });

  it("answers 401 without a token or with a revoked one; nothing stored", async () => {
    const { api } = accountsApi(db(), { config });
    expect((await expectProblem(await call(api, "POST", "/api/Help/create-help", { message: "hi" }), 401)).detail).toBe(
      DETAILS.unauthorized,
    );
    const account = await signUpVerified(api, db());
    await call(api, "POST", "/api/Identity/logout", undefined, account.accessToken);
    await expectProblem(await call(api, "POST", "/api/Help/create-help", { message: "hi" }, account.accessToken), 401);
    expect((await db().select({ n: count() }).from(helpRequests))[0]?.n).toBe(0);
  });
});
