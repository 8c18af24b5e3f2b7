// The account schemas: the userId of the verification calls (docs/requirements.md §S7: the UUID Register
// answered, in either letter case, and nothing else; every refusal says "userId is required." as
// a missing one does), and the account forms' messages (docs/requirements.md §S5).
import { parseWithZod } from "@conform-to/zod/v4";
import { describe, expect, it } from "vitest";
import {
  COMPANY_SIZES,
  companyDetailsSchema,
  forgotFormSchema,
  helpSchema,
  INDUSTRIES,
  loginFormSchema,
  resetFormSchema,
  signUpFormSchema,
  VERIFICATION_CODE_MESSAGE,
  verifyEmailRequestSchema,
  verifyEmailSchema,
  verifyFormSchema,
} from "./schema.ts";

const ID = "0b7c9a51-3e2f-4d6a-9c8b-1f2e3d4c5b6a";

describe("userId", () => {
  it("takes a UUID, trimmed and in lower case", () => {
    expect(verifyEmailRequestSchema.parse({ userId: ID })).toEqual({ userId: ID });
    expect(verifyEmailRequestSchema.parse({ userId: ` ${ID.toUpperCase()}\n` })).toEqual({ userId: ID });
    expect(
      verifyEmailSchema.parse({ userId: ID.toUpperCase(), requestToken: "token", verificationCode: "123456" }),
    ).toEqual({ userId: ID, requestToken: "token", verificationCode: "123456" });
  });

  it.each([
    [undefined],
    [null],
    [""],
    ["   "],
    [1],
    [42],
    ["42"],
    [ID.replaceAll("-", "")],
    [`{${ID}}`],
    [`${ID}0`],
    [ID.replace("0", "g")],
    [[ID]],
    [{ id: ID }],
  ])("refuses %j with the missing-userId message", (userId) => {
    const result = verifyEmailRequestSchema.safeParse({ userId });
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => i.message)).toEqual(["userId is required."]);
  });
});

// ─── The account forms as posted: the route actions and the browser parse them with conform's
// parseWithZod (app/lib/forms.ts), so these are the messages people see (docs/requirements.md §S5) ───

/** The field errors of a post ({} when it passed). */
function errorsOf(schema: Parameters<typeof parseWithZod>[1]["schema"], entries: Record<string, string>) {
  const data = new FormData();
  for (const [name, value] of Object.entries(entries)) data.append(name, value);
  const submission = parseWithZod(data, { schema });
  return submission.status === "error" ? submission.error : {};
}

const SIGN_UP = {
  firstName: "Ann",
  lastName: "Lee",
  email: "ann@example.com",
  companyName: "Acme",
  password: "Abcdef1!",
  confirmPassword: "Abcdef1!",
};

describe("sign-up form", () => {
  it("says SPEC's '<label> is required.' for every blank field", () => {
    expect(errorsOf(signUpFormSchema, {})).toEqual({
      firstName: ["First Name is required."],
      lastName: ["Last Name is required."],
      email: ["Email is required."],
      companyName: ["Company Name is required."],
      password: ["Password is required."],
      confirmPassword: ["Confirm Password is required."],
    });
    expect(errorsOf(signUpFormSchema, { ...SIGN_UP, firstName: "  ", companyName: " " })).toEqual({
      firstName: ["First Name is required."],
      companyName: ["Company Name is required."],
    });
  });

  it("caps the names at 64, the email at 256, the company name at 100 characters (docs/requirements.md §S9)", () => {
    expect(errorsOf(signUpFormSchema, { ...SIGN_UP, firstName: "x".repeat(64), companyName: "x".repeat(100) })).toEqual(
      {},
    );
    expect(
      errorsOf(signUpFormSchema, {
        ...SIGN_UP,
        firstName: "x".repeat(65),
        lastName: "x".repeat(65),
        email: `${"x".repeat(251)}@b.com`,
        companyName: "x".repeat(101),
      }),
    ).toEqual({
      firstName: ["First Name must be at most 64 characters."],
      lastName: ["Last Name must be at most 64 characters."],
      email: ["Email must be at most 256 characters."],
      companyName: ["Company Name must be at most 100 characters."],
    });
  });

  it("checks the email's format once it is there", () => {
    for (const email of ["not-an-email", "a@b", "a..b@c.com"]) {
      expect(errorsOf(signUpFormSchema, { ...SIGN_UP, email }), email).toEqual({
        email: ["The email format is incorrect."],
      });
    }
    expect(errorsOf(signUpFormSchema, { ...SIGN_UP, email: " A+b@example.com.au " })).toEqual({});
  });

  it("lists every password rule the password fails, then the browser pattern's lower-case letter", () => {
    expect(errorsOf(signUpFormSchema, { ...SIGN_UP, password: "abc", confirmPassword: "abc" })).toEqual({
      password: [
        "Password must be at least 8 characters.",
        'Password must contain at least one special character (! @ # $ % ^ & * ( ) , . ? " : { } | < >).',
        "Password must contain at least one number.",
        "Password must contain at least one capital letter.",
      ],
    });
    expect(errorsOf(signUpFormSchema, { ...SIGN_UP, password: "ABCDEF1!", confirmPassword: "ABCDEF1!" })).toEqual({
      password: ["Password must contain at least one lowercase letter."],
    });
    const long = `A1!${"a".repeat(254)}`;
    expect(errorsOf(signUpFormSchema, { ...SIGN_UP, password: long, confirmPassword: long })).toEqual({
      password: ["Password must be at most 256 characters."],
      confirmPassword: ["Password must be at most 256 characters."],
    });
  });

  it("says 'Passwords do not match.' for a typed confirmation that differs, with the other fields' messages", () => {
    expect(errorsOf(signUpFormSchema, { ...SIGN_UP, confirmPassword: "Abcdef1?" })).toEqual({
      confirmPassword: ["Passwords do not match."],
    });
    expect(errorsOf(signUpFormSchema, { ...SIGN_UP, firstName: "", email: "x", confirmPassword: "Abcdef1?" })).toEqual({
      firstName: ["First Name is required."],
      email: ["The email format is incorrect."],
      confirmPassword: ["Passwords do not match."],
    });
  });

  it("hands the Register payload on: no confirmation, the captcha inputs as the API takes them", () => {
    const data = new FormData();
    for (const [name, value] of Object.entries({ ...SIGN_UP, isCaptchaV3: "false", captchaToken: "t" })) {
      data.append(name, value);
    }
    const submission = parseWithZod(data, { schema: signUpFormSchema });
    expect(submission.status === "success" && submission.value).toEqual({
      firstName: "Ann",
      lastName: "Lee",
      email: "ann@example.com",
      companyName: "Acme",
      password: "Abcdef1!",
      captchaToken: "t",
      isCaptchaV3: false,
    });
  });
});

