// The My Team search box (SPEC §2 My Team, §4 team list, §5 team search): a plain GET form
// (?search=…) with a Search button without JavaScript; with JavaScript the list follows the
// typing (debounced, replacing the history entry). Either way a new text starts at page 1; the
// loader sends the text to the API only when longer than 2 characters.
import { useEffect, useRef } from "react";
import { Form, useNavigate } from "react-router";
import { useHydrated } from "../../lib/use-hydrated.ts";
import { MY_TEAM_PATH } from "./team.ts";

const SEARCH_LABEL = "Type Name to Search";
const DEBOUNCE_MS = 300;

export function TeamSearch({ search }: { search: string }) {
  const hydrated = useHydrated();
  const navigate = useNavigate();
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => () => clearTimeout(timer.current), []);
  // The address changed some other way (Back, a link): the box shows its text, unless the person is typing.
  useEffect(() => {
    const box = input.current;
    if (box && document.activeElement !== box && box.value !== search) box.value = search;
  }, [search]);

  function follow(text: string) {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      const query = text.trim() ? `?${new URLSearchParams({ search: text })}` : "";
      void navigate(`${MY_TEAM_PATH}${query}`, { replace: true, preventScrollReset: true });
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
