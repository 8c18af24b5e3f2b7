// The web's API client (app/lib/api.server.ts, ADR 0016): the requests it builds and the answers
// it gives at run time, against a recording fetch and against the real API in process; and, for
// tsc (`npm run typecheck`), that its bodies and answers are the API's own types, so a wrong
// body or a route that does not exist is a compile error.
import type { InferRequestType } from "hono/client";
import { RouterContextProvider } from "react-router";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi } from "vitest";
import { accountsApi, latestCode, PASSWORD, registration } from "../../modules/identity/accounts.testkit.ts";
import type { LoginResponse, MyDetails } from "../../modules/identity/schema.ts";
import type { TeamPage } from "../../modules/team/schema.ts";
import type { LoginChallengeResponse } from "../../modules/two-factor/schema.ts";
import { testConfig } from "../../tests/support/config.ts";
import { openTestDatabase, type TestDatabase } from "../../tests/support/db.ts";
import { type RequestServices, webContext } from "../context.ts";
import { type ApiClient, type ApiResult, asQuery, createApiClient } from "./api.server.ts";

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
    const client = createApiClient(contextWith(apiFetch).context, { token: "token-0123456789abcdef" });
    const result = await client.call((api) =>
      api.Identity.login.$post({ json: { userName: "a@b.c", password: "pw", captchaToken: "c", isCaptchaV3: true } }),
    );
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
    const result = await createApiClient(contextWith(apiFetch).context).call((api) =>
      api.RewardMyTeam["delete-all-reward"].$delete(),
    );
    expect(result).toEqual({ ok: true, status: 204, data: undefined });
    expect(sent[0]?.method).toBe("DELETE");
    expect(sent[0]?.url).toBe("http://api.internal/api/RewardMyTeam/delete-all-reward");
    expect(sent[0]?.body).toBe("");
    expect(sent[0]?.headers.get("content-type")).toBeNull();
    expect(sent[0]?.headers.get("authorization")).toBeNull();
  });

  it("puts the member id in the path and the body, and the list query in the URL", async () => {
    const { sent, apiFetch } = recording();
    const client = createApiClient(contextWith(apiFetch).context);
    await client.call((api) =>
      api.Users[":id"].$put({
        param: { id: String(42) },
        json: { id: 42, firstName: "Ann", lastName: "Lee", email: "ann@example.com" },
      }),
    );
    await client.call((api) =>
      api.Users.$get({ query: asQuery({ pageNumber: 2, pageSize: 10, search: "a b", isRewardMyTeam: true }) }),
    );
    await client.call((api) =>
      api.RewardMyTeam["get-reward-page"].$get({ query: asQuery({ pageNumber: 3, pageSize: 7 }) }),
    );
    await client.call((api) => api.RewardMyTeam["delete-reward"].$delete({ json: { userId: 9 } }));
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
    const result = await createApiClient(contextWith(apiFetch).context).call((api) =>
      api.Identity.login.$post({ json: { userName: "", password: "x" } }),
    );
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
    const result = await createApiClient(context).call((api) =>
      api.WaitList.$post({
        json: { firstName: "A", lastName: "B", email: "a@b.c", companyName: "C", isOptedIn: true },
      }),
    );
    expect(result).toEqual({ ok: false, status: 503, detail: FALLBACK_DETAIL });
    expect(logger.error).toHaveBeenCalledWith({ err: "boom", path: "WaitList" }, "provider API unreachable");
  });

  it("calls onUnauthorized on a 401", async () => {
    const { apiFetch } = recording(() => Response.json({ detail: "Unauthorized" }, { status: 401 }));
    const onUnauthorized = vi.fn(async (): Promise<never> => {
      throw new Error("redirected");
    });
    const client = createApiClient(contextWith(apiFetch).context, {
      token: "expired-token-0123456789",
      onUnauthorized,
    });
    await expect(client.call((api) => api.Users.MyDetails.$get())).rejects.toThrow("redirected");
    expect(onUnauthorized).toHaveBeenCalledOnce();
  });
});

