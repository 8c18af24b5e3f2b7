// POST /api/Help/create-help-anonymous (docs/requirements.md §S7): the request is stored and an email to
// SUPPORT_EMAIL is queued in the outbox, in one transaction.
import { count, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import { emailOutbox, helpRequests } from "../../server/db/schema.ts";
import { createTestApi, expectProblem, fakeCaptcha, postJson } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { captureLogs } from "../../tests/support/logs.ts";

const SUPPORT_EMAIL = "support@help.test";
const CAPTCHA_TOKEN = "03AFcWeA-captcha-token-that-must-never-be-logged";

const valid = {
  firstName: "Jane",
  lastName: "Citizen",
  email: "jane.citizen@example.com",
  message: "My team has not received their gift cards yet.",
  captchaToken: CAPTCHA_TOKEN,
  isCaptchaV3: true,
};

const without = (key: keyof typeof valid) => Object.fromEntries(Object.entries(valid).filter(([k]) => k !== key));

describeEachDatabase("POST /api/Help/create-help-anonymous", ({ database }) => {
  const config = testConfig({ SUPPORT_EMAIL });
  const logs = captureLogs("trace");
  const onEmailQueued = vi.fn();
  const api = (captcha = fakeCaptcha(true)) =>
    createTestApi(database().db, { config, logger: logs.logger, captcha, onEmailQueued });

  beforeEach(async () => {
    await truncateAll(database().db);
    logs.clear();
    onEmailQueued.mockClear();
  });
  afterEach(() => {
    // Whatever happened in the test, the captcha token never reached the log.
    expect(logs.leaked(CAPTCHA_TOKEN)).toEqual([]);
  });

  const helpRows = () => database().db.select().from(helpRequests);
  const emails = () => database().db.select().from(emailOutbox);
  const counts = async () => ({
    help: (await database().db.select({ n: count() }).from(helpRequests))[0]?.n,
    emails: (await database().db.select({ n: count() }).from(emailOutbox))[0]?.n,
  });

  it("stores the request, queues one email to SUPPORT_EMAIL with html and text, and nudges the worker", async () => {
    const captcha = fakeCaptcha(true);
    const res = await postJson(api(captcha), "/api/Help/create-help-anonymous", valid);
    expect(res.status).toBe(200);

    const [help, ...moreHelp] = await helpRows();
    expect(moreHelp).toHaveLength(0);
    expect(help).toMatchObject({
      firstName: "Jane",
      lastName: "Citizen",
      email: "jane.citizen@example.com",
      message: valid.message,
      userId: null,
    });

    const [email, ...moreEmails] = await emails();
    expect(moreEmails).toHaveLength(0);
    expect(email).toMatchObject({ toAddress: SUPPORT_EMAIL, status: "pending", attempts: 0 });
    expect(email?.subject).toContain("Jane Citizen");
    for (const part of [email?.html, email?.text]) {
      expect(part).toContain(valid.message);
      expect(part).toContain("jane.citizen@example.com");
    }
    expect(email?.html).toMatch(/^<!doctype html>/i);
    expect(email?.text).not.toMatch(/<[a-z]/i);

    expect(onEmailQueued).toHaveBeenCalledTimes(1);
    expect(captcha.checks).toEqual([expect.objectContaining({ token: CAPTCHA_TOKEN, isV3: true, action: "help" })]);
  });

  it("escapes what the visitor wrote in the HTML part, and keeps it verbatim in the text part", async () => {
    const message = `<script>alert("x")</script> & <b>bold</b>`;
    const res = await postJson(api(), "/api/Help/create-help-anonymous", { ...valid, message, firstName: "<i>Jo" });
    expect(res.status).toBe(200);
    const [email] = await emails();
    expect(email?.html).not.toContain("<script>");
    expect(email?.html).not.toContain("<i>Jo");
    expect(email?.html).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;b&gt;bold&lt;/b&gt;");
    expect(email?.text).toContain(message);
  });

  it("accepts a message of exactly 256 characters", async () => {
    const res = await postJson(api(), "/api/Help/create-help-anonymous", { ...valid, message: "m".repeat(256) });
    expect(res.status).toBe(200);
    expect(await counts()).toEqual({ help: 1, emails: 1 });
  });

  it("refuses a message of 257 characters with SPEC's wording", async () => {
    const res = await postJson(api(), "/api/Help/create-help-anonymous", { ...valid, message: "m".repeat(257) });
    const problem = await expectProblem(res, 400);
    expect(problem.detail).toBe("Message must be less than 256 characters.");
    expect(await counts()).toEqual({ help: 0, emails: 0 });
    expect(onEmailQueued).not.toHaveBeenCalled();
  });

  it("refuses a failed captcha with SPEC's detail: nothing stored, no email", async () => {
    const captcha = fakeCaptcha(false);
    const res = await postJson(api(captcha), "/api/Help/create-help-anonymous", valid);
    const problem = await expectProblem(res, 400);
    expect(problem.detail).toBe(DETAILS.captchaFailed);
    expect(problem.detail).toBe("Captcha verification failed. Please complete additional verification steps.");
    expect(captcha.checks).toHaveLength(1);
    expect(await counts()).toEqual({ help: 0, emails: 0 });
    expect(onEmailQueued).not.toHaveBeenCalled();
  });

  it("stores neither the request nor the email when queueing the email fails (one transaction)", async () => {
    const { db } = database();
    await db.execute(
      sql.raw(`alter table email_outbox add constraint test_refuse check (to_address <> '${SUPPORT_EMAIL}')`),
    );
    try {
      const res = await postJson(api(), "/api/Help/create-help-anonymous", valid);
      const problem = await expectProblem(res, 500);
      expect(problem.detail).toBe(DETAILS.internal);
      expect(await counts()).toEqual({ help: 0, emails: 0 });
      expect(onEmailQueued).not.toHaveBeenCalled();
      // The failure is logged, without what the visitor wrote (query parameters can carry secrets).
      const errors = logs.records().filter((r) => r.level === 50);
      expect(errors).toHaveLength(1);
      expect(logs.text()).toContain("test_refuse");
      expect(logs.leaked(valid.message, valid.email)).toEqual([]);
    } finally {
      await db.execute(sql.raw("alter table email_outbox drop constraint test_refuse"));
    }
  });

  describe("bad bodies: 400 with a detail, nothing stored, no email", () => {
    it.each<[string, unknown, string | RegExp]>([
      ["an empty object", {}, "First Name is required."],
      ["no first name", without("firstName"), "First Name is required."],
      ["no last name", without("lastName"), "Last Name is required."],
      ["no email", without("email"), "Email is required."],
      ["no message", without("message"), "Message is required."],
      ["a blank message", { ...valid, message: " \n\t " }, "Message is required."],
      ["a malformed email", { ...valid, email: "jane@" }, "The email format is incorrect."],
      ["a number for the message", { ...valid, message: 7 }, /Message/],
      ["a boolean for the last name", { ...valid, lastName: false }, /Last Name/],
      ["a string for isCaptchaV3", { ...valid, isCaptchaV3: "no" }, /./],
      [
        "a 65-character first name",
        { ...valid, firstName: "F".repeat(65) },
        "First Name must be at most 64 characters.",
      ],
      ["an array", [valid], "The request body must be a JSON object."],
      ["malformed JSON", "{", "The request body is not valid JSON."],
    ])("%s", async (_label, body, detail) => {
      const captcha = fakeCaptcha(true);
      const raw = typeof body === "string" ? body : JSON.stringify(body);
      const problem = await expectProblem(await postJson(api(captcha), "/api/Help/create-help-anonymous", raw), 400);
      if (typeof detail === "string") expect(problem.detail).toBe(detail);
      else expect(problem.detail).toMatch(detail);
      expect(await counts()).toEqual({ help: 0, emails: 0 });
      expect(onEmailQueued).not.toHaveBeenCalled();
      expect(captcha.checks).toHaveLength(0);
    });

    it("a form post instead of JSON is refused with 415", async () => {
      const res = await api().request("/api/Help/create-help-anonymous", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ firstName: "Jane", message: "hi" }).toString(),
      });
      await expectProblem(res, 415);
      expect(await counts()).toEqual({ help: 0, emails: 0 });
    });
  });
});
