// Toasts are flashed through the session, so they show after a redirect with or without
// JavaScript; the session middleware writes the session back (app/lib/session.server.ts).
import { randomBytes } from "node:crypto";
import { type RouterContextProvider, redirect } from "react-router";
import { getSession } from "./session.server.ts";
import type { Toast, ToastType } from "./toast.ts";

type Context = Readonly<RouterContextProvider>;

export interface ToastInput {
  type?: ToastType;
  title: string;
  description?: string;
}

/** Flashes the toast into this request's session; the next page shows it. */
export function flashToast(context: Context, input: ToastInput): void {
  const toast: Toast = { id: randomBytes(6).toString("hex"), type: input.type ?? "default", ...input };
  getSession(context).flash("toast", toast);
}

/** A redirect after which the page shows the toast. */
export function redirectWithToast(context: Context, url: string, toast: ToastInput, init?: ResponseInit): Response {
  flashToast(context, toast);
  return redirect(url, init);
}

/** For the root loader: the pending toast, consumed (the session is written back without it). */
export function takeToast(context: Context): Toast | null {
  return getSession(context).get("toast") ?? null;
}
