// Kept public pages answered straight from Node's request listener. A page kept for every visitor
// without a session (./anonymous-pages.ts) is the same bytes and headers for each of them, yet
// each answer went through Hono: a Web Request and Response per visit, header objects, the
// middleware chain, a copy of the body. That cost four times a bare server's CPU per answer
// (docs/BENCHMARKS.md, the load generator section). The edge marks an answer that is a kept page
// (KEPT_UNTIL_HEADER); the first such answer for a path, method and Accept-Encoding is recorded
// here whole, as it left every middleware, and the next visits with the same three get those
// bytes from the listener until the kept page expires. A page kept for every link of a declared
// query (the verify and reset pages, ADR 0018 point 5) is recorded with that query's names and
// patterns, and answers only a link the edge itself would answer with its kept copy (sharesCopy).
// Anything else goes through the edge.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { OpaqueQuery } from "../../core/shared-page.ts";
import type { Logger } from "../logger.ts";
import { hasSessionCookie, sharesCopy } from "./anonymous-pages.ts";

/** Set by the edge on a kept page's answer: when the kept copy expires (epoch ms). Never sent on. */
export const KEPT_UNTIL_HEADER = "x-rewards-kept-until";
/** With it on a shared link's copy: the query the page declared (core/shared-page.ts). Never sent on. */
export const KEPT_QUERY_HEADER = "x-rewards-kept-query";

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

/** A shared link's key part: its path and the names of its declared query, e.g. "/corporate/verify?requestToken&userId". */
const linkPath = (path: string, query: OpaqueQuery) => `${path}?${Object.keys(query).sort().join("&")}`;

export function createKeptAnswers(logger: Logger, now: () => number = Date.now) {
  const answers = new Map<string, KeptAnswer>();
  /** The query each shared-link page declared, by path (as the edge's page cache learns it). */
  const linkQueries = new Map<string, OpaqueQuery>();

  /** The key part of a request's address, or undefined when only the edge may answer it. */
  function pathKey(url: string): string | undefined {
    const mark = url.indexOf("?");
    if (mark < 0) return url;
    const path = url.slice(0, mark);
    const query = linkQueries.get(path);
    if (!query || !sharesCopy(new URLSearchParams(url.slice(mark + 1)), query)) return undefined;
    return linkPath(path, query);
  }

  return {
    /** Answers `req` from a recorded kept page and returns true, or returns false and does nothing. */
    serve(req: IncomingMessage, res: ServerResponse): boolean {
      const method = req.method;
      const url = req.url ?? "";
      if (method !== "GET" && method !== "HEAD") return false;
      // A visitor with a session gets their own page; the edge decides as before.
      if (hasSessionCookie(req.headers.cookie)) return false;
      const path = pathKey(url);
      if (path === undefined) return false;
      const key = keyOf(method, path, req.headers["accept-encoding"]);
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
      // The path only: a query can carry tokens (as the edge's own log line).
      const logged = url.split("?")[0];
      logger.info(
        { method, path: logged, status: answer.status, ms: Math.round(performance.now() - started) },
        "request",
      );
      return true;
    },

    /**
     * Records the edge's answer to `request`, a page kept until `until` (epoch ms; the edge's
     * markers already removed), after all its middleware; answers an equal Response. `query`: the
     * query the page declared, when its address carries one the edge shares a copy for.
     */
    async record(request: Request, response: Response, until: number, query?: OpaqueQuery): Promise<Response> {
      const headers = new Headers(response.headers);
      const body = Buffer.from(await response.arrayBuffer());
      const url = new URL(request.url);
      const linkShared = query !== undefined && url.search !== "" && sharesCopy(url.searchParams, query);
      const keepable =
        until > now() &&
        (!url.search || linkShared) &&
        !headers.has("set-cookie") &&
        !hasSessionCookie(request.headers.get("cookie") ?? undefined);
      if (keepable) {
        if (linkShared) linkQueries.set(url.pathname, query);
        const path = linkShared ? linkPath(url.pathname, query) : url.pathname;
        const key = keyOf(request.method, path, request.headers.get("accept-encoding") ?? undefined);
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
