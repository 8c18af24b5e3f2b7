// Toasts are flashed through the session, so they show after a redirect with or without JavaScript.
import { randomBytes } from "node:crypto";
import { type RouterContextProvider, redirect } from "react-router";
import { commitSession, getSession } from "./session.server.ts";
import type { Toast, ToastType } from "./toast.ts";

type Context = Readonly<RouterContextProvider>;

export interface ToastInput {
  type?: ToastType;
  title: string;
  description?: string;
}

/** A Set-Cookie header that flashes the toast into the request's session. */
export async function flashToast(context: Context, request: Request, input: ToastInput): Promise<string> {
  const session = await getSession(context, request);
  const toast: Toast = { id: randomBytes(6).toString("hex"), type: input.type ?? "default", ...input };
  session.flash("toast", toast);
  return commitSession(context, session);
}

export async function redirectWithToast(
  context: Context,
  request: Request,
  url: string,
  toast: ToastInput,
  init?: ResponseInit,
): Promise<Response> {
  const headers = new Headers(init?.headers);
  headers.append("set-cookie", await flashToast(context, request, toast));
  return redirect(url, { ...init, headers });
}

/** For the root loader: the pending toast (consumed) and the cookie to commit, if there was one. */
export async function takeToast(
  context: Context,
  request: Request,
): Promise<{ toast: Toast | null; setCookie: string | null }> {
  if (!request.headers.get("cookie")?.includes("session=")) return { toast: null, setCookie: null };
  const session = await getSession(context, request);
  const toast = session.get("toast") ?? null;
  return { toast, setCookie: toast ? await commitSession(context, session) : null };
}
