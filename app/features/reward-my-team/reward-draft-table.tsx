// The recipients table of Reward My Team (docs/requirements.md §S2: Name (hidden under 768 px), Email, Amount ($),
// Remove; 'No data to display'; docs/requirements.md §D8: each amount input is named 'Amount for <full name>').
// - With JavaScript an amount is saved when the field loses focus (or on Enter) through a fetcher
//   (update-reward); the server's conversion comes back into the field (docs/requirements.md §S5: non-numeric,
//   empty or negative → 0) and a refused value (a fraction, over 10,000) shows its message next
//   to the field.
// - Without JavaScript the amounts are the inputs of one form whose only submit button is
//   'Save amounts' (so Enter in a field saves the amounts, never removes anyone: docs/requirements.md §D8),
//   a secondary button: the page's one primary action is Review & Pay, which posts this form too
//   (its form attribute; reward-draft.ts THEN_REVIEW) and so carries the amounts as typed.
//   Each Remove button belongs to a small form of its own (the `form` attribute), rendered after
//   the table.
import { type FocusEvent, type KeyboardEvent, useEffect, useRef, useState } from "react";
import { Form, useFetcher } from "react-router";
import { useHydrated } from "../../lib/use-hydrated.ts";
import { HiddenFormInputs } from "../../ui/form-fields.tsx";
import { ColumnHeads, EmptyTableRow } from "../../ui/table.tsx";
import {
  amountLabel,
  INTENTS,
  pageHref,
  type RewardDraftRow,
  type RewardDraftView,
  THEN_REVIEW,
  VIA_FETCHER,
} from "./reward-draft.ts";
import { useDraftPost } from "./reward-draft-hooks.ts";

export const AMOUNTS_FORM_ID = "reward-amounts";
const TABLE_ID = "reward-recipients";
const removeFormId = (userId: number) => `reward-remove-${userId}`;
const removeButtonId = (userId: number) => `reward-remove-button-${userId}`;
const amountFetcherKey = (userId: number) => `reward-amount-${userId}`;
const removeFetcherKey = (userId: number) => `reward-remove-${userId}`;

/** What the action answers for a fetcher's amount save. */
export type AmountReply =
  | { ok: true; userId: number; dollars: number }
  | { ok: false; userId: number; message: string };

/** What the action answers for a 'Save amounts' post that had refused values (no JavaScript). */
export interface AmountsReply {
  values: Record<string, string>;
  errors: Record<string, string>;
}

const th = "px-2 py-3 text-left text-sm font-semibold text-slate-800 sm:px-4";
const td = "px-2 py-2 align-top text-slate-800 sm:px-4";
const amountInputClass =
  "block w-24 min-h-11 rounded-md border border-slate-400 bg-white px-3 py-2 text-right text-base tabular-nums text-slate-900 shadow-sm focus-visible:border-brand-700 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-brand-700 aria-invalid:border-red-700";
export const secondaryButtonClass =
  "inline-flex min-h-11 items-center justify-center gap-2 rounded-md border border-brand-700 bg-white px-4 py-2 font-semibold text-brand-700 hover:bg-brand-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700 disabled:cursor-not-allowed disabled:opacity-60";
const removeButtonClass =
  "inline-flex min-h-11 items-center justify-center rounded-md px-2 py-2 sm:px-3 font-semibold text-red-700 underline-offset-2 hover:bg-red-50 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-700 disabled:cursor-not-allowed disabled:opacity-60";

