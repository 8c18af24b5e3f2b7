// Single sign-on's browser side (ADR 0046): the state of a sign-in sent to the company's
// identity provider travels in a short-lived httpOnly cookie, so only the browser that started it
// can finish it (a callback carried to another browser is refused: login CSRF). SameSite=Lax, not
// Strict: the provider sends the browser back with a top-level GET from its own site, which a
// Strict cookie would not accompany. Scoped to the callback's path.
import { createCookie, type RouterContextProvider } from "react-router";
import { SSO_FLOW_TTL_MS } from "../../../modules/single-sign-on/schema.ts";
import { services } from "../../context.ts";

type Context = Readonly<RouterContextProvider>;

function stateCookie(context: Context) {
  return createCookie("sso_state", {
    httpOnly: true,
    secure: services(context).config.isHttps,
    sameSite: "lax",
    path: "/corporate/sso",
    maxAge: SSO_FLOW_TTL_MS / 1000,
  });
}

/** The Set-Cookie of a sign-in just sent to the provider (the login action's redirect carries it). */
export function setSsoStateCookie(context: Context, state: string): Promise<string> {
  return stateCookie(context).serialize(state);
}

export function clearSsoStateCookie(context: Context): Promise<string> {
  return stateCookie(context).serialize("", { maxAge: 0 });
}

/** The state this browser was sent off with, or "" when it has none. */
export async function ssoStateOf(context: Context, request: Request): Promise<string> {
  const value: unknown = await stateCookie(context).parse(request.headers.get("cookie"));
  return typeof value === "string" && value.length <= 200 ? value : "";
}
