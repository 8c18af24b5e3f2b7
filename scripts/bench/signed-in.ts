// A signed-in program manager for the benchmarks: the whole process (createApplication) on a
// fresh in-memory database with the real production build, a manager whose company details are
// provided, and the session cookie a browser would hold after logging in. The account is made
// through the domain functions, not the forms, so the figures measure the page, not the set-up.
import { pathToFileURL } from "node:url";
import { eq } from "drizzle-orm";
import type { ServerBuild } from "react-router";
import { type SessionData, sessionCookie } from "../../app/lib/session.server.ts";
import { saveCompanyDetails } from "../../modules/companies/service.server.ts";
import { registerProgramManager } from "../../modules/identity/service.server.ts";
import { issueAccessToken } from "../../modules/identity/sign-in.server.ts";
import { loadConfig } from "../../server/config.ts";
import { users } from "../../server/db/schema.ts";
import { createLogger } from "../../server/logger.ts";
import { createApplication, type RunningApp } from "../../server/main.ts";
import { webSessionStore } from "../../server/web-sessions.ts";

const SESSION_SECRET = "bench-session-secret-0123456789abcdef";

export interface SignedInBench {
  running: RunningApp;
  manager: { userId: number; companyId: number };
  /** The Cookie header of the manager's browser. */
  cookie: string;
  /** GET a page as the manager, through the whole edge (CSP, compression, React Router). */
  get(path: string, options?: { compressed?: boolean }): Promise<Response>;
  close(): Promise<void>;
}

export async function startSignedInBench(buildDir = "build"): Promise<SignedInBench> {
  const build = (await import(pathToFileURL(`${buildDir}/server/index.js`).href)) as ServerBuild;
  const config = loadConfig({
    DATABASE_URL: "memory://",
    LOG_LEVEL: "silent",
    SESSION_SECRET,
    APP_URL: "http://localhost",
  });
  const running = await createApplication({
    config,
    logger: createLogger("silent"),
    build,
    mode: "production",
    startWorker: false,
  });
  const db = running.database.db;
  const now = new Date();
  const registered = await registerProgramManager(
    db,
    {
      firstName: "Bench",
      lastName: "Manager",
      email: "bench.manager@example.com",
      companyName: "Bench Pty Ltd",
      password: "Bench#2024-pages",
    },
    now,
  );
  if (registered.status !== "created") throw new Error("could not register the bench manager");
  const [manager] = await db
    .update(users)
    .set({ emailVerifiedAt: now, hasWatchedOnboardingVideo: true })
    .where(eq(users.publicId, registered.userId))
    .returning({ userId: users.id, companyId: users.companyId });
  if (!manager) throw new Error("the bench manager is missing");
  await saveCompanyDetails(
    db,
    manager.companyId,
    { name: "Bench Pty Ltd", abn: "51824753556", size: "11-50", industry: "Retail" },
    now,
  );
  const accessToken = await issueAccessToken(db, { id: manager.userId, companyId: manager.companyId }, now);
  const data: SessionData = {
    accessToken,
    user: {
      id: manager.userId,
      companyId: manager.companyId,
      firstName: "Bench",
      lastName: "Manager",
      fullName: "Bench Manager",
      email: "bench.manager@example.com",
      companyName: "Bench Pty Ltd",
    },
    appSettings: { hasProvidedCompanyDetails: true, hasWatchedOnboardingVideo: true },
  };
  const sessionId = await webSessionStore(db, SESSION_SECRET).create(data as unknown as Record<string, unknown>);
  // The cookie app/lib/session.server.ts gives after a login (APP_URL is http: the plain name).
  const cookie = (await sessionCookie(false, SESSION_SECRET).serialize(sessionId)).split(";")[0];
  if (!cookie) throw new Error("no session cookie");
  return {
    running,
    manager,
    cookie,
    get: async (path, { compressed = true } = {}) =>
      running.app.fetch(
        new Request(new URL(path, "http://localhost"), {
          headers: { cookie, ...(compressed ? { "accept-encoding": "gzip, br" } : {}) },
        }),
      ),
    close: () => running.close(),
  };
}
