// A modal dialog reachable by URL (?dialog=<name>), so it also works without JavaScript:
// - without JavaScript the opener is a plain link: to ?dialog=<name> by default, where the server
//   renders the dialog open with a close link back to the address without the parameter, or to
//   a page of its own (`href`, e.g. the policy page the dialog shows);
// - with JavaScript the same link opens a Headless UI Dialog in place (focus trapped, Escape
//   and the backdrop close it, focus returns to the opener) without a page load. That half
//   (./dialog-modal.tsx, Headless UI: about 15 KB compressed) is not part of the page's scripts:
//   it loads once the page is idle after hydration (less work before the page is ready).
// A dialog may be about one item (My Team's Update and Remove: ?dialog=edit&member=<id>): its
// id is a second parameter (`itemParam`), and each opener names its item (`openerFor`).
import {
  lazy,
  type MouseEvent,
  type ReactNode,
  Suspense,
  useEffect,
  useId,
  useState,
  useSyncExternalStore,
} from "react";
import { useLocation, useNavigate, useNavigation, useRevalidator } from "react-router";
import { useHydrated } from "../lib/use-hydrated.ts";
import { CloseIcon } from "./icons.tsx";

const PARAM = "dialog";

const loadModal = () => import("./dialog-modal.tsx");
const DialogModal = lazy(loadModal);

/** Spread on the <a> that opens a dialog. */
export interface UrlDialogLinkProps {
  href: string;
  onClick: (event: MouseEvent<HTMLAnchorElement>) => void;
  onPointerEnter: () => void;
  onFocus: () => void;
}

export interface UrlDialogControl {
  name: string;
  open: boolean;
  /** The item the open dialog is about (the `itemParam` value), or null. */
  item: string | null;
  /** Spread on the <a> that opens the dialog (about no item). */
  linkProps: UrlDialogLinkProps;
  /** Props for the <a> that opens the dialog about `item`. */
  openerFor: (item: string | number) => UrlDialogLinkProps;
  /** The address without the dialog's parameters (the close link without JavaScript). */
  closeHref: string;
  close: () => void;
}

export interface UrlDialogOptions {
  /** Where the opener leads without JavaScript (default: ?dialog=<name> on this page). */
  href?: string;
  /** Added to the close link's address. */
  returnHash?: string;
  /** Starts loading what the dialog shows (when the opener is pointed at or focused). */
  preload?: () => void;
  /** The parameter naming the item the dialog is about (?dialog=<name>&<itemParam>=<id>). */
  itemParam?: string;
  /** Other parameters that belong to the dialogs (dropped from the close and opener addresses). */
  moreParams?: readonly string[];
  /** The id of the element that gets the focus when a dialog about `item` closes. */
  returnFocusTo?: (item: string) => string;
  /** Reload the page's data when a dialog opened in place closes (one opened by address navigates). */
  revalidateOnClose?: boolean;
}

/**
 * The dialog a click opened (or closed) in place, for the history entry `key` (the location's).
 * One for the whole page, as the address has one ?dialog=: opening a dialog in place closes the
 * one shown (My Team's Remove, opened from Update). A navigation (a new entry, e.g. the redirect
 * after a successful post) hands the decision back to the address.
 */
interface InPageDialog {
  key: string;
  name: string | null;
  item: string | null;
}
let inPage: InPageDialog | null = null;
const inPageListeners = new Set<() => void>();

function setInPage(next: InPageDialog | null) {
  inPage = next;
  for (const listener of inPageListeners) listener();
}

function subscribeInPage(listener: () => void) {
  inPageListeners.add(listener);
  return () => {
    inPageListeners.delete(listener);
    // The page with the dialogs is gone: coming back to its history entry, the address decides.
    if (inPageListeners.size === 0) inPage = null;
  };
}

const inPageSnapshot = () => inPage;
const noInPageOnServer = () => null;

