// The two-factor schemas (ADR 0042) as the API and the forms read them: the authenticator code
// (6 digits, or "123 456" as apps show it), the recovery code, exactly one of the two at the
// login's second step, and each form of the security page with its own message.
import { parseWithZod } from "@conform-to/zod/v4";
import { describe, expect, it } from "vitest";
import {
  loginCodeFormSchema,
  loginCodeSchema,
  securityFormSchema,
  TWO_FACTOR_MESSAGES,
  twoFactorConfirmSchema,
  twoFactorRequirementSchema,
} from "./schema.ts";

/** The field errors of a parsed post ({} when it passed). */
const errorsOf = (submission: { status?: string; error?: unknown }) =>
  (submission.status === "error" ? submission.error : {}) as Record<string, string[] | null>;

const form = (entries: Record<string, string>) => {
  const data = new FormData();
  for (const [name, value] of Object.entries(entries)) data.append(name, value);
  return data;
};

describe("the authenticator code", () => {
  it.each(["123456", " 123456 ", "123 456", "000000"])("takes %j", (code) => {
    expect(twoFactorConfirmSchema.safeParse({ code }).success).toBe(true);
  });

  it.each(["", "12345", "1234567", "12 3456", "abcdef", "12345a", "123  456"])(
    "refuses %j with its message",
    (code) => {
      const parsed = twoFactorConfirmSchema.safeParse({ code });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues.map((i) => i.message)).toEqual([TWO_FACTOR_MESSAGES.code]);
    },
  );
});

describe("the login's second step", () => {
  it("takes a code or a recovery code, never both or neither", () => {
    expect(loginCodeSchema.safeParse({ challengeToken: "t", code: "123456" }).success).toBe(true);
    expect(loginCodeSchema.safeParse({ challengeToken: "t", recoveryCode: "abcde-fghjk" }).success).toBe(true);
    for (const body of [
      { challengeToken: "t" },
      { challengeToken: "t", code: "123456", recoveryCode: "abcde-fghjk" },
    ]) {
      const parsed = loginCodeSchema.safeParse(body);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues[0]?.message).toBe(TWO_FACTOR_MESSAGES.codeOrRecovery);
    }
    expect(loginCodeSchema.safeParse({ challengeToken: "", code: "123456" }).success).toBe(false);
  });

  it("the code page's two forms: each intent checks its own field", () => {
    const code = parseWithZod(form({ intent: "code", code: "12" }), { schema: loginCodeFormSchema });
    expect(code.status).toBe("error");
    expect(errorsOf(code).code).toEqual([TWO_FACTOR_MESSAGES.code]);
    const recovery = parseWithZod(form({ intent: "recovery", recoveryCode: "" }), { schema: loginCodeFormSchema });
    expect(errorsOf(recovery).recoveryCode).toEqual([TWO_FACTOR_MESSAGES.recoveryCode]);
    const ok = parseWithZod(form({ intent: "recovery", recoveryCode: " ABCDE-FGHJK " }), {
      schema: loginCodeFormSchema,
    });
    expect(ok.status).toBe("success");
    expect(ok.status === "success" && ok.value).toEqual({ intent: "recovery", recoveryCode: "ABCDE-FGHJK" });
  });
});

describe("the security page's forms", () => {
  it("turning off and new codes need the password; the requirement is on or off, nothing else", () => {
    const off = parseWithZod(form({ intent: "disable" }), { schema: securityFormSchema });
    expect(errorsOf(off).password).toEqual(["Password is required."]);
    const on = parseWithZod(form({ intent: "requirement", required: "on" }), { schema: securityFormSchema });
    expect(on.status === "success" && on.value).toEqual({ intent: "requirement", required: true });
    const offReq = parseWithZod(form({ intent: "requirement", required: "off" }), { schema: securityFormSchema });
    expect(offReq.status === "success" && offReq.value).toEqual({ intent: "requirement", required: false });
    expect(parseWithZod(form({ intent: "requirement", required: "yes" }), { schema: securityFormSchema }).status).toBe(
      "error",
    );
    expect(twoFactorRequirementSchema.safeParse({ required: "true" }).success).toBe(false);
  });
});
