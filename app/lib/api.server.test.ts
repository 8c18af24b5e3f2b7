// The web's API client (app/lib/api.server.ts, ADR 0016): the requests it builds and the answers
// it gives at run time, against a recording fetch and against the real API in process; and, for
// tsc (`npm run typecheck`), that its bodies and answers are the API's own types, so a wrong
// body or a route that does not exist is a compile error.
import type { hc } from "hono/client";
import { RouterContextProvider } from "react-router";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi } from "vitest";
import type { LoginResponse, MyDetails } from "../../core/account-forms.ts";
import type { TeamPage } from "../../core/team.ts";
import type { LoginChallengeResponse } from "../../core/two-factor.ts";
import { accountsApi, latestCode, PASSWORD, registration } from "../../server/api/accounts.testkit.ts";
import type { Api } from "../../server/api/index.ts";
import { testConfig } from "../../tests/support/config.ts";
import { openTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { type RequestServices, webContext } from "../context.ts";
import { type ApiClient, type ApiResult, createApiClient } from "./api.server.ts";

const FALLBACK_DETAIL = "An error occurred while submitting the form. Please try again.";

function contextWith(apiFetch: RequestServices["apiFetch"], logger = { info() {}, warn() {}, error: vi.fn() }) {
  // Only what the client reads.
  const services = { apiFetch, logger, clientIp: "203.0.113.7" } as unknown as RequestServices;
  const context = new RouterContextProvider();
  context.set(webContext, services);
  return { context, logger };
}

interface Sent {
  method: string;
  url: string;
  headers: Headers;
  body: string;
}

/** A fetch that records each request and answers `answer`. */
function recording(answer: () => Response = () => Response.json({})) {
  const sent: Sent[] = [];
  const apiFetch = async (request: Request) => {
    sent.push({ method: request.method, url: request.url, headers: request.headers, body: await request.text() });
    return answer();
  };
  return { sent, apiFetch };
}

describe("API client requests", () => {
  it("posts the body as JSON with the bearer token and the client's address", async () => {
    const { sent, apiFetch } = recording(() => Response.json({ accessToken: "t", appSettings: {} }));
    const api = createApiClient(contextWith(apiFetch).context, { token: "token-0123456789abcdef" });
    const result = await api.login({ userName: "a@b.c", password: "pw", captchaToken: "c", isCaptchaV3: true });
    expect(result).toEqual({ ok: true, status: 200, data: { accessToken: "t", appSettings: {} } });
    const [request] = sent;
    expect(request?.method).toBe("POST");
    expect(request?.url).toBe("http://api.internal/api/Identity/login");
    expect(request?.headers.get("content-type")).toBe("application/json");
    expect(request?.headers.get("accept")).toBe("application/json");
    expect(request?.headers.get("authorization")).toBe("Bearer token-0123456789abcdef");
    expect(request?.headers.get("x-rewards-client-ip")).toBe("203.0.113.7");
    expect(JSON.parse(request?.body ?? "")).toEqual({
      userName: "a@b.c",
      password: "pw",
      captchaToken: "c",
      isCaptchaV3: true,
    });
  });

  it("sends no body, content type or token when the call has none", async () => {
    const { sent, apiFetch } = recording(() => new Response(null, { status: 204 }));
    const result = await createApiClient(contextWith(apiFetch).context).deleteAllReward();
    expect(result).toEqual({ ok: true, status: 204, data: undefined });
    expect(sent[0]?.method).toBe("DELETE");
    expect(sent[0]?.url).toBe("http://api.internal/api/RewardMyTeam/delete-all-reward");
    expect(sent[0]?.body).toBe("");
    expect(sent[0]?.headers.get("content-type")).toBeNull();
    expect(sent[0]?.headers.get("authorization")).toBeNull();
  });

  it("puts the member id in the path and the body, and the list query in the URL", async () => {
    const { sent, apiFetch } = recording();
    const api = createApiClient(contextWith(apiFetch).context);
    await api.updateTeamMember(42, { firstName: "Ann", lastName: "Lee", email: "ann@example.com" });
    await api.listTeam({ pageNumber: 2, pageSize: 10, search: "a b", isRewardMyTeam: true });
    await api.getRewardPage({ pageNumber: 3, pageSize: 7 });
    await api.deleteReward(9);
    expect(sent.map((r) => `${r.method} ${r.url} ${r.body}`)).toEqual([
      'PUT http://api.internal/api/Users/42 {"id":42,"firstName":"Ann","lastName":"Lee","email":"ann@example.com"}',
      "GET http://api.internal/api/Users?pageNumber=2&pageSize=10&search=a+b&isRewardMyTeam=true ",
      "GET http://api.internal/api/RewardMyTeam/get-reward-page?pageNumber=3&pageSize=7 ",
      'DELETE http://api.internal/api/RewardMyTeam/delete-reward {"userId":9}',
    ]);
  });

  it("answers a problem with its detail and field errors", async () => {
    const { apiFetch } = recording(() =>
      Response.json(
        { status: 400, detail: "Email is required.", errors: { userName: ["Email is required."] } },
        {
          status: 400,
        },
      ),
    );
    const result = await createApiClient(contextWith(apiFetch).context).login({ userName: "", password: "x" });
    expect(result).toEqual({
      ok: false,
      status: 400,
      detail: "Email is required.",
      errors: { userName: ["Email is required."] },
    });
  });

  it("answers 503 with the fallback detail, and logs, when the in-process fetch throws", async () => {
    const { context, logger } = contextWith(async () => {
      throw new Error("boom");
    });
    const result = await createApiClient(context).joinWaitList({
      firstName: "A",
      lastName: "B",
      email: "a@b.c",
      companyName: "C",
      isOptedIn: true,
    });
    expect(result).toEqual({ ok: false, status: 503, detail: FALLBACK_DETAIL });
    expect(logger.error).toHaveBeenCalledWith({ err: "boom", path: "WaitList" }, "provider API unreachable");
  });

  it("calls onUnauthorized on a 401", async () => {
    const { apiFetch } = recording(() => Response.json({ detail: "Unauthorized" }, { status: 401 }));
    const onUnauthorized = vi.fn(async (): Promise<never> => {
      throw new Error("redirected");
    });
    const api = createApiClient(contextWith(apiFetch).context, { token: "expired-token-0123456789", onUnauthorized });
    await expect(api.myDetails()).rejects.toThrow("redirected");
    expect(onUnauthorized).toHaveBeenCalledOnce();
  });
});

describe("API client against the API in process", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase("pglite");
  });
  afterAll(() => database.close());

  it("signs up, verifies and manages a team member through every kind of route", async () => {
    const { api } = accountsApi(database.db, { config: testConfig() });
    const anonymous = createApiClient(contextWith(async (request) => api.fetch(request)).context);
    const account = registration();
    const registered = await anonymous.register(account);
    if (!registered.ok) throw new Error(registered.detail);
    const verified = await anonymous.verifyEmail({
      userId: registered.data.userId,
      requestToken: registered.data.requestToken,
      verificationCode: await latestCode(database.db, account.email),
    });
    if (!verified.ok) throw new Error(verified.detail);

    const client = createApiClient(contextWith(async (request) => api.fetch(request)).context, {
      token: verified.data.accessToken,
    });
    expect((await client.myDetails()).ok).toBe(true);
    const member = await client.createTeamMember({ firstName: "Zed", lastName: "Newman", email: "zed@example.com" });
    if (!member.ok) throw new Error(member.detail);
    const updated = await client.updateTeamMember(member.data.id, {
      firstName: "Zedd",
      lastName: "Newman",
      email: "zed@example.com",
    });
    expect(updated).toEqual({ ok: true, status: 204, data: undefined });
    const page = await client.listTeam({ pageNumber: 1, pageSize: 10, search: "zedd" });
    expect(page.ok && page.data.items.map((m) => m.firstName)).toEqual(["Zedd"]);
    expect(await client.removeTeamMember(member.data.id)).toMatchObject({ ok: true, status: 204 });
    const gone = await client.updateTeamMember(member.data.id, {
      firstName: "Zed",
      lastName: "Newman",
      email: "zed@example.com",
    });
    expect(gone).toMatchObject({ ok: false, status: 404 });
    const login = await anonymous.login({ userName: account.email, password: PASSWORD });
    expect(login.ok).toBe(true);
  });
});

