import { PassThrough } from "node:stream";
import { createReadableStreamFromReadable } from "@react-router/node";
import { isbot } from "isbot";
import { renderToPipeableStream } from "react-dom/server";
import { type EntryContext, type RouterContextProvider, ServerRouter } from "react-router";
import { webContext } from "./context.ts";

// server.ts sets the per-request services under this exact key.
export { webContext };

export const streamTimeout = 5_000;

export default function handleRequest(
  request: Request,
  status: number,
  headers: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  if (request.method.toUpperCase() === "HEAD") return new Response(null, { status, headers });
  const { nonce } = loadContext.get(webContext);
  const userAgent = request.headers.get("user-agent");
  // A page without a nonce is for visitors without a session: the edge reads it whole to hash its
  // scripts and compress it once, so it is rendered whole too.
  const waitForAll = (userAgent && isbot(userAgent)) || routerContext.isSpaMode || nonce === undefined;

  return new Promise<Response>((resolve, reject) => {
    let shellRendered = false;
    let timeoutId: ReturnType<typeof setTimeout> | undefined = setTimeout(() => abort(), streamTimeout + 1000);
    const onReady = () => {
      shellRendered = true;
      const body = new PassThrough({
        final(callback) {
          clearTimeout(timeoutId);
          timeoutId = undefined;
          callback();
        },
      });
      headers.set("Content-Type", "text/html; charset=utf-8");
      pipe(body);
      resolve(new Response(createReadableStreamFromReadable(body), { headers, status }));
    };
    const { pipe, abort } = renderToPipeableStream(
      <ServerRouter context={routerContext} url={request.url} nonce={nonce} />,
      {
        nonce,
        ...(waitForAll ? { onAllReady: onReady } : { onShellReady: onReady }),
        onShellError: reject,
        onError(error: unknown) {
          status = 500;
          if (shellRendered) loadContext.get(webContext).logger.error({ err: String(error) }, "render error");
        },
      },
    );
  });
}
