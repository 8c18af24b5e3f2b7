// The `headers` of a route whose page is the same for every visitor without a session: the edge
// keeps it for a minute and serves it to all of them (server/http/anonymous-pages.ts). Such a
// route's loaders must read nothing about the visitor (no session, cookie or address); a
// signed-in visitor's copy is always rendered for them alone. A minute matches the catalogue
// cache the landing page shows (server/domain/catalogue.ts).
//
// A page whose address carries a secret (the verify and reset links) can be shared too, when the
// page holds nothing of it: its forms post to the page's own address and the action reads the
// query. The route then lists those parameters with the pattern its loader accepts; the edge keeps
// one copy for every query of exactly those names whose values all match, and renders any other
// query (a malformed link, an extra parameter) for its visitor alone.

/** Query parameters a page does not show, each with the pattern a value must match to reach the page. */
export type OpaqueQuery = Readonly<Record<string, RegExp>>;

/** The response header that carries an OpaqueQuery from the route to the edge (never sent on). */
export const OPAQUE_QUERY_HEADER = "Shared-Page-Query";

export function sharedPageHeaders(): Record<string, string> {
  return { "CDN-Cache-Control": "max-age=60" };
}

/** The `headers` of a shared page whose address carries `query` (the page shows none of it). */
export function sharedLinkPageHeaders(query: OpaqueQuery): () => Record<string, string> {
  const declared = declaredQuery(query);
  return () => ({ ...sharedPageHeaders(), [OPAQUE_QUERY_HEADER]: declared });
}

/** A query as its header carries it (opaqueQueryOf reads it back). */
export function declaredQuery(query: OpaqueQuery): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(query).map(([name, pattern]) => [name, [pattern.source, pattern.flags]])),
  );
}

/** The query a response's Shared-Page-Query header declares, or undefined (absent or unreadable). */
export function opaqueQueryOf(header: string | null): OpaqueQuery | undefined {
  if (!header) return undefined;
  try {
    const declared = JSON.parse(header) as Record<string, [string, string]>;
    return Object.fromEntries(
      Object.entries(declared).map(([name, [source, flags]]) => [name, new RegExp(source, flags)]),
    );
  } catch {
    return undefined;
  }
}

/**
 * The query's values when each of its names is present and its first value matches the pattern
 * (what the loader and action of such a page read), else undefined. Other parameters are ignored.
 */
export function opaqueQueryValues<Names extends string>(
  params: URLSearchParams,
  query: Readonly<Record<Names, RegExp>>,
): Record<Names, string> | undefined {
  const values = {} as Record<Names, string>;
  for (const name of Object.keys(query) as Names[]) {
    const value = params.get(name);
    if (value === null || !query[name].test(value)) return undefined;
    values[name] = value;
  }
  return values;
}
