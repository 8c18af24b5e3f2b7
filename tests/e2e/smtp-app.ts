// The e2e test server that sends REAL email: starts an SMTP server (tests/support/smtp.ts, on a
// free loopback port), serves what it receives as JSON on E2E_MAIL_API_PORT (GET /messages?to=)
// and refuses the addresses a test asks it to (POST / DELETE /bounces?to=),
// then runs `node build/server.js` with SMTP_URL pointing at it. playwright.config.ts starts it as a
// second webServer; SIGTERM / SIGINT stop all three.
// The app runs on a test clock (test-clock.ts): POST /clock?advanceMs= moves it on, GET /clock
// answers { offsetMs }, so a spec can let a scheduled reward's time pass.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:http";
import { createSmtpServer } from "../support/smtp.ts";
import { MAIL_API_PORT } from "./mail.ts";

const smtp = await createSmtpServer();
// Addresses the SMTP server refuses at RCPT TO with a permanent 550, as a mailbox that does not
// exist would (POST /bounces?to= adds one, DELETE removes it): the app marks such an email failed.
const bouncing = new Set<string>();
smtp.rejectRecipient = (address) =>
  bouncing.has(address.toLowerCase()) ? { code: 550, message: "5.1.1 No such user here" } : undefined;

let clockOffsetMs = 0;

const api = createServer((request, response) => {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  if (url.pathname === "/clock") {
    if (request.method === "POST") {
      const advanceMs = Number(url.searchParams.get("advanceMs"));
      if (!Number.isFinite(advanceMs) || advanceMs <= 0) {
        response.writeHead(400).end();
        return;
      }
      clockOffsetMs += advanceMs;
      app.send({ advanceMs });
    }
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ offsetMs: clockOffsetMs }));
    return;
  }
  if (url.pathname === "/bounces" && (request.method === "POST" || request.method === "DELETE")) {
    const address = url.searchParams.get("to")?.toLowerCase() ?? "";
    if (request.method === "POST") bouncing.add(address);
    else bouncing.delete(address);
    response.writeHead(204).end();
    return;
  }
  if (request.method !== "GET" || url.pathname !== "/messages") {
    response.writeHead(404).end();
    return;
  }
  const to = url.searchParams.get("to")?.toLowerCase();
  const messages = smtp.messages
    .filter((m) => !to || m.to.some((address) => address.toLowerCase() === to))
    .map((m) => ({ to: m.to, subject: m.headers.subject ?? "", text: m.text ?? "", html: m.html ?? "" }));
  response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(messages));
});
api.listen(MAIL_API_PORT, "127.0.0.1");
await once(api, "listening");

// The production bundle (ADR 0024); with --dev, the sources in development mode instead (to try the
// specs against a dev build by hand).
const dev = process.argv.includes("--dev");
const testClock = new URL("./test-clock.ts", import.meta.url).pathname;
const app = spawn(
  process.execPath,
  ["--import", testClock, dev ? "server.ts" : "build/server.js", ...process.argv.slice(2)],
  {
    env: { ...process.env, SMTP_URL: smtp.url },
    stdio: ["inherit", "inherit", "inherit", "ipc"],
  },
);

let stopping = false;
async function stop(signal: NodeJS.Signals) {
  if (stopping) return;
  stopping = true;
  if (app.exitCode === null) {
    app.kill(signal);
    await once(app, "exit");
  }
  await smtp.stop();
  api.close();
  process.exit(0);
}
process.on("SIGTERM", () => void stop("SIGTERM"));
process.on("SIGINT", () => void stop("SIGINT"));
app.on("exit", (code) => {
  if (!stopping) process.exit(code ?? 1);
});
