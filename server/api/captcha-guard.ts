import type { Context } from "hono";
import { Refusal } from "../refusal.ts";
import type { ApiDeps, ApiEnv } from "./deps.ts";

/** Refuses the call with docs/requirements.md §S8's captcha detail when the token does not prove a human. */
export async function requireCaptcha(
  deps: ApiDeps,
  c: Context<ApiEnv>,
  body: { captchaToken: string; isCaptchaV3: boolean },
  action: string,
): Promise<void> {
  const ok = await deps.captcha.verify({
    token: body.captchaToken,
    isV3: body.isCaptchaV3,
    action,
    remoteIp: c.get("clientIp"),
  });
  if (!ok) throw new Refusal("captcha-failed");
}
