// The `headers` of a route whose page is the same for every visitor without a session: the edge
// keeps it for a minute and serves it to all of them (server/http/anonymous-pages.ts). Such a
// route's loaders must read nothing about the visitor (no session, cookie, query or address);
// a signed-in visitor's copy is always rendered for them alone. A minute matches the catalogue
// cache the landing page shows (server/domain/catalogue.ts).
export function sharedPageHeaders(): HeadersInit {
  return { "CDN-Cache-Control": "max-age=60" };
}
