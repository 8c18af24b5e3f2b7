// The search-and-add box of Reward My Team (docs/requirements.md §S2, §S5 reward search, §S9: 10 results): team
// members not yet in the draft, found by name or email, added with create-reward-search.
// - With JavaScript: a combobox whose results load through a fetcher as the person types
//   (debounced; blank text searches nothing); a result is added on click or Enter.
// - Without JavaScript: a GET search form (?q=…) whose results each carry an Add button (a POST
//   form); the page comes back with the same search so several people can be added in a row.
// - Typed while the page's scripts still load: hydration swaps the form for the combobox, which
//   takes over the text and the focus the form's box had, so the person types on and the search
//   runs (tests/e2e/reward-my-team.spec.ts "typed before the scripts load").
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { Form, useFetcher } from "react-router";
import { useHydrated } from "../../lib/use-hydrated.ts";
import { HiddenFormInputs } from "../../ui/form-fields.tsx";
import {
  INTENTS,
  NO_MATCHES_TEXT,
  REWARD_MY_TEAM_PATH,
  REWARD_SEARCH_PATH,
  type RewardSearchAnswer,
  type RewardSearchResult,
} from "./reward-draft.ts";
import { useDraftPost } from "./reward-draft-hooks.ts";

const PLACEHOLDER = "Start typing to search & add...";
/** The form's box (without JavaScript, and until hydration): the combobox reads what was typed in it. */
const FORM_INPUT_ID = "reward-search-text";
const LABEL = "Search team members to add";
const DEBOUNCE_MS = 250;

const inputClass =
  "block w-full min-h-11 rounded-md border border-slate-400 bg-white px-3 py-2 text-base text-slate-900 shadow-sm placeholder:text-slate-600 focus-visible:border-brand-700 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-brand-700";
const buttonClass =
  "inline-flex min-h-11 shrink-0 items-center justify-center rounded-md border border-brand-700 bg-white px-4 py-2 font-semibold text-brand-700 hover:bg-brand-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";

export function fullNameOf(result: Pick<RewardSearchResult, "firstName" | "lastName">): string {
  return `${result.firstName} ${result.lastName}`.trim();
}

/** The GET search (?q=…) without JavaScript: null when none was made. */
export function RewardDraftSearch({ search, page }: { search: RewardSearchAnswer | null; page: number }) {
  const hydrated = useHydrated();
  return hydrated ? <LiveSearch /> : <FormSearch search={search} page={page} />;
}

/** Without JavaScript: a GET form, then one Add form per result. */
function FormSearch({ search, page }: { search: RewardSearchAnswer | null; page: number }) {
  const inputId = FORM_INPUT_ID;
  const resultsId = useId();
  return (
    <div>
      <Form method="get" action={REWARD_MY_TEAM_PATH} role="search" aria-label="Team members" className="flex gap-2">
        <label htmlFor={inputId} className="sr-only">
          {LABEL}
        </label>
        <input
          id={inputId}
          type="search"
          name="q"
          defaultValue={search?.q ?? ""}
          placeholder={PLACEHOLDER}
          autoComplete="off"
          maxLength={100}
          className={inputClass}
        />
        {page > 1 ? <input type="hidden" name="page" value={page} /> : null}
        <button type="submit" className={buttonClass}>
          Search
        </button>
      </Form>
      {search ? (
        <section aria-labelledby={resultsId} className="mt-2 rounded-md border border-slate-200 bg-white shadow-sm">
          <h3 id={resultsId} className="border-b border-slate-200 px-3 py-2 text-sm font-semibold text-slate-800">
            {search.results.length === 0 ? NO_MATCHES_TEXT : `Results for “${search.q}”`}
          </h3>
          {search.results.length > 0 ? (
            <ul className="divide-y divide-slate-200">
              {search.results.map((result) => (
                <li key={result.id} className="flex items-center justify-between gap-3 px-3 py-2">
                  <span className="min-w-0">
                    <span className="block font-medium break-words text-slate-900">{fullNameOf(result)}</span>
                    <span className="block text-sm break-all text-slate-600">{result.email}</span>
                  </span>
                  <form method="post" action={REWARD_MY_TEAM_PATH}>
                    <HiddenFormInputs intent={INTENTS.addFromSearch} />
                    <input type="hidden" name="userId" value={result.id} />
                    <input type="hidden" name="q" value={search.q} />
                    <button type="submit" className={buttonClass} aria-label={`Add ${fullNameOf(result)}`}>
                      Add
                    </button>
                  </form>
                </li>
              ))}
            </ul>
          ) : null}
        </section>
      ) : null}
    </div>
  );
}

/**
 * What the form's box holds as hydration replaces it (it is still in the document while the
 * combobox first renders), and whether the person was typing in it. Nothing on a page reached
 * by a client navigation, where the form was never shown.
 */
function formBoxBeforeHydration(): { text: string; focused: boolean } {
  const box = typeof document === "undefined" ? null : document.getElementById(FORM_INPUT_ID);
  if (!(box instanceof HTMLInputElement)) return { text: "", focused: false };
  return { text: box.value.slice(0, 100), focused: document.activeElement === box };
}

