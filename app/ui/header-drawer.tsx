// The slide-out drawer of the public and portal headers under 768 px: a <dialog> that opens
// through :target without JavaScript and as a modal dialog (focus kept inside, Escape, the
// backdrop, focus back on the trigger) with it. The header places the trigger in its bar and the
// drawer after it; both take the state of one useHeaderDrawer.
import { type ReactNode, type RefObject, useEffect, useRef, useState } from "react";
import { MOBILE_QUERY } from "../lib/smooth-scroll.ts";
import { CloseIcon, MenuIcon } from "./icons.tsx";

const focusRing = "focus-visible:outline-2 focus-visible:outline-offset-2";
const triggerClass = `inline-flex size-11 items-center justify-center rounded-md text-white hover:bg-white/10 md:hidden ${focusRing} focus-visible:outline-white`;
const closeClass = `inline-flex size-11 items-center justify-center rounded-md text-slate-700 hover:bg-slate-100 ${focusRing} focus-visible:outline-brand-700`;

export interface HeaderDrawerState {
  /** The dialog's id: the no-JavaScript trigger's #fragment. */
  id: string;
  dialogRef: RefObject<HTMLDialogElement | null>;
  triggerRef: RefObject<HTMLButtonElement | null>;
  /** Hydrated: the trigger is a button and the drawer a modal dialog. */
  enhanced: boolean;
  open: boolean;
  openDrawer(): void;
  /** Closes the drawer and gives the focus back to the trigger. */
  closeDrawer(): void;
}

export function useHeaderDrawer(id: string): HeaderDrawerState {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const triggerRef = useRef<HTMLButtonElement>(null);
  const [enhanced, setEnhanced] = useState(false);
  const [open, setOpen] = useState(false);

  useEffect(() => {
    setEnhanced(true);
    const dialog = dialogRef.current;
    if (!dialog) return;
    // Opened through :target before hydration: take over as a real modal.
    if (window.location.hash === `#${id}`) {
      window.history.replaceState(window.history.state, "", window.location.pathname + window.location.search);
      if (window.matchMedia(MOBILE_QUERY).matches) {
        dialog.showModal();
        setOpen(true);
      }
    }
    const onClose = () => setOpen(false);
    dialog.addEventListener("close", onClose);
    const mobile = window.matchMedia(MOBILE_QUERY);
    const onResize = () => {
      if (!mobile.matches && dialog.open) dialog.close();
    };
    mobile.addEventListener("change", onResize);
    return () => {
      dialog.removeEventListener("close", onClose);
      mobile.removeEventListener("change", onResize);
    };
  }, [id]);

  return {
    id,
    dialogRef,
    triggerRef,
    enhanced,
    open,
    openDrawer: () => {
      dialogRef.current?.showModal();
      setOpen(true);
    },
    closeDrawer: () => {
      if (dialogRef.current?.open) dialogRef.current.close();
      triggerRef.current?.focus({ preventScroll: true });
    },
  };
}

/** The Menu button in the header bar (a link to the drawer's #fragment without JavaScript). */
export function HeaderDrawerTrigger({ drawer }: { drawer: HeaderDrawerState }) {
  if (!drawer.enhanced) {
    return (
      <a href={`#${drawer.id}`} className={triggerClass}>
        <MenuIcon />
        <span className="sr-only">Menu</span>
      </a>
    );
  }
  return (
    <button
      ref={drawer.triggerRef}
      type="button"
      className={triggerClass}
      aria-haspopup="dialog"
      aria-expanded={drawer.open}
      aria-controls={drawer.id}
      onClick={drawer.openDrawer}
    >
      <MenuIcon />
      <span className="sr-only">Menu</span>
    </button>
  );
}

export function HeaderDrawer({
  drawer,
  title,
  closeLabel,
  children,
}: {
  drawer: HeaderDrawerState;
  /** The drawer's heading, which names the dialog. */
  title: string;
  closeLabel: string;
  children: ReactNode;
}) {
  const titleId = `${drawer.id}-title`;
  return (
    // biome-ignore lint/a11y/useKeyWithClickEvents: the pointer-only backdrop click; <dialog> handles Escape itself
    <dialog
      ref={drawer.dialogRef}
      id={drawer.id}
      aria-labelledby={titleId}
      className="fixed inset-y-0 right-0 left-auto m-0 hidden h-dvh max-h-none w-80 max-w-[85vw] translate-x-full flex-col bg-white p-0 text-slate-900 shadow-2xl transition-[translate,display,overlay] transition-discrete duration-300 backdrop:bg-slate-950/60 open:flex open:translate-x-0 target:z-50 target:flex target:translate-x-0 starting:open:translate-x-full starting:target:translate-x-full md:hidden"
      onClick={(event) => {
        // A click on the backdrop lands on the dialog element itself.
        if (event.target === event.currentTarget) drawer.closeDrawer();
      }}
    >
      <div className="flex h-full flex-col overflow-y-auto px-4 pb-6">
        <div className="flex h-16 shrink-0 items-center justify-between">
          <h2 id={titleId} className="text-lg font-bold text-brand-900">
            {title}
          </h2>
          {drawer.enhanced ? (
            <button type="button" className={closeClass} onClick={drawer.closeDrawer}>
              <CloseIcon />
              <span className="sr-only">{closeLabel}</span>
            </button>
          ) : (
            // Without JavaScript: leave the :target for the skip-link target, #main.
            <a href="#main" className={closeClass}>
              <CloseIcon />
              <span className="sr-only">{closeLabel}</span>
            </a>
          )}
        </div>
        {children}
      </div>
    </dialog>
  );
}
