// The seal's stored form must not change (secret-seal.ts): these values were sealed by the code
// each use had before the shared module (webhooks.ts, single-sign-on.ts, two-factor.ts and
// server/web-sessions.ts each with a copy of AES-256-GCM), with the server secret below.
import { describe, expect, it } from "vitest";
import { singleSignOnKeys } from "../modules/single-sign-on/service.server.ts";
import { twoFactorKeys } from "../modules/two-factor/service.server.ts";
import { webhookKeys } from "../modules/webhooks/service.server.ts";
import { companySecretSeal, secretSeal } from "./secret-seal.ts";
import { sessionSealer } from "./web-sessions.ts";

const SERVER_SECRET = "a server secret used only by this test vector";

const SEALED_BEFORE = {
  webhook: "fd8z8mhkuryylPrbLMhADqp6si6MImE52IzGk05h_lCqmX29tazy4sZP",
  singleSignOn: "MZBxK-0oaiqczhllMCYf4b-q_S_MQ5N8xQ1OqRCCpQq1qdZr_yRxqABzz1mVtbs",
  totp: "rORuzKbIqSrcpqoYgR2ypZ7QgywEScWj9mSvg48Bhpm74xSwlHdGvOnmGo0",
  session: { sealed: "AZvdV8lODw9_h8mi2qsxqh67iB4olvqFwJ_p-hBURFbjDHc-a5OBKSnTH4Zw" },
};

describe("secret seal", () => {
  it("opens the values each use sealed before it shared the seal", () => {
    expect(webhookKeys(SERVER_SECRET).openSecret(SEALED_BEFORE.webhook, 42)).toBe("whsec_dGVzdA==");
    expect(singleSignOnKeys(SERVER_SECRET).openSecret(SEALED_BEFORE.singleSignOn, 42)).toBe("client-secret-value");
    expect(twoFactorKeys(SERVER_SECRET).openSecret(SEALED_BEFORE.totp, 7)).toBe("JBSWY3DPEHPK3PXP");
    expect(sessionSealer(SERVER_SECRET).open(SEALED_BEFORE.session, "session-id-1")).toEqual({ user: { id: 7 } });
  });

  it("keeps each use's label and additional data: the stored webhook secret opens with the raw seal", () => {
    expect(secretSeal(SERVER_SECRET, "rewards webhook secret").open(SEALED_BEFORE.webhook, "webhook:company:42")).toBe(
      "whsec_dGVzdA==",
    );
    expect(
      companySecretSeal(SERVER_SECRET, { label: "rewards sso client secret", scope: "sso" }).openSecret(
        SEALED_BEFORE.singleSignOn,
        42,
      ),
    ).toBe("client-secret-value");
  });

  it("opens nothing for another company, another use or another server secret", () => {
    expect(webhookKeys(SERVER_SECRET).openSecret(SEALED_BEFORE.webhook, 43)).toBeNull();
    expect(singleSignOnKeys(SERVER_SECRET).openSecret(SEALED_BEFORE.webhook, 42)).toBeNull();
    expect(webhookKeys("another server secret").openSecret(SEALED_BEFORE.webhook, 42)).toBeNull();
    expect(sessionSealer(SERVER_SECRET).open(SEALED_BEFORE.session, "session-id-2")).toBeNull();
    expect(webhookKeys(SERVER_SECRET).openSecret("short", 42)).toBeNull();
  });

  it("round-trips with a fresh iv each time", () => {
    const keys = singleSignOnKeys(SERVER_SECRET);
    const a = keys.sealSecret("s3cret", 5);
    const b = keys.sealSecret("s3cret", 5);
    expect(a).not.toBe(b);
    expect(keys.openSecret(a, 5)).toBe("s3cret");
    expect(keys.openSecret(b, 5)).toBe("s3cret");
  });
});
