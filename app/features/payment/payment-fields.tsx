// The simulated card's fields (docs/requirements.md §D6; §D8 labels: Card number, Expiry (MM/YY),
// CVC, Name on card), as every card form shows them: the Review page, an approved order's page and
// a balance top-up. Each is the shared TextField; `required` and the name's length come from the
// form's constraint (formConstraint of its modules/orders/card-form.ts schema).
import type { FieldMetadata } from "@conform-to/react";
import { TextField } from "../../ui/form-fields.tsx";
import { CARD_LABELS } from "./payment.ts";

/** The simulated card's four fields; nothing typed here is spell-checked. */
export function CardInputs({
  fields,
}: {
  fields: Record<"cardNumber" | "expiry" | "cvc" | "nameOnCard", FieldMetadata<unknown>>;
}) {
  return (
    <>
      <TextField
        field={fields.cardNumber}
        label={CARD_LABELS.cardNumber}
        placeholder="1234 1234 1234 1234"
        autoComplete="cc-number"
        inputMode="numeric"
        maxLength={23}
        spellCheck={false}
      />
      <div className="grid grid-cols-2 gap-4">
        <TextField
          field={fields.expiry}
          label={CARD_LABELS.expiry}
          placeholder="MM/YY"
          autoComplete="cc-exp"
          inputMode="numeric"
          maxLength={7}
          spellCheck={false}
        />
        <TextField
          field={fields.cvc}
          label={CARD_LABELS.cvc}
          placeholder="123"
          autoComplete="cc-csc"
          inputMode="numeric"
          maxLength={4}
          spellCheck={false}
        />
      </div>
      <TextField field={fields.nameOnCard} label={CARD_LABELS.nameOnCard} autoComplete="cc-name" spellCheck={false} />
    </>
  );
}
