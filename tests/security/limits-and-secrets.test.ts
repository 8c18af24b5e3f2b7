// Security: passwords (managers' and recipients') are stored as argon2id hashes, and dependencies
// are pinned exactly. The rate limits are tried from outside in rate-limits.test.ts.
import { readFileSync } from "node:fs";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { PASSWORD } from "../../modules/identity/accounts.testkit.ts";
import { recipientAccounts, users } from "../../server/db/schema.ts";
import { describeEachDatabase } from "../support/db.ts";
import { buildWorld } from "./fixtures.ts";

describeEachDatabase("stored passwords", ({ database }) => {
  it("managers' and recipients' passwords are argon2id hashes; the plain password is stored nowhere", async () => {
    const db = database().db;
    await buildWorld(db);
    const managers = (await db.select({ hash: users.passwordHash }).from(users)).filter((r) => r.hash);
    expect(managers.length).toBeGreaterThanOrEqual(2);
    for (const { hash } of managers) expect(hash).toMatch(/^\$argon2id\$v=19\$m=\d+,t=\d+,p=\d+\$/);
    const recipients = await db.select({ hash: recipientAccounts.passwordHash }).from(recipientAccounts);
    expect(recipients.length).toBeGreaterThanOrEqual(2);
    for (const { hash } of recipients) expect(hash).toMatch(/^\$argon2id\$/);
    const everything = JSON.stringify(await db.execute(sql`select * from users`));
    expect(everything).not.toContain(PASSWORD);
  });
});

describe("dependencies", () => {
  it("package.json pins every dependency to an exact version", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as Record<
      string,
      Record<string, string> | undefined
    >;
    const loose: string[] = [];
    for (const section of ["dependencies", "devDependencies", "optionalDependencies", "overrides"]) {
      for (const [name, version] of Object.entries(pkg[section] ?? {})) {
        if (typeof version !== "string" || !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) {
          loose.push(`${section}: ${name}@${version}`);
        }
      }
    }
    expect(loose).toEqual([]);
  });
});
