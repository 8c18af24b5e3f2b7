import { describe, expect, it } from "vitest";
import {
  formPasswordRuleProblems,
  isPasswordAcceptable,
  PASSWORD_HTML_PATTERN,
  PASSWORD_RULES,
  PASSWORD_SPECIAL_CHARACTERS,
  passwordChecklist,
  passwordProblems,
} from "./password.ts";
import { newPasswordField } from "./schema.ts";

const messages = Object.fromEntries(PASSWORD_RULES.map((r) => [r.id, r.message]));

describe("password rules (docs/requirements.md §S5)", () => {
  it("accepts a password meeting every rule", () => {
    expect(passwordProblems("Secret#2024")).toEqual([]);
    expect(isPasswordAcceptable("Abcdefg1!")).toBe(true);
    expect(passwordChecklist("Abcdefg1!")).toEqual({ minLength: true, specialChar: true, number: true, capital: true });
  });

  it("needs at least 8 characters (7 fails, 8 passes)", () => {
    expect(passwordProblems("Abcde1!")).toEqual([messages.minLength]);
    expect(passwordProblems("Abcdef1!")).toEqual([]);
  });

  it("accepts each of SPEC's special characters, and only those", () => {
    expect([...PASSWORD_SPECIAL_CHARACTERS].join(" ")).toBe('! @ # $ % ^ & * ( ) , . ? " : { } | < >');
    for (const ch of PASSWORD_SPECIAL_CHARACTERS) {
      expect(passwordChecklist(`Abcdefg1${ch}`).specialChar, ch).toBe(true);
    }
    for (const ch of ["-", "_", "+", "=", "[", "]", "~", "/", "\\", ";", "'", "`", " "]) {
      expect(passwordProblems(`Abcdefg1${ch}`), ch).toEqual([messages.specialChar]);
    }
  });

  it("needs a digit and a capital letter", () => {
    expect(passwordProblems("Abcdefgh!")).toEqual([messages.number]);
    expect(passwordProblems("abcdefg1!")).toEqual([messages.capital]);
  });

  it("lists every failed rule in checklist order, with clear messages", () => {
    expect(passwordProblems("abc")).toEqual([
      "Password must be at least 8 characters.",
      'Password must contain at least one special character (! @ # $ % ^ & * ( ) , . ? " : { } | < >).',
      "Password must contain at least one number.",
      "Password must contain at least one capital letter.",
    ]);
    expect(passwordChecklist("abc")).toEqual({ minLength: false, specialChar: false, number: false, capital: false });
  });

  it("requires a password, and caps its length", () => {
    expect(passwordProblems("")).toEqual(["Password is required."]);
    expect(passwordProblems(`A1!${"a".repeat(254)}`)).toEqual(["Password must be at most 256 characters."]);
    expect(passwordProblems(`A1!${"a".repeat(253)}`)).toEqual([]);
  });

  it("the zod field reports the same messages", () => {
    const r = newPasswordField.safeParse("abcdefgh");
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.message)).toEqual([messages.specialChar, messages.number, messages.capital]);
    expect(newPasswordField.safeParse(undefined).error?.issues[0]?.message).toBe("Password is required.");
    expect(newPasswordField.parse(" Secret#2024 ")).toBe(" Secret#2024 ");
  });

  it("the forms add the browser pattern's lower-case letter, once the checklist is met", () => {
    expect(formPasswordRuleProblems("ABCDEF1!")).toEqual(["Password must contain at least one lowercase letter."]);
    expect(formPasswordRuleProblems("ABCDEFG1")).toEqual([messages.specialChar]);
    expect(formPasswordRuleProblems("Abcdef1!")).toEqual([]);
    expect(formPasswordRuleProblems("")).toEqual(["Password is required."]);
  });

  it("exposes SPEC's browser pattern (digit, lower-case, non-word, 6+)", () => {
    const re = new RegExp(`^(?:${PASSWORD_HTML_PATTERN})$`, "v");
    expect(re.test("Secret#2024")).toBe(true);
    expect(re.test("SECRET#2024")).toBe(false);
    expect(re.test("a1!bc")).toBe(false);
  });
});
