// 'Sample of Email' (docs/requirements.md §S2 Reward My Team Review): a sample of the email each recipient gets.
// Without JavaScript it is a link to /portal/reward-email-sample, a page showing the sample. With
// JavaScript the same link shows the sample in a tooltip on hover and on focus (and toggles it on
// a tap, for touch screens); Escape hides it. Given the payment form's id, each show first saves
// the message and sender typed there (when they changed since the last save), so the sample says
// what recipients will read; the sample is fetched again after each save.
import { useEffect, useId, useRef, useState } from "react";
import { Link, useFetcher } from "react-router";
import {
  CARD_ENTRY_FIELDS,
  EMAIL_SAMPLE_PATH,
  PAYMENT_TEXT,
  REVIEW_PATH,
  SAVE_MESSAGE_FIELD,
  SAVE_MESSAGE_THEN,
} from "./payment.ts";

const NOT_SAVED = new Set<string>(CARD_ENTRY_FIELDS);

export interface EmailSample {
  subject: string;
  text: string;
  html: string;
}

/** The sample's text version (what the tooltip shows; the page also shows the HTML version). */
export function EmailSampleText({ sample }: { sample: EmailSample }) {
  return (
    <div className="space-y-2">
      <p className="font-semibold text-slate-900">Subject: {sample.subject}</p>
      <div className="whitespace-pre-wrap break-words text-sm text-slate-800">{sample.text}</div>
    </div>
  );
}

export function EmailSampleTooltip({ formId }: { formId?: string }) {
  const fetcher = useFetcher<{ sample: EmailSample }>();
  const saver = useFetcher();
  const savedWording = useRef<string>(undefined);
  const [open, setOpen] = useState(false);
  const [pinned, setPinned] = useState(false);
  const tooltipId = useId();
  const wrapper = useRef<HTMLDivElement>(null);
  const requested = useRef(false);

  function show() {
    setOpen(true);
    void saveThenLoad();
  }
  async function saveThenLoad() {
    const form = formId ? document.getElementById(formId) : null;
    if (form instanceof HTMLFormElement) {
      const entries = new FormData(form);
      const wording = JSON.stringify([entries.get("message"), entries.get("senderName")]);
      if (wording !== savedWording.current) {
        savedWording.current = wording;
        const body = new FormData();
        for (const [name, value] of entries) if (!NOT_SAVED.has(name)) body.append(name, value);
        body.set(SAVE_MESSAGE_FIELD, SAVE_MESSAGE_THEN.stay);
        await saver.submit(body, { method: "post", action: REVIEW_PATH });
        requested.current = false;
      }
    }
    if (!requested.current) {
      requested.current = true;
      await fetcher.load(EMAIL_SAMPLE_PATH);
    }
  }
  const hideTimer = useRef<number>(undefined);
  function hide() {
    if (!pinned) setOpen(false);
  }
  // Leaving the link for the tooltip (or back) keeps it open: the hide waits a moment.
  function hideSoon() {
    window.clearTimeout(hideTimer.current);
    hideTimer.current = window.setTimeout(hide, 150);
  }
  function keepOpen() {
    window.clearTimeout(hideTimer.current);
  }
  useEffect(() => () => window.clearTimeout(hideTimer.current), []);

  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") {
        setPinned(false);
        setOpen(false);
      }
    };
    const onPointer = (event: PointerEvent) => {
      if (wrapper.current && !wrapper.current.contains(event.target as Node)) {
        setPinned(false);
        setOpen(false);
      }
    };
    document.addEventListener("keydown", onKey);
    document.addEventListener("pointerdown", onPointer);
    return () => {
      document.removeEventListener("keydown", onKey);
      document.removeEventListener("pointerdown", onPointer);
    };
  }, [open]);

  const sample = saver.state === "idle" && fetcher.state === "idle" ? fetcher.data?.sample : undefined;
  return (
    // The tooltip spans the payment card's width (phone) or opens leftwards from its right edge.
    <div ref={wrapper} className="relative">
      <Link
        to={EMAIL_SAMPLE_PATH}
        aria-describedby={open ? tooltipId : undefined}
        aria-expanded={open}
        onMouseEnter={() => {
          keepOpen();
          show();
        }}
        onMouseLeave={hideSoon}
        onFocus={show}
        onBlur={(event) => {
          if (!wrapper.current?.contains(event.relatedTarget as Node | null)) hide();
        }}
        onClick={(event) => {
          if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
          event.preventDefault();
          if (open && pinned) {
            setPinned(false);
            setOpen(false);
          } else {
            setPinned(true);
            show();
          }
        }}
        className="inline-flex min-h-11 items-center font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
      >
        {PAYMENT_TEXT.sampleOfEmail}
      </Link>
      {open ? (
        <div
          id={tooltipId}
          role="tooltip"
          onMouseEnter={keepOpen}
          onMouseLeave={hideSoon}
          className="absolute inset-x-0 bottom-full z-30 mb-2 max-h-[60vh] overflow-y-auto rounded-lg border border-slate-300 bg-white p-4 text-left shadow-xl lg:left-auto lg:w-[34rem]"
        >
          {sample ? (
            <EmailSampleText sample={sample} />
          ) : (
            <p className="text-sm text-slate-700">Loading the sample email...</p>
          )}
          <Link
            to={EMAIL_SAMPLE_PATH}
            className="mt-3 inline-flex min-h-11 items-center text-sm font-semibold text-brand-700 underline underline-offset-2"
          >
            Open the sample on its own page
          </Link>
        </div>
      ) : null}
    </div>
  );
}