describe("reset form", () => {
  it("names its own confirmation label, and has the sign-up's password rules", () => {
    expect(errorsOf(resetFormSchema, { password: "Abcdef1!" })).toEqual({
      confirmPassword: ["Confirm password is required."],
    });
    expect(errorsOf(resetFormSchema, { password: "abcdefgh", confirmPassword: "abcdefgh" })).toEqual({
      password: [
        'Password must contain at least one special character (! @ # $ % ^ & * ( ) , . ? " : { } | < >).',
        "Password must contain at least one number.",
        "Password must contain at least one capital letter.",
      ],
    });
    expect(errorsOf(resetFormSchema, { password: "Abcdef1!", confirmPassword: "Abcdef1?" })).toEqual({
      confirmPassword: ["Passwords do not match."],
    });
  });
});

describe("verify form", () => {
  const post = (verificationCode: string) => ({ intent: "verify", verificationCode });

  it.each(["", "12345", "1234567", "12a456"])("%j: 'Verification Code must have exactly 6 digits.'", (code) => {
    expect(errorsOf(verifyFormSchema, post(code))).toEqual({ verificationCode: [VERIFICATION_CODE_MESSAGE] });
  });

  it("takes 6 digits, trimmed; a resend needs no code", () => {
    expect(errorsOf(verifyFormSchema, post(" 123456 "))).toEqual({});
    expect(errorsOf(verifyFormSchema, { intent: "resend" })).toEqual({});
  });
});

describe("login and forgot forms", () => {
  it("login: both required; the Email field is an email address", () => {
    expect(errorsOf(loginFormSchema, {})).toEqual({
      userName: ["Email is required."],
      password: ["Password is required."],
    });
    expect(errorsOf(loginFormSchema, { userName: "not-an-email", password: "x" })).toEqual({
      userName: ["The email format is incorrect."],
    });
    expect(errorsOf(loginFormSchema, { userName: "ann@example.com", password: "x" })).toEqual({});
  });

  it("forgot: required, and no format rule (docs/requirements.md §S5)", () => {
    expect(errorsOf(forgotFormSchema, {})).toEqual({ email: ["Email is required."] });
    expect(errorsOf(forgotFormSchema, { email: "not-an-email" })).toEqual({});
  });
});

describe("company details form", () => {
  const valid = { name: "Acme Pty Ltd", ABN: "51824753556", size: "11-50", industry: "Retail" };

  it("gives docs/requirements.md §S5's messages", () => {
    expect(errorsOf(companyDetailsSchema, {})).toEqual({
      name: ["Company Name is required."],
      ABN: ["ABN is required."],
      size: ["Enterprise size is required."],
      industry: ["Industry is required."],
    });
    expect(errorsOf(companyDetailsSchema, { ...valid, ABN: "1234" })).toEqual({
      ABN: ["ABN must have exactly 11 digits."],
    });
    expect(errorsOf(companyDetailsSchema, { ...valid, ABN: "5182475355a" })).toEqual({
      ABN: ["ABN must have exactly 11 digits."],
    });
    expect(errorsOf(companyDetailsSchema, { ...valid, size: "12", industry: "Mining" })).toEqual({
      size: ["Enterprise size is required."],
      industry: ["Industry is required."],
    });
  });

  it("takes the spaced form people type, and SPEC's options", () => {
    expect(errorsOf(companyDetailsSchema, { ...valid, ABN: "51 824 753 556" })).toEqual({});
    for (const size of COMPANY_SIZES) expect(errorsOf(companyDetailsSchema, { ...valid, size })).toEqual({});
    for (const industry of INDUSTRIES) expect(errorsOf(companyDetailsSchema, { ...valid, industry })).toEqual({});
  });
});

describe("signed-in contact form", () => {
  it("requires the message and caps it at 256 characters", () => {
    expect(errorsOf(helpSchema, { message: "   " })).toEqual({ message: ["Message is required."] });
    expect(errorsOf(helpSchema, { message: "x".repeat(256) })).toEqual({});
    expect(errorsOf(helpSchema, { message: "x".repeat(257) })).toEqual({
      message: ["Message must be less than 256 characters."],
    });
  });
});
