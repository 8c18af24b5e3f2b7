// A browser with JavaScript off, over plain HTTP: a cookie jar, and forms submitted as the browser
// submits them (every named field the page gives the form, hidden ones and the spam trap included,
// with the visitor's own values over them, and the Origin a browser sends). No test hook, only what
// a person sees. The newcomer test (tests/newcomer) follows redirects with `open` and `submit`;
// the HTML checker test (tests/html) reads each answer itself with `get` and `post`.

export interface Page {
  url: string;
  status: number;
  html: string;
}

const ENTITIES: Record<string, string> = { amp: "&", quot: '"', "#x27": "'", "#39": "'", lt: "<", gt: ">" };

/** Text as the browser reads it from an attribute or an element (the entities React writes). */
export const decodeEntities = (value: string) =>
  value.replace(/&(amp|quot|#x27|#39|lt|gt);/g, (_, name: string) => ENTITIES[name] ?? "");

const attribute = (tag: string, name: string) =>
  new RegExp(`\\s${name}="([^"]*)"`, "i").exec(tag)?.[1] ??
  (new RegExp(`\\s${name}(\\s|/?>)`, "i").test(tag) ? "" : undefined);

/** The text of the first `<h1>` (its tags removed): the heading a page is known by. */
export function headingOf(html: string): string | undefined {
  const inner = /<h1\b[^>]*>([\s\S]*?)<\/h1>/i.exec(html)?.[1];
  return inner === undefined
    ? undefined
    : decodeEntities(inner.replace(/<[^>]+>/g, ""))
        .replace(/\s+/g, " ")
        .trim();
}

/** The form of `html` with that id, or the first one holding a field of that name. */
type FormOf = { id: string } | { field: string };

export class Browser {
  private readonly cookies = new Map<string, string>();
  readonly base: string;

  constructor(base: string) {
    this.base = base;
  }

  /** Loads `path` and answers the response itself (a redirect is not followed). */
  get(path: string): Promise<Response> {
    return this.request(path);
  }

  /** Loads `path`, following redirects as a browser does. */
  async open(path: string): Promise<Page> {
    return this.follow(await this.request(path));
  }

  /** Posts a form of the page at `pageUrl` (its `html`) with `values` over its own fields; answers the response itself. */
  post(pageUrl: string, html: string, form: FormOf, values: Record<string, string>): Promise<Response> {
    const found =
      "id" in form
        ? new RegExp(`<form\\b[^>]*\\bid="${form.id}"[^>]*>([\\s\\S]*?)</form>`, "i").exec(html)
        : [...html.matchAll(/<form\b[^>]*>([\s\S]*?)<\/form>/gi)].find((m) => m[0].includes(`name="${form.field}"`));
    if (!found) throw new Error(`${pageUrl} has no form ${JSON.stringify(form)}`);
    const openingTag = found[0].slice(0, found[0].indexOf(">") + 1);
    // A form without an action posts to the page's own address (app/ui/form-fields.tsx OwnAddressForm).
    const action = decodeEntities(attribute(openingTag, "action") ?? pageUrl);
    const formId = attribute(openingTag, "id");
    // Inputs inside the form, and those elsewhere on the page that name it with form="…".
    const inputs = [...(found[1] ?? "").matchAll(/<input\b[^>]*>/gi)].map((m) => m[0]);
    if (formId) {
      for (const m of html.matchAll(new RegExp(`<input\\b[^>]*\\bform="${formId}"[^>]*>`, "gi"))) {
        if (!inputs.includes(m[0])) inputs.push(m[0]);
      }
    }
    const fields = new URLSearchParams();
    for (const tag of inputs) {
      const name = attribute(tag, "name");
      if (name === undefined || name in values) continue;
      const type = (attribute(tag, "type") ?? "text").toLowerCase();
      if ((type === "checkbox" || type === "radio") && attribute(tag, "checked") === undefined) continue;
      if (type === "submit" || type === "button" || type === "file") continue;
      fields.append(decodeEntities(name), decodeEntities(attribute(tag, "value") ?? ""));
    }
    for (const [name, value] of Object.entries(values)) fields.append(name, value);
    return this.request(action, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: this.base },
      body: fields,
    });
  }

  /** Submits the page's form `formId` as `post` does, and follows the answer's redirects. */
  async submit(page: Page, formId: string, values: Record<string, string>): Promise<Page> {
    return this.follow(await this.post(page.url, page.html, { id: formId }, values));
  }

  private async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set("cookie", [...this.cookies.values()].join("; "));
    headers.set("accept", "text/html");
    const response = await fetch(new URL(path, this.base), { ...init, headers, redirect: "manual" });
    for (const cookie of response.headers.getSetCookie()) {
      const pair = cookie.split(";")[0] ?? "";
      const name = pair.slice(0, pair.indexOf("="));
      if (/;\s*max-age=0\b/i.test(cookie) || pair.endsWith("=")) this.cookies.delete(name);
      else this.cookies.set(name, pair);
    }
    return response;
  }

  private async follow(first: Response): Promise<Page> {
    let response = first;
    for (let hops = 0; response.status >= 300 && response.status < 400; hops++) {
      const location = response.headers.get("location");
      if (!location || hops > 10) throw new Error(`redirect without a location or in a loop (${response.url})`);
      await response.body?.cancel();
      response = await this.request(new URL(location, response.url || this.base).href);
    }
    return { url: response.url, status: response.status, html: await response.text() };
  }
}