describe("API client: a GET on its way is not sent twice", () => {
  it("answers the same GET asked twice at once from one call, each caller with its own body", async () => {
    let n = 0;
    const { sent, apiFetch } = recording(() => Response.json({ n: ++n }));
    const client = createApiClient(contextWith(apiFetch).context, { token: "token-0123456789abcdef" });
    const [a, b] = await Promise.all([
      client.call((api) => api.Users.MyDetails.$get()),
      client.call((api) => api.Users.MyDetails.$get()),
    ]);
    expect(sent).toHaveLength(1);
    expect(a).toEqual({ ok: true, status: 200, data: { n: 1 } });
    expect(b).toEqual(a);
    // Another address is asked on its own.
    await client.call((api) => api.Users.MySessions.$get());
    expect(sent.map((r) => r.url)).toEqual([
      "http://api.internal/api/Users/MyDetails",
      "http://api.internal/api/Users/MySessions",
    ]);
  });

  it("asks again once the answer is in, so an action polling a job's progress sees it move", async () => {
    let n = 0;
    const { sent, apiFetch } = recording(() => Response.json({ n: ++n }));
    const client = createApiClient(contextWith(apiFetch).context, { token: "token-0123456789abcdef" });
    const first = await client.call((api) => api.Users.MyDetails.$get());
    const second = await client.call((api) => api.Users.MyDetails.$get());
    expect(sent).toHaveLength(2);
    expect([first, second]).toEqual([
      { ok: true, status: 200, data: { n: 1 } },
      { ok: true, status: 200, data: { n: 2 } },
    ]);
  });

  it("asks again after any other method, so what an action wrote is read afresh", async () => {
    let n = 0;
    const { sent, apiFetch } = recording(() => Response.json({ n: ++n }));
    const client = createApiClient(contextWith(apiFetch).context, { token: "token-0123456789abcdef" });
    await client.call((api) => api.Users.MyDetails.$get());
    await client.call((api) => api.Identity["onboarding-video-watched"].$post());
    const after = await client.call((api) => api.Users.MyDetails.$get());
    expect(sent.map((r) => r.method)).toEqual(["GET", "POST", "GET"]);
    expect(after).toEqual({ ok: true, status: 200, data: { n: 3 } });
  });
});

describe("API client against the API in process", () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await openTestDatabase("pglite");
  });
  afterAll(() => database.close());

  it("signs up, verifies and manages a team member through every kind of route", async () => {
    const { api: provider } = accountsApi(database.db, { config: testConfig() });
    const anonymous = createApiClient(contextWith(async (request) => provider.fetch(request)).context);
    const account = registration();
    const registered = await anonymous.call((api) => api.Register.$post({ json: account }));
    if (!registered.ok) throw new Error(registered.detail);
    const verificationCode = await latestCode(database.db, account.email);
    const verified = await anonymous.call((api) =>
      api.Identity.VerifyEmail.$post({
        json: { userId: registered.data.userId, requestToken: registered.data.requestToken, verificationCode },
      }),
    );
    if (!verified.ok) throw new Error(verified.detail);
    if (!("accessToken" in verified.data)) throw new Error("a second factor was asked for");

    const client = createApiClient(contextWith(async (request) => provider.fetch(request)).context, {
      token: verified.data.accessToken,
    });
    expect((await client.call((api) => api.Users.MyDetails.$get())).ok).toBe(true);
    const member = await client.call((api) =>
      api.Users["create-user"].$post({ json: { firstName: "Zed", lastName: "Newman", email: "zed@example.com" } }),
    );
    if (!member.ok) throw new Error(member.detail);
    const id = member.data.id;
    const updated = await client.call((api) =>
      api.Users[":id"].$put({
        param: { id: String(id) },
        json: { id, firstName: "Zedd", lastName: "Newman", email: "zed@example.com" },
      }),
    );
    expect(updated).toEqual({ ok: true, status: 204, data: undefined });
    const page = await client.call((api) =>
      api.Users.$get({ query: asQuery({ pageNumber: 1, pageSize: 10, search: "zedd" }) }),
    );
    expect(page.ok && page.data.items.map((m) => m.firstName)).toEqual(["Zedd"]);
    expect(await client.call((api) => api.Users[":id"].$delete({ param: { id: String(id) } }))).toMatchObject({
      ok: true,
      status: 204,
    });
    const gone = await client.call((api) =>
      api.Users[":id"].$put({
        param: { id: String(id) },
        json: { id, firstName: "Zed", lastName: "Newman", email: "zed@example.com" },
      }),
    );
    expect(gone).toMatchObject({ ok: false, status: 404 });
    const login = await anonymous.call((api) =>
      api.Identity.login.$post({ json: { userName: account.email, password: PASSWORD } }),
    );
    expect(login.ok).toBe(true);
  });
});

