// 'Print' with JavaScript; without it the page says how (a button that cannot work is not shown).
import { useHydrated } from "../../lib/use-hydrated.ts";

export function PrintButton() {
  const hydrated = useHydrated();
  if (!hydrated) {
    return <p className="self-center text-sm text-slate-600">To print, use your browser's Print command.</p>;
  }
  return (
    <button
      type="button"
      onClick={() => window.print()}
      className="inline-flex min-h-11 items-center justify-center rounded-md border border-brand-700 bg-white px-6 py-2 font-semibold text-brand-700 hover:bg-brand-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
    >
      Print
    </button>
  );
}
