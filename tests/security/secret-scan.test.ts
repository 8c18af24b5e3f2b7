// The log scanner finds each kind of secret (deliberate leaks) and stays quiet on ordinary lines.
import { describe, expect, it } from "vitest";
import { captureLogs } from "../support/logs.ts";
import { findSecrets } from "./secret-scan.ts";

const kinds = (line: string) => findSecrets(line).map((f) => f.kind);

describe("secret scanner", () => {
  it("finds deliberate leaks of every kind", () => {
    const token = "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcde";
    expect(token).toHaveLength(43);
    const leaks = [
      `{"msg":"login","accessToken":"${token}"}`,
      `{"msg":"x","detail":"token ${token}"}`,
      `{"headers":"Authorization: Bearer ${token}"}`,
      `{"cookie":"session=InN1cGVyc2VjcmV0aWQi.abc123def456"}`,
      '{"msg":"Verification code: 123456"}',
      '{"verificationCode":"123456"}',
      '{"url":"/corporate/forgot-password?passwordResetToken=abcdefghijklmnopqrstu"}',
      '{"card":"4242 4242 4242 4242"}',
      '{"n":"4000002500003155"}',
      '{"cvc":"123"}',
      '{"form":"cvc=123"}',
      '{"clientSecret":"pi_sim_abc_secret_xyz"}',
      '{"x":"pi_sim_abc_secret_abcdefgh1234"}',
      '{"hash":"$argon2id$v=19$m=19456,t=2,p=1$abc"}',
      '{"body":"{\\"password\\":\\"Secret#2024\\"}"}',
      '{"password":"hunter2"}',
      `{"msg":"sync failed","detail":"key rk_${token}"}`,
    ];
    for (const line of leaks) expect(kinds(line), line).not.toEqual([]);
  });

  it("stays quiet on ordinary lines (timestamps, ids, redacted values, request logs)", () => {
    const quiet = [
      '{"level":30,"time":1763838000123,"method":"POST","path":"/api/Identity/login","status":200,"ms":12,"msg":"request"}',
      '{"level":30,"time":1763838000123,"password":"[redacted]","accessToken":"[redacted]","msg":"x"}',
      '{"level":40,"orderId":123,"paymentIntentId":"pi_sim_0a1b2c3d","amountCents":11100,"msg":"paid"}',
      '{"level":50,"err":"duplicate key value violates unique constraint \\"users_email_idx\\"","query":"insert into \\"users\\" (\\"email\\") values ($1)"}',
      '{"level":30,"eventId":"evt_1","type":"payment_intent.succeeded","msg":"stripe webhook"}',
    ];
    for (const line of quiet) expect(kinds(line), line).toEqual([]);
  });

  it("the app's own redaction keeps these keys out (pino redact paths)", () => {
    const logs = captureLogs("trace");
    logs.logger.info(
      {
        password: "x-secret-1",
        body: { password: "x-secret-2", cardNumber: "4242424242424242", cvc: "123", clientSecret: "pi_sim_a_secret_b" },
        accessToken: "t",
      },
      "record",
    );
    expect(logs.leaked("x-secret-1", "x-secret-2", "4242424242424242", "pi_sim_a_secret_b")).toEqual([]);
    expect(logs.lines.flatMap((l) => findSecrets(l))).toEqual([]);
  });
});
