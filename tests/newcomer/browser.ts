// A browser with JavaScript off, over plain HTTP: a cookie jar, pages fetched and redirects
// followed, and forms submitted as the browser would submit them (every named field the page gives
// the form, hidden ones and the spam trap included, with the visitor's own values over them).
// The newcomer test (newcomer.test.ts) drives the README's own start this way: no test hook, only
// what a person sees.

export interface Page {
  url: string;
  status: number;
  html: string;
}

const ENTITIES: Record<string, string> = { amp: "&", quot: '"', "#x27": "'", "#39": "'", lt: "<", gt: ">" };
const decode = (value: string) =>
  value.replace(/&(amp|quot|#x27|#39|lt|gt);/g, (_, name: string) => ENTITIES[name] ?? "");

const attribute = (tag: string, name: string) =>
  new RegExp(`\\s${name}="([^"]*)"`, "i").exec(tag)?.[1] ??
  (new RegExp(`\\s${name}(\\s|/?>)`, "i").test(tag) ? "" : undefined);

/** The text of the first `<h1>` (its tags removed): the heading a page is known by. */
export function headingOf(html: string): string | undefined {
  const inner = /<h1\b[^>]*>([\s\S]*?)<\/h1>/i.exec(html)?.[1];
  return inner === undefined
    ? undefined
    : decode(inner.replace(/<[^>]+>/g, ""))
        .replace(/\s+/g, " ")
        .trim();
}

export class Browser {
  private readonly cookies = new Map<string, string>();
  readonly base: string;

  constructor(base: string) {
    this.base = base;
  }

  /** Loads `path`, following redirects as a browser does. */
  async open(path: string): Promise<Page> {
    return this.follow(await this.request(path));
  }

  /**
   * Submits the page's form `formId` with `values` over the fields the page rendered for it, as a
   * browser with JavaScript off does, and follows the answer's redirects.
   */
  async submit(page: Page, formId: string, values: Record<string, string>, submitter?: [string, string]) {
    const form = new RegExp(`<form\\b[^>]*\\bid="${formId}"[^>]*>([\\s\\S]*?)</form>`, "i").exec(page.html);
    if (!form) throw new Error(`${page.url} has no form #${formId}`);
    const action = decode(attribute(form[0].slice(0, form[0].indexOf(">") + 1), "action") ?? page.url);
    const fields = new URLSearchParams();
    // Inputs inside the form, and those elsewhere on the page that name it with form="…".
    const inside = form[1] ?? "";
    const outside = [...page.html.matchAll(new RegExp(`<input\\b[^>]*\\bform="${formId}"[^>]*>`, "gi"))].map(
      (m) => m[0],
    );
    const inputs = [...[...inside.matchAll(/<input\b[^>]*>/gi)].map((m) => m[0]), ...outside];
    const seen = new Set<string>();
    for (const tag of inputs) {
      const name = attribute(tag, "name");
      if (name === undefined || seen.has(tag)) continue;
      seen.add(tag);
      const type = (attribute(tag, "type") ?? "text").toLowerCase();
      if ((type === "checkbox" || type === "radio") && attribute(tag, "checked") === undefined) continue;
      if (type === "submit" || type === "button" || type === "file") continue;
      if (name in values) continue;
      fields.append(decode(name), decode(attribute(tag, "value") ?? ""));
    }
    for (const [name, value] of Object.entries(values)) fields.append(name, value);
    if (submitter) fields.append(submitter[0], submitter[1]);
    const response = await this.request(action, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: this.base },
      body: fields,
    });
    return this.follow(response);
  }

  private async request(path: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    if (this.cookies.size > 0) headers.set("cookie", [...this.cookies.values()].join("; "));
    headers.set("accept", "text/html");
    const response = await fetch(new URL(path, this.base), { ...init, headers, redirect: "manual" });
    for (const cookie of response.headers.getSetCookie()) {
      const pair = cookie.split(";")[0] ?? "";
      const name = pair.slice(0, pair.indexOf("="));
      if (/;\s*max-age=0\b/i.test(cookie) || /=;|=$/.test(pair)) this.cookies.delete(name);
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
