// The end of every way into the portal (the login form, a second factor, an accepted
// invitation): a new session holding the access token, the app settings and the manager's
// details from the API, and a new CSRF token, since one planted in the browser before the
// sign-in must not outlive it (docs/requirements.md §S4, §D7).
import type { RouterContextProvider } from "react-router";
import type { AppSettings } from "../../../modules/identity/schema.ts";
import { services } from "../../context.ts";
import { createApiClient } from "../../lib/api.server.ts";
import { type SessionData, startNewSession } from "../../lib/session.server.ts";

type Context = Readonly<RouterContextProvider>;

/**
 * Starts the session for a token a sign-in answered; answers the user it holds and the
 * Set-Cookie headers the redirect that follows must carry. When the details cannot be read the
 * sign-in still goes on with what is known (docs/requirements.md §S4: only logged).
 */
export async function startSignedInSession(
  context: Context,
  answer: { accessToken: string; appSettings: AppSettings },
  knownEmail = "",
): Promise<{ user: SessionData["user"]; headers: Headers }> {
  const details = await createApiClient(context, { token: answer.accessToken }).call((api) =>
    api.Users.MyDetails.$get(),
  );
  let user: SessionData["user"] = {
    id: 0,
    companyId: 0,
    firstName: "",
    lastName: "",
    fullName: "",
    email: knownEmail,
    companyName: "",
  };
  if (details.ok) {
    const d = details.data;
    user = {
      id: d.id,
      companyId: d.companyId,
      firstName: d.firstName,
      lastName: d.lastName,
      fullName: d.fullName,
      email: d.email,
      companyName: d.companyName,
    };
  } else {
    services(context).logger.warn({ status: details.status }, "sign-in: MyDetails failed");
  }
  await startNewSession(context, { accessToken: answer.accessToken, user, appSettings: answer.appSettings });
  const headers = new Headers();
  const [, csrfCookie] = await services(context).formGuards.csrf.commitToken();
  if (csrfCookie) headers.append("set-cookie", csrfCookie);
  return { user, headers };
}
