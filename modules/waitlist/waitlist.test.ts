// POST /api/WaitList (docs/requirements.md §S7, §S8) against the real database.
import { count } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import { waitlistEntries } from "../../server/db/schema.ts";
import { createTestApi, expectProblem, fakeCaptcha, postJson } from "../../tests/support/api.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";

const valid = {
  firstName: "Jane",
  lastName: "Citizen",
  email: "jane.citizen@example.com",
  companyName: "Acme Pty Ltd",
  isOptedIn: true,
  captchaToken: "token-from-the-browser",
  isCaptchaV3: true,
};

const without = (key: keyof typeof valid) => Object.fromEntries(Object.entries(valid).filter(([k]) => k !== key));

describeEachDatabase("POST /api/WaitList", ({ database }) => {
  beforeEach(() => truncateAll(database().db));

  const rows = () => database().db.select().from(waitlistEntries);
  const stored = async () => (await database().db.select({ n: count() }).from(waitlistEntries))[0]?.n;

  it("adds the entry and answers 200", async () => {
    const captcha = fakeCaptcha(true);
    const res = await postJson(createTestApi(database().db, { captcha }), "/api/WaitList", valid);
    expect(res.status).toBe(200);
    const [row, ...others] = await rows();
    expect(others).toHaveLength(0);
    expect(row).toMatchObject({
      firstName: "Jane",
      lastName: "Citizen",
      email: "jane.citizen@example.com",
      companyName: "Acme Pty Ltd",
      isOptedIn: true,
    });
    expect(captcha.checks).toEqual([
      expect.objectContaining({ token: "token-from-the-browser", isV3: true, action: "waitlist" }),
    ]);
  });

  it("trims the fields, keeps isOptedIn false, and defaults it to true when absent", async () => {
    const api = createTestApi(database().db);
    expect(
      (
        await postJson(api, "/api/WaitList", {
          ...valid,
          firstName: "  Jane ",
          email: "  jane@example.com ",
          isOptedIn: false,
        })
      ).status,
    ).toBe(200);
    expect((await postJson(api, "/api/WaitList", { ...without("isOptedIn"), email: "bob@example.com" })).status).toBe(
      200,
    );
    const byEmail = Object.fromEntries((await rows()).map((r) => [r.email, r]));
    expect(byEmail["jane@example.com"]).toMatchObject({ firstName: "Jane", isOptedIn: false });
    expect(byEmail["bob@example.com"]).toMatchObject({ isOptedIn: true });
  });

  it("accepts fields at their maximum length", async () => {
    const email = `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(59)}.com`;
    expect(email).toHaveLength(256);
    const res = await postJson(createTestApi(database().db), "/api/WaitList", {
      ...valid,
      firstName: "F".repeat(64),
      lastName: "L".repeat(64),
      companyName: "C".repeat(100),
      email,
    });
    expect(res.status).toBe(200);
    expect(await stored()).toBe(1);
  });

  it("refuses an address already on the list, in any letter case, with SPEC's detail", async () => {
    const api = createTestApi(database().db);
    expect((await postJson(api, "/api/WaitList", valid)).status).toBe(200);
    const again = await postJson(api, "/api/WaitList", {
      ...valid,
      firstName: "Other",
      email: "JANE.Citizen@Example.COM",
    });
    const problem = await expectProblem(again, 409);
    expect(problem.detail).toBe("Email is already in the waitlist.");
    expect(problem.detail).toBe(DETAILS.waitlistDuplicate);
    const all = await rows();
    expect(all).toHaveLength(1);
    expect(all[0]?.firstName).toBe("Jane");
  });

  it("keeps one entry when the same address arrives several times at once", async () => {
    const api = createTestApi(database().db);
    const answers = await Promise.all(
      ["a@race.example", "A@race.example", "a@RACE.example", "a@race.EXAMPLE", "a@race.example"].map((email) =>
        postJson(api, "/api/WaitList", { ...valid, email }),
      ),
    );
    expect(answers.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(await stored()).toBe(1);
  });

  it("refuses a failed captcha with SPEC's detail and stores nothing", async () => {
    const captcha = fakeCaptcha(false);
    const res = await postJson(createTestApi(database().db, { captcha }), "/api/WaitList", {
      ...valid,
      isCaptchaV3: false,
    });
    const problem = await expectProblem(res, 400);
    expect(problem.detail).toBe("Captcha verification failed. Please complete additional verification steps.");
    expect(captcha.checks).toEqual([expect.objectContaining({ isV3: false, action: "waitlist" })]);
    expect(await stored()).toBe(0);
  });

  describe("bad bodies: 400 with a detail, nothing stored, captcha not spent", () => {
    const cases: Array<[string, unknown, string | RegExp]> = [
      ["an empty object", {}, "First Name is required."],
      ["no first name", without("firstName"), "First Name is required."],
      ["no last name", without("lastName"), "Last Name is required."],
      ["no email", without("email"), "Email is required."],
      ["no company name", without("companyName"), "Company Name is required."],
      ["a blank first name", { ...valid, firstName: "   " }, "First Name is required."],
      ["an empty email", { ...valid, email: "" }, "Email is required."],
      ["a malformed email", { ...valid, email: "jane-at-example.com" }, "The email format is incorrect."],
      ["a number for the first name", { ...valid, firstName: 42 }, /First Name/],
      ["null for the email", { ...valid, email: null }, /Email/],
      ["a string for isOptedIn", { ...valid, isOptedIn: "yes" }, /./],
      ["a string for isCaptchaV3", { ...valid, isCaptchaV3: "true" }, /./],
      ["an object for captchaToken", { ...valid, captchaToken: { t: 1 } }, /./],
      [
        "a 65-character first name",
        { ...valid, firstName: "F".repeat(65) },
        "First Name must be at most 64 characters.",
      ],
      ["a 65-character last name", { ...valid, lastName: "L".repeat(65) }, "Last Name must be at most 64 characters."],
      [
        "a 101-character company name",
        { ...valid, companyName: "C".repeat(101) },
        "Company Name must be at most 100 characters.",
      ],
      [
        "a 257-character email",
        { ...valid, email: `${"a".repeat(64)}@${"b".repeat(180)}.example.com` },
        "Email must be at most 256 characters.",
      ],
      ["an array", [valid], "The request body must be a JSON object."],
      ["null", null, "The request body must be a JSON object."],
      ["a JSON string", '"jane@example.com"', "The request body must be a JSON object."],
      ["malformed JSON", '{"firstName": "Jane",', "The request body is not valid JSON."],
      ["an empty body", "", "The request body is not valid JSON."],
    ];

    it.each(cases)("%s", async (_label, body, detail) => {
      const captcha = fakeCaptcha(true);
      const api = createTestApi(database().db, { captcha });
      const raw = typeof body === "string" ? body : JSON.stringify(body);
      const problem = await expectProblem(await postJson(api, "/api/WaitList", raw), 400);
      if (typeof detail === "string") expect(problem.detail).toBe(detail);
      else expect(problem.detail).toMatch(detail);
      expect(await stored()).toBe(0);
      expect(captcha.checks).toHaveLength(0);
    });

    it.each([
      ["text/plain", JSON.stringify(valid)],
      ["application/x-www-form-urlencoded", new URLSearchParams(valid as never).toString()],
      ["multipart/form-data; boundary=x", `--x\r\nContent-Disposition: form-data; name="email"\r\n\r\na@b.c\r\n--x--`],
    ])("content type %s is refused with 415", async (type, body) => {
      const res = await createTestApi(database().db).request("/api/WaitList", {
        method: "POST",
        headers: { "content-type": type },
        body,
      });
      const problem = await expectProblem(res, 415);
      expect(problem.detail).toMatch(/JSON/);
      expect(await stored()).toBe(0);
    });

    it("no content type at all is refused with 415", async () => {
      const res = await createTestApi(database().db).request("/api/WaitList", {
        method: "POST",
        body: new Blob([JSON.stringify(valid)]),
      });
      await expectProblem(res, 415);
      expect(await stored()).toBe(0);
    });

    it("a body over 1 MB is refused with 413", async () => {
      const res = await postJson(createTestApi(database().db), "/api/WaitList", {
        ...valid,
        padding: "x".repeat(1_100_000),
      });
      await expectProblem(res, 413);
      expect(await stored()).toBe(0);
    });

    it("field errors name the fields", async () => {
      const res = await postJson(createTestApi(database().db), "/api/WaitList", {
        ...valid,
        firstName: "",
        email: "nope",
      });
      const problem = await expectProblem(res, 400);
      expect(Object.keys(problem.errors ?? {}).sort()).toEqual(["email", "firstName"]);
      expect(problem.errors?.email).toEqual(["The email format is incorrect."]);
    });
  });
});
