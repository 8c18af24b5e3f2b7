// CSRF and honeypot for every form post (remix-utils). The guards come from server.ts through
// the request context (server/http/form-guards.ts), signed with the process secret.
import { data, type RouterContextProvider } from "react-router";
import { CSRFError } from "remix-utils/csrf/server";
import { SpamError } from "remix-utils/honeypot/server";
import { SHARED_PAGE_SLOTS, services } from "../context.ts";

function tools(context: Readonly<RouterContextProvider>) {
  return services(context).formGuards;
}

/** For the root loader: the token for forms and the cookie header to set when it is new. */
export async function csrfToken(context: Readonly<RouterContextProvider>, request: Request) {
  if (services(context).sharedPageRender) return { token: SHARED_PAGE_SLOTS.csrf, cookieHeader: null };
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