describe("API client types (checked by tsc)", () => {
  it("takes the API's bodies and answers the API's JSON", () => {
    // Never run: the calls whose answers are checked.
    const calls = (client: ApiClient) => ({
      login: client.call((api) => api.Identity.login.$post({ json: { userName: "a@b.c", password: "pw" } })),
      myDetails: client.call((api) => api.Users.MyDetails.$get()),
      listTeam: client.call((api) => api.Users.$get({ query: asQuery({ pageNumber: 1, pageSize: 10 }) })),
      joinWaitList: client.call((api) =>
        api.WaitList.$post({
          json: { firstName: "A", lastName: "B", email: "a@b.c", companyName: "C", isOptedIn: true },
        }),
      ),
    });
    type Answer<K extends keyof ReturnType<typeof calls>> = Awaited<ReturnType<typeof calls>[K]>;
    expectTypeOf<Answer<"login">>().toEqualTypeOf<ApiResult<LoginResponse | LoginChallengeResponse>>();
    expectTypeOf<Answer<"myDetails">>().toEqualTypeOf<ApiResult<MyDetails>>();
    expectTypeOf<Answer<"listTeam">>().toExtend<ApiResult<TeamPage>>();
    expectTypeOf<Answer<"joinWaitList">>().toEqualTypeOf<ApiResult<undefined>>();
    // The routes a call's callback is given, and the bodies they take.
    type Routes = Parameters<Parameters<ApiClient["call"]>[0]>[0];
    type Body<Call> = InferRequestType<Call> extends { json: infer J } ? J : never;
    expectTypeOf<Body<Routes["Identity"]["login"]["$post"]>>().toExtend<{ userName: string; password: string }>();
    expectTypeOf<Body<Routes["RewardMyTeam"]["update-reward"]["$put"]>["userId"]>().not.toBeAny();
  });

  it("refuses a wrong body or a route the API does not have", () => {
    // Never run: each line must fail to compile, or tsc reports the unused @ts-expect-error.
    const compileErrors = (client: ApiClient) => {
      // @ts-expect-error a required field missing
      void client.call((api) => api.Identity.login.$post({ json: { userName: "a@b.c" } }));
      // @ts-expect-error a field of the wrong type
      void client.call((api) => api.Identity.login.$post({ json: { userName: "a@b.c", password: 123 } }));
      // @ts-expect-error a field the schema does not have
      void client.call((api) => api.Help["create-help"].$post({ json: { message: "Hi", subject: "Hello" } }));
      // @ts-expect-error a route that does not exist
      void client.call((api) => api.Identity.signin.$post({ json: {} }));
      // @ts-expect-error a route under a method it does not answer
      void client.call((api) => api.Identity.login.$get());
      // @ts-expect-error a query parameter the route does not read
      void client.call((api) => api.Users.$get({ query: { pageNumber: "1", pageSize: "10", page: "2" } }));
      // @ts-expect-error a path parameter the route does not have
      void client.call((api) => api.Users[":id"].$delete({ param: { userId: "1" } }));
    };
    expect(typeof compileErrors).toBe("function");
  });
});
