// CSRF and honeypot for every form post (remix-utils). Both are keyed by the process secret,
// which comes from server.ts through the request context.
import { createCookie, data, type RouterContextProvider } from "react-router";
import { CSRF, CSRFError } from "remix-utils/csrf/server";
import { Honeypot, SpamError } from "remix-utils/honeypot/server";
import { services } from "../context.ts";

const cache = new Map<string, { csrf: CSRF; honeypot: Honeypot }>();

function forSecret(secret: string, secure: boolean) {
  const key = `${secret}:${secure}`;
  let entry = cache.get(key);
  if (!entry) {
    const cookie = createCookie(secure ? "__Host-csrf" : "csrf", {
      path: "/",
      httpOnly: true,
      secure,
      sameSite: "lax",
      secrets: [secret],
    });
    entry = {
      csrf: new CSRF({ cookie, secret, formDataKey: "csrf" }),
      // validFrom stays off: a person may fill a form as fast as they like; the name field catches bots.
      honeypot: new Honeypot({ encryptionSeed: secret, validFromFieldName: null }),
    };
    cache.set(key, entry);
  }
  return entry;
}

function tools(context: Readonly<RouterContextProvider>) {
  const s = services(context);
  return forSecret(s.secret, s.config.isHttps);
}

/** For the root loader: the token for forms and the cookie header to set when it is new. */
export async function csrfToken(context: Readonly<RouterContextProvider>, request: Request) {
  const [token, cookieHeader] = await tools(context).csrf.commitToken(request);
  return { token, cookieHeader };
}

export function honeypotInputProps(context: Readonly<RouterContextProvider>) {
  return tools(context).honeypot.getInputProps();
}

/**
 * Every action starts here: refuses a post whose CSRF token does not match (403) or whose
 * honeypot field was filled (400), and returns the parsed form data otherwise.
 */
export async function checkFormPost(context: Readonly<RouterContextProvider>, request: Request): Promise<FormData> {
  const form = await request.formData();
  const { csrf, honeypot } = tools(context);
  try {
    await csrf.validate(form, request.headers);
  } catch (error) {
    if (error instanceof CSRFError) {
      throw data("Your form session expired. Please reload the page and try again.", { status: 403 });
    }
    throw error;
  }
  try {
    await honeypot.check(form);
  } catch (error) {
    if (error instanceof SpamError) throw data("The form could not be accepted.", { status: 400 });
    throw error;
  }
  return form;
}
