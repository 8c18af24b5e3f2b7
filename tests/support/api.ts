// Calling the provider API in tests: createApi(deps) over a test database, JSON helpers, and
// a Captcha double that records what it was asked.
import { expect } from "vitest";
import { createApi } from "../../server/api/index.ts";
import type { Captcha, CaptchaCheck } from "../../server/captcha/port.ts";
import type { Config } from "../../server/config.ts";
import type { Db } from "../../server/db/client.ts";
import type { Logger } from "../../server/logger.ts";
import { testConfig } from "./config.ts";
import { captureLogs } from "./logs.ts";

export interface TestApiOptions {
  config?: Config;
  logger?: Logger;
  captcha?: Captcha;
  onEmailQueued?: () => void;
}

export function createTestApi(db: Db, options: TestApiOptions = {}) {
  return createApi({
    db,
    config: options.config ?? testConfig(),
    logger: options.logger ?? captureLogs("silent").logger,
    captcha: options.captcha ?? fakeCaptcha(true),
    onEmailQueued: options.onEmailQueued,
  });
}

/** A Captcha that answers `verdict` (or a function of the check) and remembers each check. */
export function fakeCaptcha(
  verdict: boolean | ((check: CaptchaCheck) => boolean),
): Captcha & { checks: CaptchaCheck[] } {
  const checks: CaptchaCheck[] = [];
  return {
    enabled: true,
    checks,
    async verify(check) {
      checks.push(check);
      return typeof verdict === "function" ? verdict(check) : verdict;
    },
  };
}

type Fetchable = { request: (path: string, init?: RequestInit) => Response | Promise<Response> };

export function postJson(api: Fetchable, path: string, body: unknown, headers: Record<string, string> = {}) {
  return api.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

export interface ProblemJson {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: Record<string, string[]>;
}

/** Asserts a response's status (200 unless told) and returns its JSON body. */
export async function expectJson<T>(response: Response, status = 200): Promise<T> {
  expect(response.status, await response.clone().text()).toBe(status);
  return (await response.json()) as T;
}

/** Asserts an RFC 9457 problem response with the given status and returns its body. */
export async function expectProblem(response: Response, status: number): Promise<ProblemJson> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get("content-type")).toMatch(/^application\/problem\+json/);
  const body = JSON.parse(text) as ProblemJson;
  expect(body.status).toBe(status);
  expect(typeof body.detail).toBe("string");
  expect(body.detail.length).toBeGreaterThan(0);
  return body;
}
