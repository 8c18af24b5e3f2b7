import type { ReactNode } from "react";
import {
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useRouteLoaderData,
} from "react-router";
import type { Route } from "./+types/root";
import "./app.css";
import { ErrorPage } from "./components/error-page.tsx";
import { services } from "./context.ts";

export const meta: Route.MetaFunction = () => [
  { title: "Reward Portal: Reward your people instantly" },
  {
    name: "description",
    content:
      "Reward staff and customers with digital gift cards from over 100 of the best Australian retailers. Create a free account and pay only for what you allocate.",
  },
];

export const links: Route.LinksFunction = () => [{ rel: "icon", href: "/favicon.svg", type: "image/svg+xml" }];

export async function loader({ context }: Route.LoaderArgs) {
  const { nonce } = services(context);
  return { nonce };
}

export function Layout({ children }: { children: ReactNode }) {
  // The nonce comes from the root loader; on an error render it may be missing (then scripts are skipped by CSP).
  const data = useRouteLoaderData<typeof loader>("root");
  const nonce = data?.nonce;
  return (
    <html lang="en-AU">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#4c1d95" />
        <Meta />
        <Links />
      </head>
      <body className="min-h-screen bg-white font-sans text-slate-900 antialiased">
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
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
