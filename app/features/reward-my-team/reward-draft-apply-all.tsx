// The amount box of Reward My Team (docs/requirements.md §S2: 'Apply amount to everyone', update-all-reward; §S5
// amount inputs: non-numeric, empty or negative → 0; a fraction or over 10,000 is refused with
// its message next to the field). A fetcher with JavaScript; a plain form post without.
import { useId } from "react";
import { useFetcher } from "react-router";
import { useHydrated } from "../../lib/use-hydrated.ts";
import { HiddenFormInputs } from "../../ui/form-fields.tsx";
import { type ApplyAllReply, INTENTS, pageHref, VIA_FETCHER } from "./reward-draft.ts";
import { secondaryButtonClass } from "./reward-draft-table.tsx";

export const APPLY_ALL_LABEL = "Amount for everyone ($)";

export function RewardDraftApplyAll({ reply, pageParam }: { reply?: ApplyAllReply; pageParam: number }) {
  const hydrated = useHydrated();
  const fetcher = useFetcher<ApplyAllReply>({ key: "reward-apply-all" });
  const current = hydrated ? fetcher.data : reply;
  const failure = current && !current.ok ? current : undefined;
  const inputId = useId();
  const errorId = `${inputId}-error`;
  const busy = fetcher.state !== "idle";

  return (
    <fetcher.Form
      method="post"
      // The page number in the address too: a refused value re-renders this same page (no JavaScript).
      action={pageHref(pageParam)}
      aria-label="Apply amount to everyone"
      className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm"
    >
      <HiddenFormInputs intent={INTENTS.applyAll} />
      <input type="hidden" name="page" value={pageParam} />
      {hydrated ? <input type="hidden" name={VIA_FETCHER.name} value={VIA_FETCHER.value} /> : null}
      <label htmlFor={inputId} className="mb-1 block text-sm font-semibold text-slate-800">
        {APPLY_ALL_LABEL}
      </label>
      <div className="flex flex-wrap items-start gap-2">
        <input
          id={inputId}
          name="value"
          type="text"
          inputMode="numeric"
          autoComplete="off"
          maxLength={16}
          defaultValue={reply && !reply.ok ? reply.value : ""}
          placeholder="0"
          aria-invalid={failure ? true : undefined}
          aria-describedby={failure ? errorId : undefined}
          className="block min-h-11 w-32 rounded-md border border-slate-400 bg-white px-3 py-2 text-right text-base tabular-nums text-slate-900 shadow-sm focus-visible:border-brand-700 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-brand-700 aria-invalid:border-red-700"
        />
        <button type="submit" disabled={busy} aria-busy={busy || undefined} className={secondaryButtonClass}>
          {busy ? "Please wait" : "Apply amount to everyone"}
        </button>
      </div>
      {failure ? (
        <p id={errorId} className="mt-1 text-sm font-medium text-red-700">
          {failure.message}
        </p>
      ) : null}
    </fetcher.Form>
  );
}
