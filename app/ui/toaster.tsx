import { useEffect, useState } from "react";
import { TOAST_DURATION_MS, type Toast } from "../lib/toast.ts";

const styles: Record<Toast["type"], string> = {
  default: "border-slate-200 bg-white text-slate-900",
  success: "border-emerald-300 bg-emerald-50 text-emerald-900",
  destructive: "border-red-300 bg-red-50 text-red-900",
};

/**
 * Shows the toast flashed through the session (docs/requirements.md §S2, §S9): one at a time, 5 s, dismissible,
 * F8 focuses it, a swipe to the right dismisses it. Without JavaScript it simply stays until the
 * next page.
 */
export function Toaster({ toast }: { toast: Toast | null }) {
  const [visible, setVisible] = useState<Toast | null>(toast);

  useEffect(() => {
    setVisible(toast);
    if (!toast) return;
    const timer = setTimeout(() => setVisible(null), TOAST_DURATION_MS);
    return () => clearTimeout(timer);
  }, [toast]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "F8")
        document.getElementById("toast-region")?.querySelector<HTMLElement>("[data-toast]")?.focus();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  let startX: number | null = null;
  return (
    <section
      id="toast-region"
      aria-label="Notifications (F8)"
      className="pointer-events-none fixed inset-x-0 bottom-4 z-50 flex justify-center px-4 md:inset-x-auto md:right-4 md:justify-end"
    >
      <div role={visible?.type === "destructive" ? "alert" : "status"} aria-live="polite" className="w-full max-w-sm">
        {visible ? (
          <div
            data-toast={visible.type}
            tabIndex={-1}
            onTouchStart={(e) => {
              startX = e.touches[0]?.clientX ?? null;
            }}
            onTouchEnd={(e) => {
              const endX = e.changedTouches[0]?.clientX ?? 0;
              if (startX !== null && endX - startX > 50) setVisible(null);
            }}
            className={`pointer-events-auto flex items-start gap-3 rounded-lg border p-4 shadow-lg ${styles[visible.type]}`}
          >
            <div className="flex-1">
              <p className="font-semibold">{visible.title}</p>
              {visible.description ? <p className="mt-1 text-sm">{visible.description}</p> : null}
            </div>
            <button
              type="button"
              onClick={() => setVisible(null)}
              className="-m-2 inline-flex size-11 items-center justify-center rounded-md text-current hover:bg-black/5"
              aria-label="Dismiss notification"
            >
              <svg aria-hidden="true" viewBox="0 0 20 20" className="size-4" fill="currentColor">
                <path d="M5.3 5.3a1 1 0 0 1 1.4 0L10 8.6l3.3-3.3a1 1 0 1 1 1.4 1.4L11.4 10l3.3 3.3a1 1 0 0 1-1.4 1.4L10 11.4l-3.3 3.3a1 1 0 0 1-1.4-1.4L8.6 10 5.3 6.7a1 1 0 0 1 0-1.4Z" />
              </svg>
            </button>
          </div>
        ) : null}
      </div>
    </section>
  );
}