describe("API client types (checked by tsc)", () => {
  it("takes the API's bodies and answers the API's JSON", () => {
    type Answer<M extends keyof ApiClient> = Awaited<ReturnType<ApiClient[M]>>;
    expectTypeOf<Answer<"login">>().toEqualTypeOf<ApiResult<LoginResponse | LoginChallengeResponse>>();
    expectTypeOf<Answer<"myDetails">>().toEqualTypeOf<ApiResult<MyDetails>>();
    expectTypeOf<Answer<"listTeam">>().toExtend<ApiResult<TeamPage>>();
    expectTypeOf<Answer<"joinWaitList">>().toEqualTypeOf<ApiResult<undefined>>();
    expectTypeOf<Parameters<ApiClient["login"]>[0]>().toExtend<{ userName: string; password: string }>();
    expectTypeOf<Parameters<ApiClient["updateReward"]>[0]>().not.toBeAny();
  });

  it("refuses a wrong body or a route the API does not have", () => {
    // Never run: each line must fail to compile, or tsc reports the unused @ts-expect-error.
    const compileErrors = (api: ApiClient, client: ReturnType<typeof hc<Api>>) => {
      // @ts-expect-error a required field missing
      void api.login({ userName: "a@b.c" });
      // @ts-expect-error a field of the wrong type
      void api.login({ userName: "a@b.c", password: 123 });
      // @ts-expect-error a field the schema does not have
      void api.createHelp({ message: "Hi", subject: "Hello" });
      // @ts-expect-error a route that does not exist
      void client.api.Identity.signin.$post({ json: {} });
      // @ts-expect-error a route under a method it does not answer
      void client.api.Identity.login.$get();
      // @ts-expect-error a query parameter the route does not read
      void api.listTeam({ pageNumber: 1, pageSize: 10, page: 2 });
    };
    expect(typeof compileErrors).toBe("function");
  });
});
