// CSRF and honeypot for every form post (remix-utils; docs/requirements.md §D7). A signed-in visitor's forms
// carry a token; a form posted without a signed-in session is checked by where it came from
// (Origin, else Sec-Fetch-Site, else a same-origin Referer), so pages for visitors without a
// session hold nothing per visitor and the edge can keep them whole. The guards come from
// server.ts through the request context (server/http/form-guards.ts).
import { data, type RouterContextProvider } from "react-router";
import { CSRFError } from "remix-utils/csrf/server";
import { SpamError } from "remix-utils/honeypot/server";
import { services } from "../context.ts";
import { optionalSignedIn } from "./auth.server.ts";

function tools(context: Readonly<RouterContextProvider>) {
  return services(context).formGuards;
}

const FORM_SESSION_EXPIRED = "Your form session expired. Please reload the page and try again.";

/** For the root loader: a signed-in visitor's token for forms and the cookie header to set when it is new. */
export async function csrfToken(context: Readonly<RouterContextProvider>, request: Request) {
  if (!optionalSignedIn(context)) return { token: "", cookieHeader: null };
  const [token, cookieHeader] = await tools(context).csrf.commitToken(request);
  return { token, cookieHeader };
}

export function honeypotInputProps(context: Readonly<RouterContextProvider>) {
  return tools(context).honeypotInputProps;
}

/**
 * Every action's post passes here (forms.server.ts `readPostedForm`, on the fields read whole, or
 * for a streamed upload on the fields before its file, before the file is read): refuses a post
 * whose CSRF token does not match (403) or whose honeypot field was filled (400).
 */
export async function checkFormFields(
  context: Readonly<RouterContextProvider>,
  request: Request,
  form: FormData,
): Promise<void> {
  const { csrf, honeypot } = tools(context);
  if (optionalSignedIn(context)) {
    try {
      await csrf.validate(form, request.headers);
    } catch (error) {
      if (error instanceof CSRFError) throw data(FORM_SESSION_EXPIRED, { status: 403 });
      throw error;
    }
  } else if (!postedFromHere(request, services(context).config.appUrl)) {
    throw data(FORM_SESSION_EXPIRED, { status: 403 });
  }
  try {
    await honeypot.check(form);
  } catch (error) {
    if (error instanceof SpamError) throw data("The form could not be accepted.", { status: 400 });
    throw error;
  }
}

/**
 * True when the browser says the post comes from one of our own pages: its Origin is ours (the
 * public APP_URL or the address it was sent to); without Origin, Sec-Fetch-Site says same-origin
 * (or none: typed or bookmarked); without both, the Referer is one of our pages. A browser sets
 * these headers itself and a page on another site cannot change them.
 */
export function postedFromHere(request: Request, appUrl: string): boolean {
  const own = new Set([new URL(appUrl).origin, new URL(request.url).origin]);
  const origin = request.headers.get("origin");
  if (origin) return own.has(origin);
  const site = request.headers.get("sec-fetch-site");
  if (site) return site === "same-origin" || site === "none";
  const referer = request.headers.get("referer");
  if (!referer) return false;
  try {
    return own.has(new URL(referer).origin);
  } catch {
    return false;
  }
}
