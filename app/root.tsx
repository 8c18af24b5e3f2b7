import { type ReactNode, useState } from "react";
import {
  data,
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useMatches,
  useRouteLoaderData,
} from "react-router";
import type { Route } from "./+types/root";
import appCss from "./app.css?inline";
import appCssHref from "./app.css?url";
import { services } from "./context.ts";
import { BENCH_FLOOR_ROUTE_ID, PORTAL_LAYOUT_ID } from "./features/portal/portal-pages.ts";
import { csrfToken, honeypotInputProps } from "./lib/security.server.ts";
import { sessionMiddleware } from "./lib/session.server.ts";
import { takeToast } from "./lib/toast.server.ts";
import { ErrorPage } from "./ui/error-page.tsx";
import { NoscriptRefresh } from "./ui/noscript-refresh.tsx";
import { Toaster } from "./ui/toaster.tsx";

export const meta: Route.MetaFunction = () => [
  { title: "Reward Portal: Reward your people instantly" },
  {
    name: "description",
    content:
      "Reward staff and customers with digital gift cards from over 100 of the best Australian retailers. Create a free account and pay only for what you allocate.",
  },
];

// The session, read once per request and written back once when changed (app/lib/session.server.ts).
export const middleware: Route.MiddlewareFunction[] = [sessionMiddleware];

export const links: Route.LinksFunction = () => [{ rel: "icon", href: "/favicon.svg", type: "image/svg+xml" }];

export async function loader({ context, request }: Route.LoaderArgs) {
  const { nonce, config } = services(context);
  const [csrf, honeypot] = await Promise.all([csrfToken(context, request), honeypotInputProps(context)]);
  const toast = takeToast(context);
  const headers = new Headers();
  if (csrf.cookieHeader) headers.append("set-cookie", csrf.cookieHeader);
  return data(
    {
      nonce,
      csrf: csrf.token,
      // The honeypot's field names, read by every form (app/ui/honeypot-inputs.tsx, HiddenHoneypot).
      honeypot,
      // Only public values: the links and site keys the pages render.
      site: {
        catalogueUrl: config.catalogueUrl,
        companyProfileUrl: config.companyProfileUrl,
        howItWorksVideoUrl: config.howItWorksVideoUrl,
        captcha: config.captcha,
        demoMode: config.demoMode,
      },
      toast,
    },
    { headers },
  );
}

export function Layout({ children }: { children: ReactNode }) {
  // The nonce comes from the root loader; on an error render it may be missing (then scripts are skipped by CSP).
  const data = useRouteLoaderData<typeof loader>("root");
  const nonce = data?.nonce;
  const matches = useMatches();
  // The benchmark's floor page stands for a portal page, so it links the stylesheet as they do.
  const [linkStylesheet] = useState(() =>
    matches.some((match) => match.id === PORTAL_LAYOUT_ID || match.id === BENCH_FLOOR_ROUTE_ID),
  );
  return (
    <html lang="en-AU">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#4c1d95" />
        <Meta />
        <NoscriptRefresh />
        {/* Public pages (first visits, measured by Lighthouse) inline the stylesheet: one
            render-blocking request fewer on a phone. Portal pages (signed in, visited again and
            again) link it: cached once, and each page is about 8 KB lighter to compress and send.
            The first document decides and keeps its choice for its client-side navigations, so
            the styles are never removed. Only the server has the inline text; the browser keeps
            the node it was sent (React leaves a hydrated element's inner HTML alone). */}
        {linkStylesheet ? (
          <link rel="stylesheet" href={appCssHref} />
        ) : (
          <style
            // biome-ignore lint/security/noDangerouslySetInnerHtml: our own compiled stylesheet
            dangerouslySetInnerHTML={{ __html: import.meta.env.SSR ? appCss : "" }}
            suppressHydrationWarning
          />
        )}
        <Links />
      </head>
      <body className="min-h-screen bg-white font-sans text-slate-900 antialiased">
        {/* Pinned to the bottom of the viewport: the public header sits over the top of the page. */}
        {data?.site.demoMode ? (
          <p className="fixed inset-x-0 bottom-0 z-50 bg-amber-300 px-4 py-2 text-center text-sm font-semibold text-slate-900 shadow-[0_-2px_6px_rgb(0_0_0/0.2)]">
            Demo: no real payments or emails
          </p>
        ) : null}
        {children}
        {data?.site.demoMode ? <div aria-hidden="true" className="h-10" /> : null}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App({ loaderData }: Route.ComponentProps) {
  return (
    <>
      <Outlet />
      <Toaster toast={loaderData.toast} />
    </>
  );
}

/** The public site settings of the root loader, for any route component. */
export function useSite() {
  const data = useRouteLoaderData<typeof loader>("root");
  if (!data) throw new Error("useSite outside the root route");
  return data.site;
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  let message = "Unknown error";
  let status = 500;
  if (isRouteErrorResponse(error)) {
    status = error.status;
    message = typeof error.data === "string" && error.data ? error.data : error.statusText || `${error.status}`;
  } else if (error instanceof Error) {
    message = error.message;
  }
  return <ErrorPage status={status} message={message} />;
}
