// The My Team search box (docs/requirements.md §S2 My Team, §S4 team list, §S5 team search): a plain GET form
// (?search=…) with a Search button without JavaScript; with JavaScript the list follows the
// typing (debounced, replacing the history entry) and Enter searches at once. Either way a new
// text starts at page 1; the loader sends the text to the API only when longer than 2 characters.
// The debounced search never overrides what the person did after typing: it goes only from the
// address it was typed on (or the one its own last search led to), while no dialog is open and
// no other navigation is under way. Otherwise it is dropped and the box shows the address's text.
//
// Typed on a page still loading its scripts, the search must not be lost (tests/e2e/
// my-team-search-timing.spec.ts types and submits before, during and after hydration):
// - the box is uncontrolled and hydration leaves what was typed in it (React keeps an
//   uncontrolled input's value; the address-following effect skips the hydration render);
// - Enter is a real submission at every moment: the browser's GET before React has hydrated the
//   form (or while hydration is still waiting), the enhanced search once React handles it;
// - the last submission wins. A GET the browser already sent cannot be recalled by a client
//   navigation (history.pushState leaves it on its way, and its page lands later), so once one is
//   sent, later submissions are the browser's own too: a new document navigation supersedes it.
//   NATIVE_SUBMIT_WATCH, a nonced inline script that runs with the HTML, records such a GET.
import { useEffect, useRef } from "react";
import { Form, type Location, useLocation, useNavigate, useNavigation, useRouteLoaderData } from "react-router";
import { useHydrated } from "../../lib/use-hydrated.ts";
import type { loader as rootLoader } from "../../root.tsx";
import { MY_TEAM_PATH } from "./team.ts";

const SEARCH_LABEL = "Type Name to Search";
const DEBOUNCE_MS = 300;
const FORM_ID = "team-search-form";
/** The window property NATIVE_SUBMIT_WATCH sets once the browser itself has sent the form. */
const SENT_FLAG = "teamSearchSentByBrowser";

/**
 * Runs as the page's HTML is parsed, before any module: after each submission of the search form
 * has been dispatched, a submission nobody prevented (no React yet, or React still hydrating) is
 * a GET on its way, and the flag says so for as long as this document stays. A document shown
 * again from the back/forward cache has nothing on its way.
 */
const NATIVE_SUBMIT_WATCH =
  `addEventListener("submit",function(e){if(e.target.id==="${FORM_ID}")setTimeout(function(){if(!e.defaultPrevented)window.${SENT_FLAG}=true})},true);` +
  `addEventListener("pageshow",function(e){if(e.persisted)window.${SENT_FLAG}=false})`;

/** Whether this document has sent the search form as a GET of the browser's own (see above). */
function sentByBrowser(): boolean {
  return (window as unknown as Record<string, unknown>)[SENT_FLAG] === true;
}

/** What the browser's address bar holds now (the router writes it before React renders the change). */
function currentHref(): string {
  return `${window.location.pathname}${window.location.search}`;
}

/** The list's address for the search text `text`. */
function searchHref(text: string): string {
  return `${MY_TEAM_PATH}${text.trim() ? `?${new URLSearchParams({ search: text })}` : ""}`;
}

/** The mark the search's own navigations carry in their location state. */
interface SearchState {
  teamSearch?: number;
}

let searchCount = 0;

export function TeamSearch({ search, dialogOpen }: { search: string; dialogOpen: boolean }) {
  const hydrated = useHydrated();
  const nonce = useRouteLoaderData<typeof rootLoader>("root")?.nonce;
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
  /** The landing the box last showed the text of: the one rendered first (on the server, if hydrated). */
  const shown = useRef({ search, key: location.key });
  useEffect(() => () => clearTimeout(timer.current), []);
  // The address changed (Back, a link, a dialog's address superseding a search on its way): the
  // box shows its text, unless the person is typing. Not on the first landing: the box already
  // shows it, or what the person typed before the page was hydrated, which must stay.
  useEffect(() => {
    if (shown.current.search === search && shown.current.key === location.key) return;
    shown.current = { search, key: location.key };
    const box = input.current;
    if (box && document.activeElement !== box && box.value !== search) box.value = search;
  }, [search, location.key]);

  const isOwn = (target: Location | undefined) =>
    own.current !== null && (target?.state as SearchState | null)?.teamSearch === own.current.mark;

  /** Shows the list for `text`: the search's own navigation, marked as such. */
  function go(text: string, replace: boolean) {
    const target = searchHref(text);
    own.current = { mark: ++searchCount, href: target };
    const state: SearchState = { teamSearch: own.current.mark };
    void navigate(target, { replace, preventScrollReset: true, state });
  }

  function follow(text: string) {
    clearTimeout(timer.current);
    const typedOn = currentHref();
    timer.current = setTimeout(() => {
      // A GET of the browser's own is on its way: only another supersedes it.
      if (sentByBrowser()) {
        input.current?.form?.requestSubmit();
        return;
      }
      const { dialogOpen: dialogShown, navigation: pending, search: shownText } = latest.current;
      const here = currentHref();
      const moved = here !== typedOn && here !== own.current?.href;
      const otherNavigation = pending.state !== "idle" && !isOwn(pending.location);
      if (moved || dialogShown || otherNavigation) {
        // The person went on (a dialog, a page of the list, Back): that stands, not this search.
        if (input.current) input.current.value = shownText;
        return;
      }
      go(text, true);
    }, DEBOUNCE_MS);
  }

  return (
    <>
      {/* reloadDocument: React Router leaves the submission to the browser, and onSubmit below makes
          it the enhanced search unless a GET of the browser's own is already on its way. */}
      <Form
        id={FORM_ID}
        method="get"
        action={MY_TEAM_PATH}
        reloadDocument
        role="search"
        className="flex w-full gap-2 sm:max-w-md"
        onSubmit={(event) => {
          // Enter (or Search) is the person's latest word: no debounced search after it.
          clearTimeout(timer.current);
          // Left to the browser, it supersedes the GET on its way (see the head of this file).
          if (sentByBrowser()) return;
          event.preventDefault();
          const text = input.current?.value ?? "";
          // A new address is a new history entry, as the browser's GET makes; the same one is not.
          go(text, searchHref(text) === currentHref());
        }}
      >
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
          onChange={(event) => follow(event.currentTarget.value)}
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
      {/* Only in the HTML of a page load (a script React renders in the browser never runs); once
          hydrated it goes, and the listener it added stays. */}
      {hydrated ? null : (
        <script
          nonce={nonce}
          // biome-ignore lint/security/noDangerouslySetInnerHtml: our own constant script (NATIVE_SUBMIT_WATCH)
          dangerouslySetInnerHTML={{ __html: NATIVE_SUBMIT_WATCH }}
          suppressHydrationWarning
        />
      )}
    </>
  );
}
