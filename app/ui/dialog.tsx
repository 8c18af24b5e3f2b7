// A modal dialog reachable by URL (?dialog=<name>), so it also works without JavaScript:
// - without JavaScript the opener is a plain link: to ?dialog=<name> by default, where the server
//   renders the dialog open with a close link back to the address without the parameter, or to
//   a page of its own (`href`, e.g. the policy page the dialog shows);
// - with JavaScript the same link opens a Headless UI Dialog in place (focus trapped, Escape
//   and the backdrop close it, focus returns to the opener) without a page load. That half
//   (./dialog-modal.tsx, Headless UI: about 15 KB compressed) is not part of the page's scripts:
//   it loads once the page is idle after hydration (less work before the page is ready).
import { lazy, type MouseEvent, type ReactNode, Suspense, useEffect, useId, useState } from "react";
import { useLocation, useNavigate } from "react-router";
import { useHydrated } from "../lib/use-hydrated.ts";
import { CloseIcon } from "./icons.tsx";

const PARAM = "dialog";

const loadModal = () => import("./dialog-modal.tsx");
const DialogModal = lazy(loadModal);

export interface UrlDialogControl {
  name: string;
  open: boolean;
  /** Spread on the <a> that opens the dialog. */
  linkProps: {
    href: string;
    onClick: (event: MouseEvent<HTMLAnchorElement>) => void;
    onPointerEnter: () => void;
    onFocus: () => void;
  };
  /** The address without the dialog parameter (the close link without JavaScript). */
  closeHref: string;
  close: () => void;
}

/** The element that opened the last dialog (JavaScript): where the focus goes back on close. */
let lastOpener: { element: HTMLElement; id: string } | null = null;

/** Every opener's click calls this with its element. */
export function rememberOpener(element: HTMLElement) {
  lastOpener = { element, id: element.id };
}

/**
 * After a dialog closed: Headless UI gives the focus back to the element focused when its
 * dialog mounted, but a dialog opened in the moment before its lazy half had loaded may find the
 * focus already gone. Then the opener (or the element that now has its id) gets it here.
 */
export function returnFocusToOpener() {
  setTimeout(() => {
    const active = document.activeElement;
    if (active && active !== document.body) return;
    const opener = lastOpener?.element.isConnected
      ? lastOpener.element
      : lastOpener?.id
        ? document.getElementById(lastOpener.id)
        : null;
    opener?.focus({ preventScroll: true });
  }, 50);
}

/** Starts loading the dialogs' Headless UI half (when a dialog's opener is pointed at or focused). */
export function preloadDialogs() {
  void loadModal();
}

/**
 * Loads the dialogs' Headless UI half once the page is idle, before any click: Headless UI
 * returns focus to the element focused before the dialog opened, which it only knows when it
 * was already running then. Every page with dialogs calls this (useUrlDialog does).
 */
export function usePreloadedDialogs() {
  useEffect(() => {
    const whenIdle = window.requestIdleCallback ?? ((run: () => void) => setTimeout(run, 200));
    whenIdle(preloadDialogs);
  }, []);
}

/**
 * State of the dialog `name`: open when the address says ?dialog=<name> or after a click (JS).
 * `href` is where the opener leads without JavaScript (default: ?dialog=<name>); `returnHash`
 * is added to the close link's address; `preload` starts loading what the dialog shows (with the
 * dialog's own code, when the opener is pointed at or focused).
 */
export function useUrlDialog(
  name: string,
  options: { href?: string; returnHash?: string; preload?: () => void } = {},
): UrlDialogControl {
  const preload = () => {
    void loadModal();
    options.preload?.();
  };
  const location = useLocation();
  const navigate = useNavigate();
  const [openedInPage, setOpenedInPage] = useState(false);
  usePreloadedDialogs();

  const params = new URLSearchParams(location.search);
  const openByUrl = params.get(PARAM) === name;
  params.set(PARAM, name);
  const href = `${location.pathname}?${params}`;
  params.delete(PARAM);
  const rest = params.toString();
  const closeHref = `${location.pathname}${rest ? `?${rest}` : ""}${options.returnHash ?? ""}`;

  return {
    name,
    open: openByUrl || openedInPage,
    linkProps: {
      href: options.href ?? href,
      onClick(event) {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        rememberOpener(event.currentTarget);
        preload();
        setOpenedInPage(true);
      },
      onPointerEnter: preload,
      onFocus: preload,
    },
    closeHref,
    close() {
      setOpenedInPage(false);
      if (openByUrl) void navigate(closeHref, { replace: true, preventScrollReset: true });
    },
  };
}

export const panelClass =
  "flex max-h-[85vh] w-full max-w-3xl flex-col overflow-hidden rounded-lg bg-white text-slate-900 shadow-xl";
export const closeClass =
  "inline-flex min-h-11 min-w-11 items-center justify-center rounded-md px-3 font-semibold text-brand-700 hover:bg-brand-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";

/** The dialog itself; its accessible name is the visible `title`. */
export function UrlDialog({
  control,
  title,
  children,
}: {
  control: UrlDialogControl;
  title: string;
  children: ReactNode;
}) {
  const hydrated = useHydrated();
  const titleId = useId();
  // Once opened, the Headless UI dialog stays mounted (closed), so closing returns focus to the opener.
  const [opened, setOpened] = useState(control.open);
  const [openAtStart] = useState(control.open);
  if (control.open && !opened) setOpened(true);
  if (!control.open && !(hydrated && opened)) return null;
  // The content may be lazy (the policy texts load when a dialog opens). No boundary on the
  // server: React would stream a large boundary's content after the shell, revealed by a script.
  const content = hydrated ? <Suspense fallback={<p>Loading…</p>}>{children}</Suspense> : children;
  // Server render (and the first client render): plain markup, closed by a link.
  const markup = (
    <StaticDialog control={control} title={title} titleId={titleId}>
      {content}
    </StaticDialog>
  );
  if (!hydrated) return markup;
  // Until the Headless UI half has loaded, a dialog the server rendered open stays as it was; one
  // opened by a click appears when it can also be closed (Escape), a moment later.
  return (
    <Suspense fallback={control.open && openAtStart ? markup : null}>
      <DialogModal control={control} title={title}>
        {content}
      </DialogModal>
    </Suspense>
  );
}

function StaticDialog({
  control,
  title,
  titleId,
  children,
}: {
  control: UrlDialogControl;
  title: string;
  titleId: string;
  children: ReactNode;
}) {
  return (
    <div className="fixed inset-0 z-50 flex items-center justify-center bg-slate-900/60 p-3 sm:p-6">
      <div role="dialog" aria-modal="true" aria-labelledby={titleId} className={panelClass}>
        <div className="flex items-center justify-between gap-2 border-b border-slate-200 px-4 py-2 sm:px-6">
          <h2 id={titleId} className="text-lg font-bold text-brand-800 sm:text-xl">
            {title}
          </h2>
          <a href={control.closeHref} className={closeClass} aria-label={`Close ${title}`}>
            <CloseIcon />
          </a>
        </div>
        <div className="overflow-y-auto px-4 py-4 sm:px-6">{children}</div>
        <div className="flex justify-end border-t border-slate-200 px-4 py-2 sm:px-6">
          <a href={control.closeHref} className={closeClass}>
            Close
          </a>
        </div>
      </div>
    </div>
  );
}
