// Kept public pages answered straight from Node's request listener. A page kept for every visitor
// without a session (./anonymous-pages.ts) is the same bytes and headers for each of them, yet
// each answer went through Hono: a Web Request and Response per visit, header objects, the
// middleware chain, a copy of the body. That cost four times a bare server's CPU per answer
// (docs/BENCHMARKS.md, the load generator section). The edge marks an answer that is a kept page
// (KEPT_UNTIL_HEADER); the first such answer for a path, method and Accept-Encoding is recorded
// here whole, as it left every middleware, and the next visits with the same three get those
// bytes from the listener until the kept page expires. Anything else goes through the edge.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../logger.ts";
import { hasSessionCookie } from "./anonymous-pages.ts";

/** Set by the edge on a kept page's answer: when the kept copy expires (epoch ms). Never sent on. */
export const KEPT_UNTIL_HEADER = "x-rewards-kept-until";

interface KeptAnswer {
  until: number;
  status: number;
  /** As writeHead takes them: name, value, name, value… */
  headers: string[];
  body: Buffer;
}

/** Distinct Accept-Encoding strings × paths × methods is small for real browsers; a cap keeps it so. */
const MAX_ANSWERS = 256;

const keyOf = (method: string, path: string, acceptEncoding: string | undefined) =>
  `${method} ${path} ${acceptEncoding ?? ""}`;

export function createKeptAnswers(logger: Logger, now: () => number = Date.now) {
  const answers = new Map<string, KeptAnswer>();

  return {
    /** Answers `req` from a recorded kept page and returns true, or returns false and does nothing. */
    serve(req: IncomingMessage, res: ServerResponse): boolean {
      const method = req.method;
      const url = req.url ?? "";
      if ((method !== "GET" && method !== "HEAD") || url.includes("?")) return false;
      // A visitor with a session gets their own page; the edge decides as before.
      if (hasSessionCookie(req.headers.cookie)) return false;
      const key = keyOf(method, url, req.headers["accept-encoding"]);
      const answer = answers.get(key);
      if (!answer) return false;
      if (answer.until <= now()) {
        answers.delete(key);
        return false;
      }
      const started = performance.now();
      res.writeHead(answer.status, answer.headers);
      res.end(method === "HEAD" ? undefined : answer.body);
      // The same request log line the edge writes.
      logger.info({ method, path: url, status: answer.status, ms: Math.round(performance.now() - started) }, "request");
      return true;
    },

    /**
     * Records the edge's answer to `request`, a page kept until `until` (epoch ms; the edge's
     * marker already removed), after all its middleware; answers an equal Response.
     */
    async record(request: Request, response: Response, until: number): Promise<Response> {
      const headers = new Headers(response.headers);
      const body = Buffer.from(await response.arrayBuffer());
      const url = new URL(request.url);
      const keepable =
        until > now() &&
        !url.search &&
        !headers.has("set-cookie") &&
        !hasSessionCookie(request.headers.get("cookie") ?? undefined);
      if (keepable) {
        const key = keyOf(request.method, url.pathname, request.headers.get("accept-encoding") ?? undefined);
        answers.delete(key);
        answers.set(key, {
          until,
          status: response.status,
          headers: [...headers].flat(),
          body,
        });
        if (answers.size > MAX_ANSWERS) answers.delete(answers.keys().next().value as string);
      }
      return new Response(request.method === "HEAD" ? null : new Uint8Array(body), {
        status: response.status,
        headers,
      });
    },
  };
}

export type KeptAnswers = ReturnType<typeof createKeptAnswers>;