export function RewardDraftTable({
  view,
  amountsReply,
  pageParam,
}: {
  view: RewardDraftView;
  amountsReply?: AmountsReply;
  /** The page number to come back to after a post without JavaScript. */
  pageParam: number;
}) {
  const hydrated = useHydrated();
  // With JavaScript a removed row takes its Remove button with it: the focus goes to the next
  // row's (or the previous row's) Remove button, or to the table once it is empty.
  const focusAfterRemove = useRef<{ removed: number; target: string } | null>(null);
  useEffect(() => {
    const pending = focusAfterRemove.current;
    if (!pending || view.rows.some((row) => row.userId === pending.removed)) return;
    focusAfterRemove.current = null;
    const active = document.activeElement;
    if (active && active !== document.body) return;
    (document.getElementById(pending.target) ?? document.getElementById(TABLE_ID))?.focus();
  }, [view.rows]);
  function onRemove(index: number) {
    const row = view.rows[index];
    const next = view.rows[index + 1] ?? view.rows[index - 1];
    if (row) focusAfterRemove.current = { removed: row.userId, target: next ? removeButtonId(next.userId) : TABLE_ID };
  }
  const hasErrors = Boolean(amountsReply && Object.keys(amountsReply.errors).length > 0);
  return (
    <>
      <Form
        id={AMOUNTS_FORM_ID}
        method="post"
        // The page number in the address too: refused amounts re-render this same page (no JavaScript).
        action={pageHref(pageParam)}
        // With JavaScript each field saves itself; the form is posted as a whole only by Review & Pay
        // (THEN_REVIEW), which saves what is typed and opens the review. That post is the browser's
        // own (a document load, as without JavaScript): a client-side navigation racing the field's
        // own save on leaving it could leave the review page without its data.
        reloadDocument
        onSubmit={
          hydrated
            ? (event) => {
                const submitter = (event.nativeEvent as SubmitEvent).submitter;
                if (submitter?.getAttribute("name") !== THEN_REVIEW.name) event.preventDefault();
              }
            : undefined
        }
        aria-label="Recipient amounts"
      >
        <HiddenFormInputs intent={INTENTS.saveAmounts} />
        <input type="hidden" name="page" value={pageParam} />
        {hasErrors ? (
          <p
            role="alert"
            className="mb-3 rounded-md border border-red-700 bg-red-50 px-4 py-3 text-sm font-medium text-red-800"
          >
            Some amounts were not saved; please correct them and save again.
          </p>
        ) : null}
        <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-sm">
          <table id={TABLE_ID} tabIndex={-1} className="w-full border-collapse outline-none" aria-label="Recipients">
            <thead className="bg-slate-100">
              <ColumnHeads
                columns={[
                  ["Name", `${th} hidden md:table-cell`],
                  ["Email", th],
                  ["Amount ($)", th],
                  ["Remove", `${th} text-right`],
                ]}
              />
            </thead>
            <tbody className="divide-y divide-slate-200">
              {view.rows.length === 0 ? (
                <EmptyTableRow columns={4} />
              ) : (
                view.rows.map((row, index) => (
                  <RecipientRow
                    key={row.userId}
                    row={row}
                    hydrated={hydrated}
                    onRemove={() => onRemove(index)}
                    postedValue={amountsReply?.values[String(row.userId)]}
                    postedError={amountsReply?.errors[String(row.userId)]}
                  />
                ))
              )}
            </tbody>
          </table>
        </div>
        {!hydrated && view.rows.length > 0 ? (
          <div className="mt-3 flex justify-end">
            <button type="submit" className={secondaryButtonClass}>
              Save amounts
            </button>
          </div>
        ) : null}
      </Form>
      {view.rows.map((row) => (
        <RemoveForm key={row.userId} userId={row.userId} pageParam={pageParam} />
      ))}
    </>
  );
}

