// The browser validators of the account forms (account-forms.ts, kept free of zod) must give
// the server's messages (core/password.ts, core/account-forms.ts) for the same input.
import { describe, expect, it } from "vitest";
import { VERIFICATION_CODE_MESSAGE as CORE_CODE_MESSAGE } from "../../core/account-forms.ts";
import * as core from "../../core/password.ts";
import {
  newPasswordProblems,
  PASSWORD_MESSAGES,
  VERIFICATION_CODE_MESSAGE,
  validateForgot,
  validateLogin,
  validateReset,
  validateSignUp,
  validateVerify,
} from "./account-forms.ts";

const SAMPLES = [
  "",
  "a",
  "abcdefgh",
  "ABCDEFGH",
  "Abcdefg1",
  "Abcdefg!",
  "abcdef1!",
  "Abcdef1!",
  "ABCDEF1!",
  "Ab1!",
  "Pass word 1 !",
  'Quote"1x',
  "Tilde~1xY",
  "x".repeat(300),
  `A1!${"x".repeat(260)}`,
];

/** The errors of a browser validation, or undefined when it passed. */
function errorsOf(submission: object): Record<string, string[] | null> | undefined {
  return "error" in submission ? (submission.error as Record<string, string[] | null> | undefined) : undefined;
}

function form(entries: Record<string, string>) {
  const data = new FormData();
  for (const [name, value] of Object.entries(entries)) data.set(name, value);
  return data;
}

describe("password rules", () => {
  it("the verification-code message is the server's", () => {
    expect(VERIFICATION_CODE_MESSAGE).toBe(CORE_CODE_MESSAGE);
  });

  it("give the server's messages, plus the browser pattern's lower-case rule", () => {
    for (const sample of SAMPLES) {
      const server = core.passwordProblems(sample);
      const browser = newPasswordProblems(sample);
      if (server.length > 0) expect(browser, sample).toEqual(server);
      else
        expect(
          browser.filter((m) => m !== PASSWORD_MESSAGES.lowercase),
          sample,
        ).toEqual([]);
    }
    expect(newPasswordProblems("ABCDEF1!")).toEqual([PASSWORD_MESSAGES.lowercase]);
    expect(newPasswordProblems("Abcdef1!")).toEqual([]);
  });
});

describe("validators", () => {
  it("sign-up: SPEC's required messages, the password rules and the confirmation", () => {
    const blank = validateSignUp(form({}));
    expect(errorsOf(blank)).toMatchObject({
      firstName: ["First Name is required."],
      lastName: ["Last Name is required."],
      email: ["Email is required."],
      companyName: ["Company Name is required."],
      password: ["Password is required."],
      confirmPassword: ["Confirm Password is required."],
    });
    const mismatch = validateSignUp(
      form({
        firstName: "Ann",
        lastName: "Lee",
        email: "ann@example.com",
        companyName: "Acme",
        password: "Abcdef1!",
        confirmPassword: "Abcdef1?",
      }),
    );
    expect(errorsOf(mismatch)).toEqual({ confirmPassword: ["Passwords do not match."] });
    const long = validateSignUp(form({ firstName: "x".repeat(65), email: "not-an-email" }));
    expect(errorsOf(long)?.firstName).toEqual(["First Name must be at most 64 characters."]);
    expect(errorsOf(long)?.email).toEqual(["The email format is incorrect."]);
  });

  it("reset: 'Confirm password is required.' for its own label", () => {
    expect(errorsOf(validateReset(form({ password: "Abcdef1!" })))).toEqual({
      confirmPassword: ["Confirm password is required."],
    });
  });

  it("verify: exactly 6 digits", () => {
    for (const code of ["", "12345", "1234567", "12a456"]) {
      expect(errorsOf(validateVerify(form({ verificationCode: code }))), code).toEqual({
        verificationCode: [VERIFICATION_CODE_MESSAGE],
      });
    }
    expect(errorsOf(validateVerify(form({ verificationCode: " 123456 " })))).toBeUndefined();
  });

  it("login and forgot: required; forgot has no format rule", () => {
    expect(errorsOf(validateLogin(form({})))).toEqual({
      userName: ["Email is required."],
      password: ["Password is required."],
    });
    expect(errorsOf(validateForgot(form({})))).toEqual({ email: ["Email is required."] });
    expect(errorsOf(validateForgot(form({ email: "not-an-email" })))).toBeUndefined();
  });
});
