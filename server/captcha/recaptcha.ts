// reCAPTCHA: the v3 token must pass with a good enough score for the expected action; the
// visible v2 challenge token must simply succeed. Both are checked at Google's verify endpoint
// (RECAPTCHA_VERIFY_URL, which tests point at msw).
import type { Logger } from "../logger.ts";
import type { Captcha } from "./port.ts";

export const V3_MIN_SCORE = 0.5;

export interface RecaptchaOptions {
  verifyUrl: string;
  v3Secret: string;
  v2Secret: string;
  logger: Logger;
  minScore?: number;
  timeoutMs?: number;
}

interface VerifyAnswer {
  success?: boolean;
  score?: number;
  action?: string;
  "error-codes"?: string[];
}

export function recaptcha(options: RecaptchaOptions): Captcha {
  const minScore = options.minScore ?? V3_MIN_SCORE;
  return {
    enabled: true,
    async verify({ token, isV3, action, remoteIp }) {
      if (!token) return false;
      const body = new URLSearchParams({ secret: isV3 ? options.v3Secret : options.v2Secret, response: token });
      if (remoteIp) body.set("remoteip", remoteIp);
      let answer: VerifyAnswer;
      try {
        const response = await fetch(options.verifyUrl, {
          method: "POST",
          body,
          signal: AbortSignal.timeout(options.timeoutMs ?? 5_000),
        });
        if (!response.ok) throw new Error(`verify endpoint answered ${response.status}`);
        answer = (await response.json()) as VerifyAnswer;
      } catch (error) {
        // Fail closed: the visible challenge is offered instead.
        options.logger.warn(
          { err: error instanceof Error ? error.message : String(error) },
          "captcha verify unavailable",
        );
        return false;
      }
      if (answer.success !== true) return false;
      if (!isV3) return true;
      return (answer.score ?? 0) >= minScore && (!answer.action || answer.action === action);
    },
  };
}
