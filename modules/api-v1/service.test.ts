// The pure parts of API orders (ADR 0044): the request's fingerprint behind the Idempotency-Key
// (the same order however it is spelt, another order for any change that matters) and the body's
// schema (whole dollars, each address once, at most V1_ORDER_MAX_RECIPIENTS).
import { describe, expect, it } from "vitest";
import * as z from "zod/mini";
import { V1_ORDER_MAX_RECIPIENTS, type V1CreateOrderRequest, v1CreateOrderSchema } from "./schema.ts";
import { canonicalJson, requestHash } from "./service.server.ts";

const body = (over: Partial<V1CreateOrderRequest> = {}): V1CreateOrderRequest => ({
  rewardName: "Quarter Thanks",
  message: "Well done",
  sendAt: "2026-12-01T09:00:00+11:00",
  recipients: [
    { email: "ann@example.com", firstName: "Ann", lastName: "Lee", amount: 50 },
    { email: "bo@example.com", firstName: "Bo", lastName: "Park", amount: 25 },
  ],
  ...over,
});
const hashOf = (input: unknown) => requestHash(v1CreateOrderSchema.parse(input));

describe("requestHash", () => {
  it("is the same for the same order however it is written", () => {
    const base = hashOf(body());
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    // Member order, spacing that is trimmed, the zone of the instant and the address's case.
    const reordered = JSON.parse(
      '{"recipients":[{"amount":50,"lastName":"Lee","firstName":"Ann","email":"ANN@example.com"},{"email":"bo@example.com","firstName":"Bo","lastName":"Park","amount":25}],"sendAt":"2026-11-30T22:00:00Z","message":" Well done ","rewardName":"  Quarter Thanks "}',
    );
    expect(hashOf(reordered)).toBe(base);
    // No message is the same as an empty one.
    expect(hashOf(body({ message: undefined }))).toBe(hashOf(body({ message: "" })));
  });

  it("differs for any change that makes another order", () => {
    const base = hashOf(body());
    const changed = [
      body({ rewardName: "Quarter Thanks!" }),
      body({ message: "Well done." }),
      body({ sendAt: "2026-12-01T09:01:00+11:00" }),
      body({ sendAt: undefined }),
      body({ recipients: [...body().recipients].reverse() }),
      body({ recipients: [{ ...body().recipients[0]!, amount: 51 }, body().recipients[1]!] }),
      body({ recipients: [{ ...body().recipients[0]!, firstName: "Anne" }, body().recipients[1]!] }),
      body({ recipients: [body().recipients[0]!] }),
    ];
    const hashes = changed.map(hashOf);
    expect(hashes).not.toContain(base);
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  it("canonicalJson sorts members at every depth and leaves arrays in order", () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: null, u: undefined })).toBe('{"a":null,"b":[{"c":2,"d":1}]}');
  });
});

describe("v1CreateOrderSchema", () => {
  const issues = (input: unknown) => {
    const result = z.safeParse(v1CreateOrderSchema, input);
    return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  };

  it("refuses an address twice (any case), naming the recipient it repeats", () => {
    const twice = body({
      recipients: [
        body().recipients[0]!,
        body().recipients[1]!,
        { ...body().recipients[0]!, email: "ANN@EXAMPLE.COM" },
      ],
    });
    expect(issues(twice)).toEqual([
      "recipients.2.email: Recipient 3: Email Address repeats recipient 1; list each recipient once.",
    ]);
  });

  it("takes whole dollars from 1 to 10,000, at most the maximum recipients, and no unknown member", () => {
    expect(issues(body())).toEqual([]);
    const amount = (value: unknown) =>
      issues(body({ recipients: [{ ...body().recipients[0]!, amount: value as number }] }));
    for (const bad of [0, -5, 2.5, 10_001, "50", null]) expect(amount(bad)).toHaveLength(1);
    expect(amount(10_000)).toEqual([]);
    const many = Array.from({ length: V1_ORDER_MAX_RECIPIENTS + 1 }, (_, i) => ({
      email: `p${i}@example.com`,
      firstName: "P",
      lastName: "Q",
      amount: 1,
    }));
    expect(issues(body({ recipients: many }))).toEqual([
      "recipients: An order can have at most 1,000 recipients; send a longer list as several orders.",
    ]);
    expect(issues(body({ recipients: many.slice(0, V1_ORDER_MAX_RECIPIENTS) }))).toEqual([]);
    expect(issues({ ...body(), send_at: "2026-12-01T09:00:00+11:00" })).toHaveLength(1);
  });
});