function RecipientRow({
  row,
  hydrated,
  onRemove,
  postedValue,
  postedError,
}: {
  row: RewardDraftRow;
  hydrated: boolean;
  onRemove: () => void;
  postedValue?: string;
  postedError?: string;
}) {
  const inputId = `reward-amount-${row.userId}`;
  const errorId = `${inputId}-error`;
  const fetcher = useFetcher<AmountReply>({ key: amountFetcherKey(row.userId) });
  const remover = useFetcher({ key: removeFetcherKey(row.userId) });
  const inputRef = useRef<HTMLInputElement>(null);
  /** The value last sent for this row (so an unchanged field is not sent again). */
  const sent = useRef<string>(String(row.reward));
  const [clientError, setClientError] = useState<string>();
  const post = useDraftPost();

  // The server's answer: its conversion goes back into the field (unless the person typed on
  // since), a refusal shows its message.
  useEffect(() => {
    if (fetcher.state !== "idle" || !fetcher.data) return;
    const input = inputRef.current;
    if (fetcher.data.ok) {
      setClientError(undefined);
      const shown = String(fetcher.data.dollars);
      if (input && input.value === sent.current) input.value = shown;
      sent.current = shown;
    } else {
      setClientError(fetcher.data.message);
    }
  }, [fetcher.state, fetcher.data]);

  // A change from elsewhere (Apply amount to everyone) replaces a field that is not being edited.
  useEffect(() => {
    const input = inputRef.current;
    sent.current = String(row.reward);
    if (input && document.activeElement !== input) {
      input.value = String(row.reward);
      setClientError(undefined);
    }
  }, [row.reward]);

  function save(input: HTMLInputElement) {
    const value = input.value;
    if (value === sent.current && !clientError) return;
    sent.current = value;
    void post(fetcher, { intent: INTENTS.saveAmount, userId: String(row.userId), value });
  }

  const error = hydrated ? clientError : postedError;
  const removing = remover.state !== "idle";

  return (
    <tr className={removing ? "opacity-50" : undefined}>
      <td className={`${td} hidden pt-4 break-words md:table-cell`}>{row.fullName}</td>
      <td className={`${td} pt-4`}>
        <span className="block text-sm [overflow-wrap:anywhere] sm:text-base">{row.email}</span>
        <span className="mt-0.5 block break-words text-sm text-slate-600 md:hidden">{row.fullName}</span>
      </td>
      <td className={td}>
        <label htmlFor={inputId} className="sr-only">
          {amountLabel(row.fullName)}
        </label>
        <input type="hidden" name="userId" value={row.userId} />
        <input type="hidden" name="previous" value={row.reward} />
        <input
          ref={inputRef}
          id={inputId}
          name="value"
          type="text"
          inputMode="numeric"
          autoComplete="off"
          maxLength={16}
          defaultValue={postedValue ?? String(row.reward)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? errorId : undefined}
          aria-busy={fetcher.state !== "idle" || undefined}
          onBlur={hydrated ? (event: FocusEvent<HTMLInputElement>) => save(event.currentTarget) : undefined}
          onKeyDown={
            hydrated
              ? (event: KeyboardEvent<HTMLInputElement>) => {
                  if (event.key === "Enter") {
                    event.preventDefault();
                    save(event.currentTarget);
                  }
                }
              : undefined
          }
          className={amountInputClass}
        />
        {error ? (
          <p id={errorId} className="mt-1 max-w-56 text-sm font-medium text-red-700">
            {error}
          </p>
        ) : null}
      </td>
      <td className={`${td} text-right`}>
        <button
          type="submit"
          id={removeButtonId(row.userId)}
          form={removeFormId(row.userId)}
          onClick={hydrated ? onRemove : undefined}
          disabled={removing}
          aria-label={`Remove ${row.fullName}`}
          className={removeButtonClass}
        >
          Remove
        </button>
      </td>
    </tr>
  );
}

/** The form a row's Remove button submits (delete-reward): outside the amounts form. */
function RemoveForm({ userId, pageParam }: { userId: number; pageParam: number }) {
  const hydrated = useHydrated();
  const remover = useFetcher({ key: removeFetcherKey(userId) });
  return (
    <remover.Form id={removeFormId(userId)} method="post" action={pageHref(pageParam)} hidden>
      <HiddenFormInputs intent={INTENTS.remove} />
      <input type="hidden" name="userId" value={userId} />
      <input type="hidden" name="page" value={pageParam} />
      {hydrated ? <input type="hidden" name={VIA_FETCHER.name} value={VIA_FETCHER.value} /> : null}
    </remover.Form>
  );
}
