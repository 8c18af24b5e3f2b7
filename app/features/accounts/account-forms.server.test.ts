// The verify page's address (docs/requirements.md §S2 verify page): userId is the UUID Register answered, and an
// address without a well-formed userId and requestToken is no verify page (the loader → /error).
import { describe, expect, it } from "vitest";
import {
  opaqueQueryValues,
  RESET_PAGE_QUERY,
  resetToken,
  VERIFY_PAGE_QUERY,
  verifyHref,
  verifyParams,
} from "./account-forms.server.ts";

const ID = "0b7c9a51-3e2f-4d6a-9c8b-1f2e3d4c5b6a";
const at = (query: string) => new URL(`https://rewards.test/corporate/verify${query}`);

describe("verify page address", () => {
  it("verifyHref and verifyParams round-trip the UUID and the request token", () => {
    const href = verifyHref(ID, "tok_en-1", { resent: "1" });
    expect(href).toBe(`/corporate/verify?userId=${ID}&requestToken=tok_en-1&resent=1`);
    expect(verifyParams(new URL(href, "https://rewards.test"))).toEqual({ userId: ID, requestToken: "tok_en-1" });
  });

  it("takes the UUID in upper case, as lower case", () => {
    expect(verifyParams(at(`?userId=${ID.toUpperCase()}&requestToken=abc`))).toEqual({
      userId: ID,
      requestToken: "abc",
    });
  });

  it.each([
    "",
    "?requestToken=abc",
    `?userId=${ID}`,
    `?userId=${ID}&requestToken=`,
    "?userId=1&requestToken=abc",
    "?userId=not-a-uuid&requestToken=abc",
    `?userId=${ID}x&requestToken=abc`,
  ])("%s is no verify page", (query) => {
    expect(verifyParams(at(query))).toBeUndefined();
  });
});

// The edge serves one kept copy of each page to every link its patterns accept, so a pattern that
// let through a link the loader refuses would show the page where docs/requirements.md §S2 wants /error.
describe("the patterns the edge shares a copy by agree with the loaders", () => {
  const tokens = ["abc", " abc ", "a b", "", " ", "\t", "x".repeat(200), ` ${"x".repeat(200)} `, "x".repeat(201)];
  const ids = [ID, ID.toUpperCase(), ` ${ID}\n`, `${ID}x`, "1", ""];

  it.each(ids.flatMap((userId) => tokens.map((requestToken) => [userId, requestToken] as const)))(
    "verify: userId %j, requestToken %j",
    (userId, requestToken) => {
      const url = at(`?${new URLSearchParams({ userId, requestToken })}`);
      expect(opaqueQueryValues(url.searchParams, VERIFY_PAGE_QUERY) !== undefined).toBe(
        verifyParams(url) !== undefined,
      );
    },
  );

  it.each(tokens)("reset: passwordResetToken %j", (passwordResetToken) => {
    const url = new URL(
      `https://rewards.test/corporate/forgot-password?${new URLSearchParams({ passwordResetToken })}`,
    );
    const accepted = opaqueQueryValues(url.searchParams, RESET_PAGE_QUERY) !== undefined;
    expect(accepted).toBe(passwordResetToken.trim() !== "");
    expect(resetToken(url)).toBe(accepted ? passwordResetToken.trim() : undefined);
  });
});
