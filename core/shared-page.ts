// The `headers` of a route whose page is the same for every visitor without a session: it says, the
// standard way (RFC 9111), that any shared cache may keep it for a minute. The process's own cache
// (server/http/page-cache.ts) and any in front of the app (docs/OPERATIONS.md, "Running for real") keep it
// and serve it to every visitor without a session; browsers keep it too but ask again each time
// (max-age=0), with the ETag the edge adds (server/http/anonymous-pages.ts), and get a 304 while
// it has not changed. The edge answers a signed-in visitor's copy, and any answer that sets a
// cookie, `private, no-store` whatever this says.
//
// Such a route's loaders must read nothing about the visitor (no session, cookie or address) and
// its page must hold nothing of the query: the verify and reset links, whose query carries a
// secret, are not shared (docs/decisions/0018-pages-for-visitors-without-a-session.md, amendment).
// A minute matches the catalogue cache the landing page shows (modules/catalogue/service.server.ts).

/** Shared caches a minute; browsers revalidate on every visit. */
export const SHARED_PAGE_CACHE_CONTROL = "public, max-age=0, s-maxage=60";

export function sharedPageHeaders(): Record<string, string> {
  return { "Cache-Control": SHARED_PAGE_CACHE_CONTROL };
}
