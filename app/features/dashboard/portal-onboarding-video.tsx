// The dashboard's Getting Started dialog (docs/requirements.md §S2 Dashboard, §S4 onboarding video; step 4 of the
// journey): shown while hasWatchedOnboardingVideo is false, it plays the hosted onboarding video.
// Closing it posts intent=video-watched to the dashboard action, which records the flag on the
// server (POST /api/Identity/onboarding-video-watched) and in the session.
// - Without JavaScript it is a section at the top of the dashboard with a 'Close' form button.
// - With JavaScript it is a Headless UI modal dialog (focus trapped, Escape and the backdrop
//   close it); every way of closing it sends the same form through a fetcher.
// Not a UrlDialog (app/ui/dialog.tsx) by design: the server's flag opens it, not an address, and closing it is a post.
import { Dialog, DialogBackdrop, DialogPanel, DialogTitle } from "@headlessui/react";
import { type ReactNode, useRef, useState } from "react";
import { Form, useFetcher } from "react-router";
import { useHydrated } from "../../lib/use-hydrated.ts";
import { HiddenFormInputs } from "../../ui/form-fields.tsx";
import { CloseIcon } from "../../ui/icons.tsx";
import { PortalVideo } from "./portal-video.tsx";

export const VIDEO_WATCHED_INTENT = "video-watched";
const TITLE = "Getting Started";

const closeButtonClass =
  "inline-flex min-h-11 items-center justify-center rounded-md bg-brand-700 px-6 font-semibold text-white hover:bg-brand-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";
const iconButtonClass =
  "inline-flex size-11 items-center justify-center rounded-md text-slate-700 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";

function Intro() {
  return (
    <p className="text-slate-700">
      Welcome aboard! This short video shows how to add your team, reward them and track your rewards.
    </p>
  );
}

export function GettingStartedDialog({ videoUrl, action }: { videoUrl: string; action: string }) {
  const hydrated = useHydrated();
  if (!hydrated) return <GettingStartedSection videoUrl={videoUrl} action={action} />;
  return <GettingStartedModal videoUrl={videoUrl} action={action} />;
}

/** Server render (and no JavaScript): a page section closed by a plain form post. */
function GettingStartedSection({ videoUrl, action }: { videoUrl: string; action: string }) {
  return (
    <section
      aria-labelledby="getting-started-heading"
      className="rounded-lg border-2 border-brand-700 bg-white p-4 shadow-md sm:p-6"
    >
      <h2 id="getting-started-heading" className="text-2xl font-bold text-brand-800">
        {TITLE}
      </h2>
      <div className="mt-3 space-y-4">
        <Intro />
        <PortalVideo src={videoUrl} title="Onboarding video" autoPlay />
      </div>
      <Form method="post" action={action} className="mt-4 flex justify-end">
        <HiddenFormInputs intent={VIDEO_WATCHED_INTENT} />
        <button type="submit" className={closeButtonClass}>
          Close
        </button>
      </Form>
    </section>
  );
}

function GettingStartedModal({ videoUrl, action }: { videoUrl: string; action: string }) {
  const [open, setOpen] = useState(true);
  const fetcher = useFetcher();
  const formRef = useRef<HTMLFormElement>(null);
  // Escape, the backdrop and the X button send the form as the Close button does.
  const close = () => formRef.current?.requestSubmit();

  return (
    <Dialog open={open} onClose={close} className="fixed inset-0 z-50 flex items-center justify-center p-3 sm:p-6">
      <DialogBackdrop className="fixed inset-0 bg-slate-900/70" />
      <DialogPanel className="relative flex max-h-[90vh] w-full max-w-3xl flex-col overflow-hidden rounded-lg bg-white text-slate-900 shadow-xl">
        <ModalBar>
          <DialogTitle as="h2" className="text-xl font-bold text-brand-800">
            {TITLE}
          </DialogTitle>
          <button type="button" onClick={close} className={iconButtonClass} aria-label={`Close ${TITLE}`}>
            <CloseIcon />
          </button>
        </ModalBar>
        <div className="space-y-4 overflow-y-auto px-4 py-4 sm:px-6">
          <Intro />
          <PortalVideo src={videoUrl} title="Onboarding video" autoPlay />
        </div>
        <fetcher.Form
          ref={formRef}
          method="post"
          action={action}
          onSubmit={() => {
            setOpen(false);
            // After Headless UI has put the focus back where it was (nowhere, on a first load): the page.
            setTimeout(() => document.getElementById("main")?.focus({ preventScroll: true }), 0);
          }}
          className="flex justify-end border-t border-slate-200 px-4 py-3 sm:px-6"
        >
          <HiddenFormInputs intent={VIDEO_WATCHED_INTENT} />
          <button type="submit" className={closeButtonClass}>
            Close
          </button>
        </fetcher.Form>
      </DialogPanel>
    </Dialog>
  );
}

function ModalBar({ children }: { children: ReactNode }) {
  return (
    <div className="flex items-center justify-between gap-2 border-b border-slate-200 px-4 py-2 sm:px-6">
      {children}
    </div>
  );
}
