// The live password checklist of docs/requirements.md §S5 (minLength 8, special character, number, capital,
// match), shown once a password is typed (JavaScript). Without JavaScript the server lists the
// unmet rules under the field instead (PasswordField in auth-fields.tsx).
import { type ComponentProps, useEffect, useRef, useState } from "react";
import {
  PASSWORD_HTML_PATTERN,
  PASSWORD_MESSAGES,
  PASSWORD_RULES,
  passwordChecklist,
} from "../../modules/identity/password.ts";
import { PASSWORD_HINT, PASSWORD_PATTERN_TITLE } from "../lib/forms.ts";
import { AuthField } from "./auth-fields.tsx";

function Mark({ met }: { met: boolean }) {
  return met ? (
    <svg viewBox="0 0 20 20" className="size-5 shrink-0 text-emerald-700" fill="currentColor" aria-hidden="true">
      <path
        fillRule="evenodd"
        d="M10 18a8 8 0 1 0 0-16 8 8 0 0 0 0 16Zm3.857-9.809a.75.75 0 0 0-1.214-.882l-3.483 4.79-1.88-1.88a.75.75 0 1 0-1.06 1.061l2.5 2.5a.75.75 0 0 0 1.137-.089l4-5.5Z"
        clipRule="evenodd"
      />
    </svg>
  ) : (
    <svg viewBox="0 0 20 20" className="size-5 shrink-0 text-slate-500" fill="none" aria-hidden="true">
      <circle cx="10" cy="10" r="7.25" stroke="currentColor" strokeWidth="1.5" />
    </svg>
  );
}

function Item({ met, label }: { met: boolean; label: string }) {
  return (
    <li className={`flex items-center gap-2 ${met ? "text-emerald-800" : "text-slate-700"}`} data-met={met}>
      <Mark met={met} />
      <span>
        {label}
        <span className="sr-only">{met ? " (done)" : " (not yet)"}</span>
      </span>
    </li>
  );
}

/**
 * The checklist for `password` and its `confirmation`. `id` lets the password input point at it
 * with aria-describedby.
 */
export function PasswordChecklist({
  id,
  password,
  confirmation,
}: {
  id: string;
  password: string;
  confirmation: string;
}) {
  const met = passwordChecklist(password);
  const matches = confirmation !== "" && confirmation === password;
  return (
    <div className="rounded-md border border-slate-200 bg-slate-50 px-4 py-3">
      <p id={`${id}-title`} className="text-sm font-semibold text-slate-800">
        Your password needs
      </p>
      <ul id={id} aria-labelledby={`${id}-title`} className="mt-2 grid gap-1.5 text-sm sm:grid-cols-2">
        {PASSWORD_RULES.map((rule) => (
          <Item key={rule.id} met={met[rule.id]} label={rule.label} />
        ))}
        <Item met={matches} label={PASSWORD_MESSAGES.matchLabel} />
      </ul>
    </div>
  );
}

/**
 * The two password inputs' current values, for the live checklist and the submit button. Reads
 * the inputs once after hydration too (typed before the JavaScript arrived, or restored by the
 * browser).
 */
export function usePasswordPair(formId: string) {
  const [password, setPassword] = useState("");
  const [confirmation, setConfirmation] = useState("");
  const read = useRef(false);
  useEffect(() => {
    if (read.current) return;
    read.current = true;
    const form = document.getElementById(formId);
    if (!(form instanceof HTMLFormElement)) return;
    const value = (name: string) => {
      const input = form.elements.namedItem(name);
      return input instanceof HTMLInputElement ? input.value : "";
    };
    setPassword(value("password"));
    setConfirmation(value("confirmPassword"));
  }, [formId]);
  return { password, confirmation, setPassword, setConfirmation };
}

type Field = ComponentProps<typeof AuthField>["field"];

/**
 * A new password and its confirmation, with docs/requirements.md §S5's hint until something is typed and the live
 * checklist after (`showChecklist`: hydrated and a password typed): sign-up, reset, an accepted
 * invitation and a password change all ask for one this way.
 */
export function NewPasswordFields({
  fields,
  labels,
  pair,
  checklistId,
  showChecklist,
  focus,
  fieldClassName,
}: {
  fields: { password: Field; confirmation: Field };
  labels: { password: string; confirmation: string };
  pair: Pick<ReturnType<typeof usePasswordPair>, "password" | "confirmation" | "setPassword" | "setConfirmation">;
  checklistId: string;
  showChecklist: boolean;
  /** The field the first error is in, to focus it. */
  focus?: "password" | "confirmation";
  fieldClassName?: string;
}) {
  return (
    <>
      <AuthField
        field={fields.password}
        label={labels.password}
        type="password"
        autoComplete="new-password"
        autoFocus={focus === "password"}
        pattern={PASSWORD_HTML_PATTERN}
        title={PASSWORD_PATTERN_TITLE}
        hint={showChecklist ? undefined : PASSWORD_HINT}
        describedBy={showChecklist ? checklistId : undefined}
        onValue={pair.setPassword}
        className={fieldClassName}
      />
      <AuthField
        field={fields.confirmation}
        label={labels.confirmation}
        type="password"
        autoComplete="new-password"
        autoFocus={focus === "confirmation"}
        onValue={pair.setConfirmation}
        className={fieldClassName}
      />
      {showChecklist ? (
        <PasswordChecklist id={checklistId} password={pair.password} confirmation={pair.confirmation} />
      ) : null}
    </>
  );
}

/** Which of the pair holds the first error (`first`, a field name), for NewPasswordFields' `focus`. */
export function passwordFocus(
  first: string | undefined,
  passwordName = "password",
  confirmationName = "confirmPassword",
): "password" | "confirmation" | undefined {
  if (first === passwordName) return "password";
  return first === confirmationName ? "confirmation" : undefined;
}
