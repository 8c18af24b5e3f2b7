// The public forms as posted (docs/requirements.md §S5 waitlist and contact): the messages the route actions
// answer and the browser shows, both reading a post with conform's parseWithZod.
import { parseWithZod } from "@conform-to/zod/v4";
import { describe, expect, it } from "vitest";
import { contactFormSchema, TERMS_REQUIRED_MESSAGE, waitlistFormSchema } from "./public-forms.ts";

function post(schema: Parameters<typeof parseWithZod>[1]["schema"], entries: Record<string, string>) {
  const data = new FormData();
  for (const [name, value] of Object.entries(entries)) data.append(name, value);
  return parseWithZod(data, { schema });
}

const errorsOf = (submission: ReturnType<typeof post>) => (submission.status === "error" ? submission.error : {});

describe("waitlist form", () => {
  const valid = { firstName: "Ann", lastName: "Lee", email: "ann@example.com", companyName: "Acme", terms: "on" };

  it("requires every field and the terms box", () => {
    expect(errorsOf(post(waitlistFormSchema, {}))).toEqual({
      firstName: ["First Name is required."],
      lastName: ["Last Name is required."],
      email: ["Email is required."],
      companyName: ["Company Name is required."],
      terms: [TERMS_REQUIRED_MESSAGE],
    });
    expect(TERMS_REQUIRED_MESSAGE).toBe(
      "Please agree to the Terms and Conditions and the Privacy Policy to join the waitlist.",
    );
  });

  it("checks lengths and the email's format", () => {
    expect(
      errorsOf(
        post(waitlistFormSchema, { ...valid, lastName: "x".repeat(65), email: "a@b", companyName: "x".repeat(101) }),
      ),
    ).toEqual({
      lastName: ["Last Name must be at most 64 characters."],
      email: ["The email format is incorrect."],
      companyName: ["Company Name must be at most 100 characters."],
    });
  });

  it("hands the API its payload: opted in, without the terms box", () => {
    const submission = post(waitlistFormSchema, { ...valid, captchaToken: "", isCaptchaV3: "true" });
    expect(submission.status === "success" && submission.value).toEqual({
      firstName: "Ann",
      lastName: "Lee",
      email: "ann@example.com",
      companyName: "Acme",
      isOptedIn: true,
      captchaToken: "",
      isCaptchaV3: true,
    });
  });
});

describe("public contact form", () => {
  const valid = { firstName: "Ann", lastName: "Lee", email: "ann@example.com", message: "Hello" };

  it("requires every field and caps the message at 256 characters", () => {
    expect(errorsOf(post(contactFormSchema, {}))).toEqual({
      firstName: ["First Name is required."],
      lastName: ["Last Name is required."],
      email: ["Email is required."],
      message: ["Message is required."],
    });
    expect(errorsOf(post(contactFormSchema, { ...valid, message: "x".repeat(256) }))).toEqual({});
    expect(errorsOf(post(contactFormSchema, { ...valid, message: "x".repeat(257) }))).toEqual({
      message: ["Message must be less than 256 characters."],
    });
  });
});
