// 'Print' with JavaScript; without it the page says how (a button that cannot work is not shown).

import { useHydrated } from "../../lib/use-hydrated.ts";
import { outlineButtonClass } from "../../ui/buttons.ts";

export function PrintButton() {
  const hydrated = useHydrated();
  if (!hydrated) {
    return <p className="self-center text-sm text-slate-600">To print, use your browser's Print command.</p>;
  }
  return (
    <button type="button" onClick={() => window.print()} className={outlineButtonClass}>
      Print
    </button>
  );
}
