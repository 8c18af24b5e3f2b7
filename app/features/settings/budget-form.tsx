// The monthly budget form of one row on Settings › Managers and Settings › API keys (ADR 0034):
// whole dollars, blank for none (unlimited), posted with intent `budget` and the row's id. A
// plain form (works without JavaScript); a refusal shows under the field of the row that posted it.
import { Form } from "react-router";
import type { FormReply } from "../../lib/forms.ts";
import { FieldError, HiddenFormInputs } from "../../ui/form-fields.tsx";
import { controlClass, labelClass } from "./settings-styles.ts";

const secondaryButton =
  "inline-flex min-h-11 items-center justify-center rounded-md border border-slate-400 bg-white px-4 font-semibold text-slate-800 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";

export function BudgetForm({
  page,
  idName,
  id,
  whose,
  budgetCents,
  reply,
}: {
  page: string;
  /** The hidden field naming the row: managerId or apiKeyId. */
  idName: "managerId" | "apiKeyId";
  id: number;
  /** Whose budget, for the label read by screen readers and the button's name. */
  whose: string;
  budgetCents: number | null;
  reply: FormReply | undefined;
}) {
  const posted = reply?.result?.initialValue as Record<string, unknown> | undefined;
  const mine = posted?.intent === "budget" && posted[idName] === String(id);
  const errors = (mine ? reply?.result?.error?.budgetDollars : undefined) ?? undefined;
  const fieldId = `budget-${idName}-${id}`;
  return (
    <Form method="post" action={page} preventScrollReset className="flex flex-wrap items-end gap-2">
      <HiddenFormInputs intent="budget" />
      <input type="hidden" name={idName} value={id} />
      <div>
        <label htmlFor={fieldId} className={labelClass}>
          Monthly budget ($)<span className="sr-only"> of {whose}</span>
        </label>
        <input
          id={fieldId}
          name="budgetDollars"
          inputMode="numeric"
          defaultValue={budgetCents === null ? "" : String(budgetCents / 100)}
          placeholder="Unlimited"
          className={`${controlClass} w-32`}
          aria-invalid={errors?.length ? true : undefined}
          aria-describedby={errors?.length ? `${fieldId}-error` : undefined}
        />
        <FieldError id={`${fieldId}-error`} errors={errors} />
      </div>
      {/* The row's name is read after the visible words, so the accessible name starts with them (WCAG 2.5.3). */}
      <button type="submit" className={secondaryButton}>
        Save Budget<span className="sr-only"> of {whose}</span>
      </button>
    </Form>
  );
}
