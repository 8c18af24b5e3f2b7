// The JavaScript half of UrlDialog (./dialog.tsx): a Headless UI Dialog (focus trapped, Escape
// and the backdrop close it, focus returns to the opener). Loaded only when a dialog opens
// (Headless UI is about 14 KB compressed, too much to load and hydrate on every page that has a dialog).
import { Dialog, DialogBackdrop, DialogPanel, DialogTitle } from "@headlessui/react";
import type { ReactNode } from "react";
import { closeClass, panelClass, returnFocusToOpener, type UrlDialogControl } from "./dialog.tsx";
import { CloseIcon } from "./icons.tsx";

export default function DialogModal({
  control,
  title,
  children,
}: {
  control: UrlDialogControl;
  title: string;
  children: ReactNode;
}) {
  const close = () => {
    control.close();
    returnFocusToOpener();
  };
  return (
    <Dialog
      open={control.open}
      onClose={close}
      className="fixed inset-0 z-50 flex items-center justify-center p-3 sm:p-6"
    >
      <DialogBackdrop className="fixed inset-0 bg-slate-900/60" />
      <DialogPanel className={`relative ${panelClass}`}>
        <div className="flex items-center justify-between gap-2 border-b border-slate-200 px-4 py-2 sm:px-6">
          <DialogTitle as="h2" className="text-lg font-bold text-brand-800 sm:text-xl">
            {title}
          </DialogTitle>
          <button type="button" onClick={close} className={closeClass} aria-label={`Close ${title}`}>
            <CloseIcon />
          </button>
        </div>
        <div className="overflow-y-auto px-4 py-4 sm:px-6">{children}</div>
        <div className="flex justify-end border-t border-slate-200 px-4 py-2 sm:px-6">
          <button type="button" onClick={close} className={closeClass}>
            Close
          </button>
        </div>
      </DialogPanel>
    </Dialog>
  );
}
