// The userId of the verification calls (SPEC §7): the UUID Register answered, in either letter
// case, and nothing else; every refusal says "userId is required." as a missing one does.
import { describe, expect, it } from "vitest";
import { verifyEmailRequestSchema, verifyEmailSchema } from "./account-forms.ts";

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
