import { describe, expect, it } from "vitest";
import {
  generateVerificationCode,
  hashVerificationCode,
  randomToken,
  sameDigest,
  sha256Hex,
} from "./identity-crypto.server.ts";

describe("verification code generator", () => {
  it("always answers exactly 6 digits", () => {
    for (let i = 0; i < 2000; i++) expect(generateVerificationCode()).toMatch(/^\d{6}$/);
  });

  it("keeps leading zeros", () => {
    expect(generateVerificationCode(() => 0)).toBe("000000");
    expect(generateVerificationCode(() => 42)).toBe("000042");
    expect(generateVerificationCode(() => 999_999)).toBe("999999");
  });

  it("draws from the whole range [0, 1 000 000)", () => {
    const calls: Array<[number, number]> = [];
    generateVerificationCode((min, max) => {
      calls.push([min, max]);
      return 7;
    });
    expect(calls).toEqual([[0, 1_000_000]]);
  });

  it("varies: 2000 codes have many distinct values and leading zeros appear", () => {
    const codes = Array.from({ length: 2000 }, () => generateVerificationCode());
    expect(new Set(codes).size).toBeGreaterThan(1900);
    expect(codes.some((c) => c.startsWith("0"))).toBe(true);
  });
});

describe("tokens and digests", () => {
  it("random tokens are 43 base64url characters and unique", () => {
    const tokens = new Set(Array.from({ length: 100 }, () => randomToken()));
    expect(tokens.size).toBe(100);
    for (const t of tokens) expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("a code's digest depends on its request token, and compares in constant time", () => {
    const a = hashVerificationCode("token-a", "123456");
    expect(sameDigest(a, hashVerificationCode("token-a", "123456"))).toBe(true);
    expect(sameDigest(a, hashVerificationCode("token-b", "123456"))).toBe(false);
    expect(sameDigest(a, hashVerificationCode("token-a", "123457"))).toBe(false);
    expect(sameDigest(a, "")).toBe(false);
    expect(sha256Hex("x")).toMatch(/^[0-9a-f]{64}$/);
  });
});
