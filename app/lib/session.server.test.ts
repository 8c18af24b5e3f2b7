import { describe, expect, it } from "vitest";
import { signSessionId, verifiedSessionId } from "./session.server.ts";

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
