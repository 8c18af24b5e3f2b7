// PUT /api/Companies/ (docs/requirements.md §S7, §S5): the caller's company details, SPEC's messages, the ABN
// check digits, and no way to touch another company.
import { eq } from "drizzle-orm";
import { beforeEach, expect, it } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import { companies, users } from "../../server/db/schema.ts";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { accountsApi, call, logIn, signUpVerified } from "../identity/accounts.testkit.ts";
import { COMPANY_SIZES, INDUSTRIES } from "../identity/schema.ts";

const valid = { name: "Acme Holdings", ABN: "51824753556", size: "51-200", industry: "Information Technology" };

describeEachDatabase("PUT /api/Companies/", ({ database }) => {
  const config = testConfig();
  const db = () => database().db;
  beforeEach(() => truncateAll(db()));

  const companyOf = async (userId: number) => {
    const [user] = await db().select().from(users).where(eq(users.id, userId));
    const [company] = await db().select().from(companies).where(eq(companies.id, user!.companyId));
    return company!;
  };

  it("saves the details of the caller's company: 200, and login then says hasProvidedCompanyDetails", async () => {
    const { api, clock } = accountsApi(db(), { config });
    const account = await signUpVerified(api, db(), { companyName: "Acme" });
    const res = await call(api, "PUT", "/api/Companies/", valid, account.accessToken);
    expect(res.status).toBe(200);
    const company = await companyOf(account.userId);
    expect(await res.json()).toEqual({
      id: company.id,
      name: "Acme Holdings",
      ABN: "51824753556",
      size: "51-200",
      industry: "Information Technology",
      hasProvidedCompanyDetails: true,
    });
    expect(company).toMatchObject({ name: "Acme Holdings", abn: "51824753556", size: "51-200" });
    expect(company.detailsUpdatedAt?.toISOString()).toBe(clock.now().toISOString());
    const login = (await (await logIn(api, account.email)).json()) as { appSettings: Record<string, boolean> };
    expect(login.appSettings.hasProvidedCompanyDetails).toBe(true);
    const me = (await (await call(api, "GET", "/api/Users/MyDetails", undefined, account.accessToken)).json()) as {
      companyName: string;
    };
    expect(me.companyName).toBe("Acme Holdings");
  });

  it("also answers on the path without the trailing slash", async () => {
    const { api } = accountsApi(db(), { config });
    const account = await signUpVerified(api, db());
    expect((await call(api, "PUT", "/api/Companies", valid, account.accessToken)).status).toBe(200);
  });

  it("accepts the spaced ABN people type and stores the 11 digits; the other valid example too", async () => {
    const { api } = accountsApi(db(), { config });
    const account = await signUpVerified(api, db());
    expect(
      (await call(api, "PUT", "/api/Companies/", { ...valid, ABN: "51 824 753 556" }, account.accessToken)).status,
    ).toBe(200);
    expect((await companyOf(account.userId)).abn).toBe("51824753556");
    expect(
      (await call(api, "PUT", "/api/Companies/", { ...valid, ABN: "53004085616" }, account.accessToken)).status,
    ).toBe(200);
    expect((await companyOf(account.userId)).abn).toBe("53004085616");
  });

  it.each([...COMPANY_SIZES])("accepts the size %s", async (size) => {
    const { api } = accountsApi(db(), { config });
    const account = await signUpVerified(api, db());
    expect((await call(api, "PUT", "/api/Companies/", { ...valid, size }, account.accessToken)).status).toBe(200);
  });

  it("accepts every industry of SPEC's list", async () => {
    const { api } = accountsApi(db(), { config });
    const account = await signUpVerified(api, db());
    expect(INDUSTRIES).toHaveLength(15);
    for (const industry of INDUSTRIES) {
      expect((await call(api, "PUT", "/api/Companies/", { ...valid, industry }, account.accessToken)).status).toBe(200);
    }
  });

  it.each([
    ["name", undefined, "Company Name is required."],
    ["name", "  ", "Company Name is required."],
    ["name", "n".repeat(101), "Company Name must be at most 100 characters."],
    ["ABN", undefined, "ABN is required."],
    ["ABN", "", "ABN is required."],
    ["ABN", "5182475355", "ABN must have exactly 11 digits."],
    ["ABN", "518247535560", "ABN must have exactly 11 digits."],
    ["ABN", "5182475355X", "ABN must have exactly 11 digits."],
    ["ABN", "51824753557", "ABN is not valid; please check the number."],
    ["ABN", "53004085617", "ABN is not valid; please check the number."],
    ["size", undefined, "Enterprise size is required."],
    ["size", "", "Enterprise size is required."],
    ["size", "5000+", "Enterprise size is required."],
    ["industry", undefined, "Industry is required."],
    ["industry", "", "Industry is required."],
    ["industry", "Mining", "Industry is required."],
  ])("%s = %j → 400 %s, nothing saved", async (field, value, message) => {
    const { api } = accountsApi(db(), { config });
    const account = await signUpVerified(api, db(), { companyName: "Acme" });
    const body: Record<string, unknown> = { ...valid };
    if (value === undefined) delete body[field];
    else body[field] = value;
    const problem = await expectProblem(await call(api, "PUT", "/api/Companies/", body, account.accessToken), 400);
    expect(problem.detail).toBe(message);
    expect(problem.errors?.[field]).toEqual([message]);
    expect(await companyOf(account.userId)).toMatchObject({ name: "Acme", abn: null, detailsUpdatedAt: null });
  });

  it("accepts a name of 100 characters", async () => {
    const { api } = accountsApi(db(), { config });
    const account = await signUpVerified(api, db());
    const res = await call(api, "PUT", "/api/Companies/", { ...valid, name: "n".repeat(100) }, account.accessToken);
    expect(res.status).toBe(200);
  });

  it("changes only the caller's company, whatever id the body carries", async () => {
    const { api } = accountsApi(db(), { config });
    const a = await signUpVerified(api, db(), { companyName: "Alpha" });
    const b = await signUpVerified(api, db(), { companyName: "Beta" });
    const bCompany = await companyOf(b.userId);
    const res = await call(
      api,
      "PUT",
      "/api/Companies/",
      { ...valid, id: bCompany.id, companyId: bCompany.id },
      a.accessToken,
    );
    expect(res.status).toBe(200);
    expect((await companyOf(a.userId)).name).toBe("Acme Holdings");
    expect(await companyOf(b.userId)).toMatchObject({ name: "Beta", abn: null });
  });

  it("answers 401 without a token or with a revoked one", async () => {
    const { api } = accountsApi(db(), { config });
    expect((await expectProblem(await call(api, "PUT", "/api/Companies/", valid), 401)).detail).toBe(
      DETAILS.unauthorized,
    );
    const account = await signUpVerified(api, db());
    await call(api, "POST", "/api/Identity/logout", undefined, account.accessToken);
    await expectProblem(await call(api, "PUT", "/api/Companies/", valid, account.accessToken), 401);
  });
});