/** The element that opened the last dialog (JavaScript): where the focus goes back on close. */
let lastOpener: { element: HTMLElement; id: string } | null = null;

/** Every opener's click calls this with its element. */
function rememberOpener(element: HTMLElement) {
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
function preloadDialogs() {
  void loadModal();
}

/**
 * Loads the dialogs' Headless UI half once the page is idle, before any click: Headless UI
 * returns focus to the element focused before the dialog opened, which it only knows when it
 * was already running then. Every page with dialogs calls this (useUrlDialog does).
 */
function usePreloadedDialogs() {
  useEffect(() => {
    const whenIdle = window.requestIdleCallback ?? ((run: () => void) => setTimeout(run, 200));
    whenIdle(preloadDialogs);
  }, []);
}

/**
 * State of the dialog `name`: open when the address says ?dialog=<name> (and, for a dialog about
 * an item, <itemParam>=<id>), or after a click on one of its openers (JavaScript) until the next
 * navigation.
 */
export function useUrlDialog(name: string, options: UrlDialogOptions = {}): UrlDialogControl {
  const preload = () => {
    void loadModal();
    options.preload?.();
  };
  const location = useLocation();
  const navigate = useNavigate();
  const navigation = useNavigation();
  const revalidator = useRevalidator();
  const shownInPage = useSyncExternalStore(subscribeInPage, inPageSnapshot, noInPageOnServer);
  usePreloadedDialogs();
  // After a navigation the dialog shown in place is forgotten, so that Back to its entry does not show it again.
  useEffect(() => {
    if (inPage && inPage.key !== location.key) setInPage(null);
  }, [location.key]);

  const { itemParam } = options;
  const params = new URLSearchParams(location.search);
  const urlName = params.get(PARAM);
  const fromUrl = { name: urlName, item: itemParam ? params.get(itemParam) : null };
  const current = shownInPage && shownInPage.key === location.key ? shownInPage : fromUrl;
  const open = current.name === name;
  for (const param of [PARAM, ...(itemParam ? [itemParam] : []), ...(options.moreParams ?? [])]) {
    params.delete(param);
  }
  const rest = params.toString();
  const closeHref = `${location.pathname}${rest ? `?${rest}` : ""}${options.returnHash ?? ""}`;

  function urlHref(item: string | null) {
    const next = new URLSearchParams(rest);
    next.set(PARAM, name);
    if (itemParam && item !== null) next.set(itemParam, item);
    return `${location.pathname}?${next}`;
  }

  function opener(item: string | null): UrlDialogLinkProps {
    return {
      href: item === null && options.href ? options.href : urlHref(item),
      onClick(event) {
        if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        rememberOpener(event.currentTarget);
        preload();
        // A page load under way (e.g. My Team's list following its search box, another page of a
        // list) would land after a dialog opened in place and close it: open this one by its
        // address instead, a navigation of its own that supersedes the pending one
        // (tests/e2e/my-team.spec.ts, "the search never overrides an Edit clicked after typing").
        if (navigation.state === "loading") {
          void navigate(urlHref(item), { replace: true, preventScrollReset: true });
          return;
        }
        setInPage({ key: location.key, name, item });
      },
      onPointerEnter: preload,
      onFocus: preload,
    };
  }

  return {
    name,
    open,
    item: open ? current.item : null,
    linkProps: opener(null),
    openerFor: (item) => opener(String(item)),
    closeHref,
    close() {
      // Only the dialog shown closes (a late call, e.g. after a post, must not close another one).
      if (!open) return;
      const item = current.item;
      setInPage({ key: location.key, name: null, item: null });
      if (urlName !== null) void navigate(closeHref, { replace: true, preventScrollReset: true });
      else if (options.revalidateOnClose) void revalidator.revalidate();
      const focusId = item !== null ? options.returnFocusTo?.(item) : undefined;
      if (focusId) setTimeout(() => document.getElementById(focusId)?.focus({ preventScroll: true }), 0);
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
