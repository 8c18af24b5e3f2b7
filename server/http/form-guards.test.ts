import { describe, expect, it } from "vitest";
import { createFormGuards } from "./form-guards.ts";

/** A form post carrying `token` in its body and `cookieHeader` as its cookie. */
function post(token: string, cookieHeader: string) {
  const form = new FormData();
  form.set("csrf", token);
  return { form, headers: new Headers({ cookie: cookieHeader }) };
}

describe("the CSRF guard", () => {
  const guards = createFormGuards("a-secret-of-enough-length-0123456789", false);

  it("accepts a post whose token matches the cookie it was issued with, and reuses that cookie's token", async () => {
    const [token, setCookie] = await guards.csrf.commitToken(new Request("http://localhost/"));
    const cookie = setCookie!.split(";")[0]!;
    const { form, headers } = post(token, cookie);
    await expect(guards.csrf.validate(form, headers)).resolves.toBeUndefined();
    const [again, none] = await guards.csrf.commitToken(new Request("http://localhost/", { headers: { cookie } }));
    expect(again).toBe(token);
    expect(none).toBeNull();
  });

  it("makes unpredictable tokens: a random part and its signature", async () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 50; i++) {
      const [token] = await guards.csrf.commitToken(new Request("http://localhost/"));
      expect(token).toMatch(/^[^.]{32,}\.[A-Za-z0-9_-]{40,}=*$/);
      tokens.add(token);
    }
    expect(tokens.size).toBe(50);
  });

  // The cookie is not signed on its own (form-guards.ts): the token's own signature must stop forgeries.
  it("refuses a token the attacker made up, even when cookie and form agree", async () => {
    const [token, setCookie] = await guards.csrf.commitToken(new Request("http://localhost/"));
    const cookie = setCookie!.split(";")[0]!;
    const [name] = cookie.split("=");
    const forged = `${"A".repeat(32)}.${token.split(".")[1]}`;
    const forgedCookie = `${name}=${encodeURIComponent(btoa(JSON.stringify(forged)))}`;
    const { form, headers } = post(forged, forgedCookie);
    await expect(guards.csrf.validate(form, headers)).rejects.toMatchObject({ code: "tampered_token_in_cookie" });
  });

  it("refuses a token signed with another application's secret", async () => {
    const other = createFormGuards("another-secret-of-enough-length-987654", false);
    const [token, setCookie] = await other.csrf.commitToken(new Request("http://localhost/"));
    const { form, headers } = post(token, setCookie!.split(";")[0]!);
    await expect(guards.csrf.validate(form, headers)).rejects.toMatchObject({ code: "tampered_token_in_cookie" });
  });

  it("refuses a post whose token differs from the cookie's", async () => {
    const [, setCookie] = await guards.csrf.commitToken(new Request("http://localhost/"));
    const [otherToken] = await guards.csrf.commitToken(new Request("http://localhost/"));
    const { form, headers } = post(otherToken, setCookie!.split(";")[0]!);
    await expect(guards.csrf.validate(form, headers)).rejects.toMatchObject({ code: "mismatched_token" });
  });
});
