// The Standard Webhooks key of an endpoint secret (modules/webhooks/signature.ts; ADR 0045
// "Standard Webhooks headers"): the secret as issued now is used as it is by the standardwebhooks
// library; one issued before (base64url) keeps its key, and its base64 spelling verifies.
import { randomBytes } from "node:crypto";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it, vi } from "vitest";
import { standardWebhookHeaders, standardWebhookKey } from "./signature.ts";

const BODY = '{"id":"evt_1","type":"ping","createdAt":"2026-11-27T00:00:00.000Z","data":{}}';
const AT = new Date("2026-11-27T00:00:00.000Z");

describe("Standard Webhooks signatures", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("a base64 secret is the library's secret as it is", () => {
    vi.useFakeTimers({ toFake: ["Date"], now: AT });
    const bytes = randomBytes(32);
    const secret = `whsec_${bytes.toString("base64")}`;
    expect(standardWebhookKey(secret).equals(bytes)).toBe(true);
    const headers = standardWebhookHeaders(secret, "evt_1", BODY, AT);
    expect(headers["webhook-timestamp"]).toBe(String(AT.getTime() / 1000));
    expect(new Webhook(secret).verify(BODY, headers)).toEqual(JSON.parse(BODY));
  });

  it("a secret issued before in base64url keeps its key: the same bytes, spelt in base64 for the library", () => {
    vi.useFakeTimers({ toFake: ["Date"], now: AT });
    // Bytes whose base64url spelling uses both - and _.
    const bytes = Buffer.from(Array.from({ length: 32 }, (_, i) => (i % 2 ? 0xfb : 0xff)));
    const old = `whsec_${bytes.toString("base64url")}`;
    expect(old).toMatch(/[-_]/);
    expect(standardWebhookKey(old).equals(bytes)).toBe(true);
    const headers = standardWebhookHeaders(old, "evt_1", BODY, AT);
    const asBase64 = `whsec_${Buffer.from(old.slice("whsec_".length), "base64url").toString("base64")}`;
    expect(new Webhook(asBase64).verify(BODY, headers)).toEqual(JSON.parse(BODY));
  });
});
