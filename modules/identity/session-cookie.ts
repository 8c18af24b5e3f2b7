// The web session cookie's names, here so the edge (server/http/anonymous-pages.ts) can tell a
// visitor with a session from one without, without importing the web app's session module: that
// module creates a React Router context key, and a second copy of it in the server bundle is the
// hazard ADR 0004 names (docs/decisions/0030-imports-run-one-way.md).

/** The session cookie's name: over https with the __Host- prefix (docs/requirements.md §D7). */
export const SESSION_COOKIE_NAMES = ["session", "__Host-session"] as const;
