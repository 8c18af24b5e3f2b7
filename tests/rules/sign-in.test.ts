// Who may sign in (docs/rules.md): modules/identity/sign-in.server.ts is the only module that issues an
// access token, and the web sessions holding them are written only by server/web-sessions.ts. Revoking
// tokens (logout, removal, reset, back-channel logout) and deleting a removed manager's web
// sessions stay with those operations: they end sessions, they never open one.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, test } from "vitest";
import { ROOT, writersOf } from "./writers.ts";

test("only the sign-in chokepoint inserts access tokens", () => {
  expect(writersOf("accessTokens", "access_tokens", ["insert"])).toEqual(["modules/identity/sign-in.server.ts"]);
});

test("only the web session store inserts or rewrites web sessions", () => {
  expect(writersOf("webSessions", "web_sessions", ["insert", "update"])).toEqual(["server/web-sessions.ts"]);
});

test("no production door calls issueAccessToken: they call signIn (the benchmarks' set-up excepted)", () => {
  const callers: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (!["node_modules", "build", "migrations", "bench"].includes(name)) walk(path);
      } else if (/\.(ts|tsx)$/.test(name) && !/\.(test|testkit)\.tsx?$/.test(name)) {
        if (/\bissueAccessToken\s*\(/.test(readFileSync(path, "utf8"))) callers.push(relative(ROOT, path));
      }
    }
  };
  for (const dir of ["app", "core", "modules", "server", "scripts"]) walk(join(ROOT, dir));
  expect(callers).toEqual(["modules/identity/sign-in.server.ts"]);
});