/** With JavaScript: a combobox (ARIA 1.2 pattern) with live results. */
function LiveSearch() {
  const inputId = useId();
  const listId = useId();
  const searchFetcher = useFetcher<RewardSearchAnswer>();
  const addFetcher = useFetcher<{ ok: boolean; message?: string }>({ key: "reward-draft-add-from-search" });
  const post = useDraftPost();
  const [carried] = useState(formBoxBeforeHydration);
  const [text, setText] = useState(carried.text);
  const [open, setOpen] = useState(carried.focused);
  const [active, setActive] = useState(0);
  const [announcement, setAnnouncement] = useState("");
  const [addError, setAddError] = useState("");
  const lastAdded = useRef<string>("");
  const inputRef = useRef<HTMLInputElement>(null);

  const query = text.trim();
  const loadRef = useRef(searchFetcher.load);
  loadRef.current = searchFetcher.load;

  // Debounced search; blank text searches nothing (docs/requirements.md §S5 reward search).
  useEffect(() => {
    if (!query) return;
    const timer = setTimeout(() => {
      void loadRef.current(`${REWARD_SEARCH_PATH}?${new URLSearchParams({ q: query })}`);
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [query]);

  const answer = searchFetcher.data && searchFetcher.data.q === query ? searchFetcher.data : null;
  const fresh = answer?.results ?? null;
  const results = query ? (fresh ?? []) : [];
  const loading = Boolean(query) && (fresh === null || searchFetcher.state === "loading");

  // After an add (once per answer): say so, and refresh the results (the person now in the
  // draft drops out); a refusal (e.g. a full draft) shows its message under the box.
  const handled = useRef<unknown>(null);
  const queryRef = useRef(query);
  queryRef.current = query;
  useEffect(() => {
    const reply = addFetcher.data;
    if (addFetcher.state !== "idle" || !reply || handled.current === reply) return;
    handled.current = reply;
    if (reply.ok) {
      setAddError("");
      setAnnouncement(`${lastAdded.current} added`);
      const q = queryRef.current;
      if (q) void loadRef.current(`${REWARD_SEARCH_PATH}?${new URLSearchParams({ q })}`);
    } else {
      setAnnouncement("");
      setAddError(reply.message || "Sorry, we could not add that person.");
    }
  }, [addFetcher.state, addFetcher.data]);

  useEffect(() => {
    if (active >= results.length) setActive(0);
  }, [results.length, active]);

  // The person was typing in the form's box: the caret goes on where it was, at the end.
  useEffect(() => {
    const box = inputRef.current;
    if (!carried.focused || !box) return;
    box.focus();
    box.setSelectionRange(box.value.length, box.value.length);
  }, [carried]);

  function add(result: RewardSearchResult) {
    lastAdded.current = fullNameOf(result);
    setAnnouncement("");
    void post(addFetcher, { intent: INTENTS.addFromSearch, userId: String(result.id) });
    inputRef.current?.focus();
  }

  const expanded = open && query !== "";
  const activeResult = expanded ? results[active] : undefined;
  const optionId = (id: number) => `${listId}-option-${id}`;

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "ArrowDown") {
      event.preventDefault();
      setOpen(true);
      if (results.length) setActive((i) => (i + 1) % results.length);
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      setOpen(true);
      if (results.length) setActive((i) => (i - 1 + results.length) % results.length);
    } else if (event.key === "Enter") {
      event.preventDefault();
      if (activeResult) add(activeResult);
    } else if (event.key === "Escape") {
      if (expanded) {
        event.preventDefault();
        setOpen(false);
      } else {
        setText("");
      }
    }
  }

  let status = "";
  if (expanded) {
    if (loading && results.length === 0) status = "Searching…";
    else if (results.length === 0) status = NO_MATCHES_TEXT;
  }

  return (
    <div className="relative">
      <label htmlFor={inputId} className="sr-only">
        {LABEL}
      </label>
      <input
        ref={inputRef}
        id={inputId}
        type="text"
        role="combobox"
        aria-autocomplete="list"
        aria-expanded={expanded && results.length > 0}
        aria-controls={listId}
        aria-activedescendant={activeResult ? optionId(activeResult.id) : undefined}
        aria-busy={loading || undefined}
        value={text}
        placeholder={PLACEHOLDER}
        autoComplete="off"
        maxLength={100}
        onChange={(event) => {
          setText(event.currentTarget.value);
          setOpen(true);
          setActive(0);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onKeyDown={onKeyDown}
        className={inputClass}
      />
      <div
        id={listId}
        role="listbox"
        aria-label="Matching team members"
        hidden={!(expanded && results.length > 0)}
        className="absolute inset-x-0 top-full z-20 mt-1 max-h-80 overflow-y-auto rounded-md border border-slate-200 bg-white py-1 shadow-lg"
      >
        {results.map((result, index) => (
          // biome-ignore lint/a11y/useFocusableInteractive: the options stay unfocused; the input points at the active one (aria-activedescendant) and handles the keys, Enter included
          // biome-ignore lint/a11y/useKeyWithClickEvents: as above, Enter in the input adds the active option
          <div
            key={result.id}
            id={optionId(result.id)}
            role="option"
            aria-selected={index === active}
            // Keep the focus in the input: the click adds, the input stays ready for the next name.
            onMouseDown={(event) => event.preventDefault()}
            onMouseMove={() => setActive(index)}
            onClick={() => add(result)}
            className={`flex min-h-11 cursor-pointer flex-col justify-center px-3 py-1.5 ${index === active ? "bg-brand-50" : ""}`}
          >
            <span className="font-medium text-slate-900">{fullNameOf(result)}</span>
            <span className="text-sm break-all text-slate-600">{result.email}</span>
          </div>
        ))}
      </div>
      {status ? (
        <p className="absolute inset-x-0 top-full z-20 mt-1 rounded-md border border-slate-200 bg-white px-3 py-2 text-sm text-slate-700 shadow-lg">
          {status}
        </p>
      ) : null}
      <p role="alert" className="mt-1 text-sm font-medium text-red-700 empty:hidden">
        {addError}
      </p>
      <p role="status" className="sr-only">
        {announcement ||
          (expanded && results.length > 0 ? `${results.length} result${results.length === 1 ? "" : "s"}` : "")}
      </p>
    </div>
  );
}
