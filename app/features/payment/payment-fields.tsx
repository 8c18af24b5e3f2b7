// The fields of the payment form (docs/requirements.md §D8 labels): the Reward Name (with its helper text,
// rendered in the Review page's left column but posted with the payment form through the `form`
// attribute conform sets) and the simulated card's Card number, Expiry (MM/YY), CVC, Name on card.
import { type FieldMetadata, getInputProps } from "@conform-to/react";
import { FieldError } from "../../ui/form-fields.tsx";
import { CARD_LABELS } from "./payment.ts";

// The same look as form-fields.tsx's controls.
const controlClass =
  "block w-full min-h-11 rounded-md border border-slate-400 bg-white px-3 py-2 text-base text-slate-900 shadow-sm placeholder:text-slate-500 focus-visible:border-brand-700 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-brand-700 aria-invalid:border-red-700";
const labelClass = "mb-1 block text-sm font-semibold text-slate-800";

interface PaymentFieldProps {
  field: FieldMetadata<unknown>;
  label: string;
  placeholder?: string;
  /** Helper text under the label, read with the field (aria-describedby). */
  help?: string;
  autoComplete?: string;
  inputMode?: "numeric" | "text";
  maxLength?: number;
  className?: string;
}

export function PaymentField({
  field,
  label,
  placeholder,
  help,
  autoComplete,
  inputMode,
  maxLength,
  className,
}: PaymentFieldProps) {
  const { key, ...props } = getInputProps(field, { type: "text" });
  const helpId = `${field.id}-help`;
  const describedBy = [help ? helpId : undefined, props["aria-describedby"]].filter(Boolean).join(" ") || undefined;
  return (
    <div className={className}>
      <label htmlFor={field.id} className={labelClass}>
        {label}
      </label>
      {help ? (
        <p id={helpId} className="mb-1 text-sm text-slate-600">
          {help}
        </p>
      ) : null}
      <input
        key={key}
        {...props}
        aria-describedby={describedBy}
        placeholder={placeholder}
        autoComplete={autoComplete}
        inputMode={inputMode}
        maxLength={maxLength ?? props.maxLength}
        spellCheck={false}
        className={controlClass}
      />
      <FieldError id={field.errorId} errors={field.errors} />
    </div>
  );
}

/** The simulated card's four fields, as every card form shows them (docs/requirements.md §D8 labels). */
export function CardInputs({
  fields,
}: {
  fields: Record<"cardNumber" | "expiry" | "cvc" | "nameOnCard", FieldMetadata<unknown>>;
}) {
  return (
    <>
      <PaymentField
        field={fields.cardNumber}
        label={CARD_LABELS.cardNumber}
        placeholder="1234 1234 1234 1234"
        autoComplete="cc-number"
        inputMode="numeric"
        maxLength={23}
      />
      <div className="grid grid-cols-2 gap-4">
        <PaymentField
          field={fields.expiry}
          label={CARD_LABELS.expiry}
          placeholder="MM/YY"
          autoComplete="cc-exp"
          inputMode="numeric"
          maxLength={7}
        />
        <PaymentField
          field={fields.cvc}
          label={CARD_LABELS.cvc}
          placeholder="123"
          autoComplete="cc-csc"
          inputMode="numeric"
          maxLength={4}
        />
      </div>
      <PaymentField field={fields.nameOnCard} label={CARD_LABELS.nameOnCard} autoComplete="cc-name" />
    </>
  );
}
