// Remove All (docs/requirements.md §S2) with a confirmation step: a dialog reachable by URL (?dialog=remove-all)
// whose form calls delete-all-reward. The destructive button is the dialog form's only submit.
import { useEffect, useRef } from "react";
import { useFetcher } from "react-router";
import { useHydrated } from "../../lib/use-hydrated.ts";
import { UrlDialog, type UrlDialogControl } from "../../ui/dialog.tsx";
import { HiddenFormInputs } from "../../ui/form-fields.tsx";
import { type DoneReply, INTENTS, REWARD_MY_TEAM_PATH, VIA_FETCHER } from "./reward-draft.ts";
import { secondaryButtonClass } from "./reward-draft-table.tsx";

export const REMOVE_ALL_TITLE = "Remove All Recipients";

export function RewardDraftRemoveAllDialog({ control, count }: { control: UrlDialogControl; count: number }) {
  const hydrated = useHydrated();
  const fetcher = useFetcher<DoneReply>({ key: "reward-remove-all" });
  const busy = fetcher.state !== "idle";
  const closeRef = useRef(control.close);
  closeRef.current = control.close;
  useEffect(() => {
    if (fetcher.state === "idle" && fetcher.data?.ok) closeRef.current();
  }, [fetcher.state, fetcher.data]);

  return (
    <UrlDialog control={control} title={REMOVE_ALL_TITLE}>
      <p className="text-slate-800">
        {count > 0
          ? `Remove all ${count.toLocaleString("en-AU")} ${count === 1 ? "recipient" : "recipients"} from this reward? Their amounts will be cleared. They stay in your team.`
          : "There are no recipients to remove."}
      </p>
      {count > 0 ? (
        <fetcher.Form method="post" action={REWARD_MY_TEAM_PATH} className="mt-4 flex flex-wrap gap-3">
          <HiddenFormInputs intent={INTENTS.removeAll} />
          {hydrated ? <input type="hidden" name={VIA_FETCHER.name} value={VIA_FETCHER.value} /> : null}
          <button
            type="submit"
            disabled={busy}
            aria-busy={busy || undefined}
            className="inline-flex min-h-11 items-center justify-center rounded-md bg-red-700 px-6 py-2 font-semibold text-white shadow-sm hover:bg-red-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-700 disabled:cursor-not-allowed disabled:opacity-60"
          >
            {busy ? "Please wait" : "Remove All"}
          </button>
          {hydrated ? (
            <button type="button" onClick={control.close} className={secondaryButtonClass}>
              Cancel
            </button>
          ) : (
            <a href={control.closeHref} className={secondaryButtonClass}>
              Cancel
            </a>
          )}
        </fetcher.Form>
      ) : null}
    </UrlDialog>
  );
}
