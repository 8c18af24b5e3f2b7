import { describe, expect, it } from "vitest";
import { sessionCookie, signSessionId, verifiedSessionId } from "./session.server.ts";

describe("the session cookie's signed id", () => {
  const secret = "a-session-secret-of-enough-length-0123";
  const id = "q3V0Zl9kQ2R6b0xqY0x4N3ZsZk5TUmh3a0pUcU1RbG8";

  it("gives back the id it signed", () => {
    expect(verifiedSessionId(secret, signSessionId(secret, id))).toBe(id);
  });

  it("refuses a changed id, a changed signature, another secret's signature and a bare id", () => {
    const signed = signSessionId(secret, id);
    const [, signature] = signed.split(".");
    expect(verifiedSessionId(secret, `x${id.slice(1)}.${signature}`)).toBeNull();
    expect(verifiedSessionId(secret, `${signed.slice(0, -1)}${signed.endsWith("A") ? "B" : "A"}`)).toBeNull();
    expect(verifiedSessionId(secret, signSessionId("another-secret-of-enough-length-98765", id))).toBeNull();
    expect(verifiedSessionId(secret, id)).toBeNull();
    expect(verifiedSessionId(secret, "")).toBeNull();
    expect(verifiedSessionId(secret, `.${signature}`)).toBeNull();
  });
});

describe("the session cookie", () => {
  const secret = "a-session-secret-of-enough-length-0123";
  const cookie = sessionCookie(false, secret);

  it("carries the id signed, httpOnly and SameSite=Lax, and reads it back", async () => {
    const header = await cookie.serialize("some-session-id");
    expect(header).toMatch(/^session=/);
    expect(header).toMatch(/HttpOnly/);
    expect(header).toMatch(/SameSite=Lax/);
    expect(cookie.isSigned).toBe(true);
    expect(await cookie.parse(header.split(";")[0]!)).toBe("some-session-id");
  });

  it("reads nothing from a cookie signed with another secret, or made up", async () => {
    const other = await sessionCookie(false, "another-secret-of-enough-length-98765").serialize("some-session-id");
    expect(await cookie.parse(other.split(";")[0]!)).toBeNull();
    const madeUp = await sessionCookie(false, secret).serialize("x");
    expect(await cookie.parse(madeUp.split(";")[0]!.replace("session=", "session=A"))).toBeNull();
  });

  it("clears: an empty value expires the cookie", async () => {
    const header = await cookie.serialize("", { expires: new Date(0) });
    expect(header).toMatch(/^session=;/);
    expect(header).toMatch(/Expires=Thu, 01 Jan 1970/);
  });

  it("is __Host- prefixed and Secure over https", async () => {
    const header = await sessionCookie(true, secret).serialize("id");
    expect(header).toMatch(/^__Host-session=/);
    expect(header).toMatch(/Secure/);
  });
});
