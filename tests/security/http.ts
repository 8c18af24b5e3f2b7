// A browser's view of the real process over HTTP, for the security tests that drive server.ts on
// the production build (tests/support/app-process.ts startApp with `production: true`): the cookies
// and the CSRF token a page hands out (a signed-in visitor's pages only; anonymous forms are
// checked by their Origin), and form posts that carry them with the Origin a browser sends, from a client address of the
// test's choosing (the process runs with TRUST_PROXY=1, so X-Forwarded-For's last entry is it).

export interface FormSession {
  cookie: string;
  /** Empty on a page for visitors without a session. */
  csrf: string;
}

/** Loads `path` as a browser would and keeps the cookies and the form token it hands out. */
export async function openForm(base: string, path: string, cookie = ""): Promise<FormSession> {
  const res = await fetch(`${base}${path}`, { headers: cookie ? { cookie } : {} });
  if (res.status !== 200) throw new Error(`GET ${path}: HTTP ${res.status}`);
  const html = await res.text();
  // As the browser reads the attribute: the token's alphabet includes & (written &amp;).
  const csrf = (/name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "")
    .replace(/&quot;/g, '"')
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&");
  const set = res.headers.getSetCookie().map((c) => c.split(";")[0] as string);
  const jar = new Map(
    [...cookie.split("; ").filter(Boolean), ...set].map((c) => [c.slice(0, c.indexOf("=")), c] as const),
  );
  return { cookie: [...jar.values()].join("; "), csrf };
}

/** A form post as the page's own form would send it (with its CSRF token if it had one), from `clientIp`. */
export function postForm(
  base: string,
  path: string,
  session: FormSession,
  fields: Record<string, string>,
  clientIp?: string,
): Promise<Response> {
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    cookie: session.cookie,
    origin: base,
  };
  if (clientIp) headers["x-forwarded-for"] = clientIp;
  return fetch(`${base}${path}`, {
    method: "POST",
    headers,
    body: new URLSearchParams(session.csrf ? { ...fields, csrf: session.csrf } : fields),
    redirect: "manual",
  });
}

/** A JSON call to the API from `clientIp`. */
export function postJson(
  base: string,
  path: string,
  body: unknown,
  options: { clientIp?: string; token?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "application/json" };
  if (options.clientIp) headers["x-forwarded-for"] = options.clientIp;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  return fetch(`${base}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
}

/**
 * The URLs an attacker would try for one path: itself, a trailing slash, React Router's data
 * URLs, other letter case, and a percent-encoded letter.
 */
export function urlVariants(path: string, web: boolean): string[] {
  const last = path.lastIndexOf("/");
  const encoded = `${path.slice(0, last + 1)}%${path
    .charCodeAt(last + 1)
    .toString(16)
    .toUpperCase()}${path.slice(last + 2)}`;
  const variants = [path, `${path}/`, encoded];
  // The API's paths are SPEC's, letter for letter (another case is a 404); the pages ignore case.
  if (web) variants.push(`${path}.data`, `${path}/_.data`, `${path}/.data`, path.toUpperCase());
  return variants;
}
