// A page that reloads itself to a new address when JavaScript is off (the payment confirmation's
// checks, docs/requirements.md §S9): a refresh <meta> inside a <noscript> in the document's <head>. HTML allows a
// <meta> in a <noscript> only there, not in the <body> (tests/html/html-validity.test.ts checks
// every page). With JavaScript on, the browser reads a <noscript>'s content as text, so nothing
// reloads and the page's own script does the checking. A route asks for it through its handle.
import { useMatches } from "react-router";

export interface NoscriptRefreshHandle {
  /** From the route's loader data: where a browser without JavaScript goes after `seconds`; null: nowhere. */
  noscriptRefresh: (loaderData: unknown) => { seconds: number; url: string } | null;
}

function refreshOf(handle: unknown, loaderData: unknown) {
  if (loaderData === undefined || typeof handle !== "object" || handle === null) return null;
  const ask = (handle as Partial<NoscriptRefreshHandle>).noscriptRefresh;
  return typeof ask === "function" ? ask(loaderData) : null;
}

const attribute = (text: string) =>
  text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;").replaceAll(">", "&gt;");

/** For the document's <head> (app/root.tsx): the refresh the deepest route asks for, if any. */
export function NoscriptRefresh() {
  const refresh = useMatches()
    .map((match) => refreshOf(match.handle, match.loaderData))
    .findLast((r) => r !== null);
  if (!refresh) return null;
  const tag = `<meta http-equiv="refresh" content="${refresh.seconds}; url=${attribute(refresh.url)}">`;
  // biome-ignore lint/security/noDangerouslySetInnerHtml: a fixed tag around our own address, escaped for its attribute
  return <noscript dangerouslySetInnerHTML={{ __html: tag }} />;
}
