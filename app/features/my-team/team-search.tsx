// The My Team search box (SPEC §2 My Team, §4 team list, §5 team search): a plain GET form
// (?search=…) with a Search button without JavaScript; with JavaScript the list follows the
// typing (debounced, replacing the history entry). Either way a new text starts at page 1; the
// loader sends the text to the API only when longer than 2 characters.
// The debounced search never overrides what the person did after typing: it goes only from the
// address it was typed on (or the one its own last search led to), while no dialog is open and
// no other navigation is under way. Otherwise it is dropped and the box shows the address's text.
import { useEffect, useRef } from "react";
import { Form, type Location, useLocation, useNavigate, useNavigation } from "react-router";
import { useHydrated } from "../../lib/use-hydrated.ts";
import { MY_TEAM_PATH } from "./team.ts";

const SEARCH_LABEL = "Type Name to Search";
const DEBOUNCE_MS = 300;

/** What the browser's address bar holds now (the router writes it before React renders the change). */
function currentHref(): string {
  return `${window.location.pathname}${window.location.search}`;
}

/** The mark the search's own navigations carry in their location state. */
interface SearchState {
  teamSearch?: number;
}

let searchCount = 0;

export function TeamSearch({ search, dialogOpen }: { search: string; dialogOpen: boolean }) {
  const hydrated = useHydrated();
  const navigate = useNavigate();
  const navigation = useNavigation();
  const location = useLocation();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const input = useRef<HTMLInputElement>(null);
  // The latest render's view, for the timer that fires later.
  const latest = useRef({ search, dialogOpen, navigation });
  latest.current = { search, dialogOpen, navigation };
  /** The last search this box navigated to: its mark and its address. */
  const own = useRef<{ mark: number; href: string } | null>(null);
  useEffect(() => () => clearTimeout(timer.current), []);
  // The address changed (Back, a link, a dialog's address superseding a search on its way): the
  // box shows its text, unless the person is typing.
  // biome-ignore lint/correctness/useExhaustiveDependencies: location.key marks every landing, even one that keeps the text.
  useEffect(() => {
    const box = input.current;
    if (box && document.activeElement !== box && box.value !== search) box.value = search;
  }, [search, location.key]);

  const isOwn = (target: Location | undefined) =>
    own.current !== null && (target?.state as SearchState | null)?.teamSearch === own.current.mark;

  function follow(text: string) {
    clearTimeout(timer.current);
    const typedOn = currentHref();
    timer.current = setTimeout(() => {
      const { dialogOpen: dialogShown, navigation: pending, search: shown } = latest.current;
      const here = currentHref();
      const moved = here !== typedOn && here !== own.current?.href;
      const otherNavigation = pending.state !== "idle" && !isOwn(pending.location);
      if (moved || dialogShown || otherNavigation) {
        // The person went on (a dialog, a page of the list, Back): that stands, not this search.
        if (input.current) input.current.value = shown;
        return;
      }
      const query = text.trim() ? `?${new URLSearchParams({ search: text })}` : "";
      const target = `${MY_TEAM_PATH}${query}`;
      own.current = { mark: ++searchCount, href: target };
      const state: SearchState = { teamSearch: own.current.mark };
      void navigate(target, { replace: true, preventScrollReset: true, state });
    }, DEBOUNCE_MS);
  }

  return (
    <Form method="get" action={MY_TEAM_PATH} role="search" className="flex w-full gap-2 sm:max-w-md">
      <label htmlFor="team-search" className="sr-only">
        {SEARCH_LABEL}
      </label>
      <input
        ref={input}
        id="team-search"
        type="search"
        name="search"
        defaultValue={search}
        placeholder={SEARCH_LABEL}
        maxLength={256}
        autoComplete="off"
        onChange={hydrated ? (event) => follow(event.currentTarget.value) : undefined}
        onKeyDown={(event) => {
          // With JavaScript the list already follows the text; Enter does not reload it.
          if (hydrated && event.key === "Enter") event.preventDefault();
        }}
        className="block min-h-11 w-full min-w-0 flex-1 rounded-md border border-slate-400 bg-white px-3 py-2 text-base text-slate-900 shadow-sm placeholder:text-slate-500 focus-visible:border-brand-700 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-brand-700"
      />
      {hydrated ? null : (
        <button
          type="submit"
          className="inline-flex min-h-11 items-center justify-center rounded-md border border-brand-700 bg-white px-4 font-semibold text-brand-700 hover:bg-brand-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
        >
          Search
        </button>
      )}
    </Form>
  );
}
