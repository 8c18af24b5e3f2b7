// Fields and messages of the account pages (sign-up, verify, login, forgot, reset), in the
// style of form-fields.tsx, plus what those pages need beyond it: inputs that take the focus
// without JavaScript (autofocus on the first error after a server round trip), a password
// field whose server errors are a list of unmet rules, and an alert whose message may hold a
// link or a button (docs/requirements.md §S8: 'Click here to retrieve your details.', 'resend verification code').
import { type FieldMetadata, getInputProps } from "@conform-to/react";
import { type FormEvent, type ReactNode, useEffect, useRef } from "react";

export const controlClass =
  "block w-full min-h-11 rounded-md border border-slate-400 bg-white px-3 py-2 text-base text-slate-900 shadow-sm placeholder:text-slate-500 focus-visible:border-brand-700 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-brand-700 aria-invalid:border-red-700";
const labelClass = "mb-1 block text-sm font-semibold text-slate-800";

export const linkClass =
  "font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";

/** An inline link with a ≥ 44 px tall hit area that does not change the line's height. */
export const inlineTargetClass =
  "relative inline-block after:absolute after:inset-x-0 after:top-1/2 after:h-11 after:-translate-y-1/2 after:content-['']";

/** The field's messages (one paragraph, or a list when there are several). */
export function FieldErrors({ id, errors }: { id: string; errors?: string[] }) {
  if (errors && errors.length > 1) {
    return (
      <ul id={id} className="mt-1 list-disc space-y-0.5 pl-5 text-sm font-medium text-red-700">
        {errors.map((message) => (
          <li key={message}>{message}</li>
        ))}
      </ul>
    );
  }
  return (
    <p id={id} className="mt-1 text-sm font-medium text-red-700 empty:hidden">
      {errors?.length ? errors[0] : null}
    </p>
  );
}

interface AuthFieldProps {
  field: FieldMetadata<unknown>;
  label: string;
  type?: "text" | "email" | "password";
  autoComplete?: string;
  inputMode?: "text" | "email" | "numeric";
  /** Set on the first field with an error after a post: the browser focuses it without JavaScript. */
  autoFocus?: boolean;
  pattern?: string;
  title?: string;
  /** A hint under the field, referenced by aria-describedby. */
  hint?: ReactNode;
  /** Another element describing the field (e.g. the password checklist). */
  describedBy?: string;
  onValue?: (value: string) => void;
  className?: string;
}

/** A labelled input wired to conform (`required` and `maxLength` come from the form's constraint). */
export function AuthField({
  field,
  label,
  type = "text",
  autoComplete,
  inputMode,
  autoFocus,
  pattern,
  title,
  hint,
  describedBy,
  onValue,
  className,
}: AuthFieldProps) {
  const { key, ...props } = getInputProps(field, { type });
  const hintId = `${field.id}-hint`;
  const ariaDescribedBy =
    [props["aria-describedby"], hint ? hintId : undefined, describedBy].filter(Boolean).join(" ") || undefined;
  return (
    <div className={className}>
      <label htmlFor={field.id} className={labelClass}>
        {label}
      </label>
      <input
        key={key}
        {...props}
        // Passwords are never sent back by the server (hideFields): no value to restore.
        defaultValue={type === "password" ? undefined : props.defaultValue}
        aria-describedby={ariaDescribedBy}
        autoComplete={autoComplete}
        inputMode={inputMode}
        // biome-ignore lint/a11y/noAutofocus: only after a failed post (no JavaScript): focus goes to the first error
        autoFocus={autoFocus}
        pattern={pattern}
        title={title}
        onInput={onValue ? (event: FormEvent<HTMLInputElement>) => onValue(event.currentTarget.value) : undefined}
        className={controlClass}
      />
      {hint ? (
        <p id={hintId} className="mt-1 text-sm text-slate-600">
          {hint}
        </p>
      ) : null}
      <FieldErrors id={field.errorId} errors={field.errors} />
    </div>
  );
}

/** First Name and Last Name side by side, as sign-up, an invitation's acceptance and Settings ask for them. */
export function NameFields({
  fields,
  focusFirst,
}: {
  fields: { firstName: FieldMetadata<unknown>; lastName: FieldMetadata<unknown> };
  /** The field that takes the focus after a failed post (no JavaScript). */
  focusFirst?: string;
}) {
  return (
    <div className="grid gap-4 sm:grid-cols-2">
      <AuthField
        field={fields.firstName}
        label="First Name"
        autoComplete="given-name"
        autoFocus={focusFirst === "firstName"}
      />
      <AuthField
        field={fields.lastName}
        label="Last Name"
        autoComplete="family-name"
        autoFocus={focusFirst === "lastName"}
      />
    </div>
  );
}

/**
 * The banner of a form for messages that belong to no field: an error (role="alert") or a
 * confirmation (role="status"). Its children may hold links or buttons. It takes the focus
 * when `focusKey` changes and `focus` is true (JavaScript), and carries autofocus when it is
 * rendered with a message by the server (no JavaScript).
 */
export function AuthAlert({
  tone = "error",
  children,
  focusKey,
  focus,
  id,
}: {
  tone?: "error" | "success";
  children?: ReactNode;
  focusKey?: unknown;
  focus?: boolean;
  id?: string;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const hasContent = children !== undefined && children !== null && children !== false;
  const shouldFocus = Boolean(focus) && hasContent;
  // biome-ignore lint/correctness/useExhaustiveDependencies: focusKey is the trigger, not a value read
  useEffect(() => {
    if (shouldFocus) ref.current?.focus();
  }, [focusKey, shouldFocus]);
  const toneClass =
    tone === "error"
      ? "border-red-700 bg-red-50 text-red-800 focus-visible:ring-red-700"
      : "border-emerald-700 bg-emerald-50 text-emerald-900 focus-visible:ring-emerald-700";
  return (
    <div
      ref={ref}
      id={id}
      role={tone === "error" ? "alert" : "status"}
      tabIndex={-1}
      // biome-ignore lint/a11y/noAutofocus: only with a new message after a post: without JavaScript, focus goes to it
      autoFocus={shouldFocus || undefined}
      className={`rounded-md border px-4 py-3 text-sm font-medium outline-none focus-visible:ring-2 empty:hidden ${toneClass}`}
    >
      {hasContent ? children : null}
    </div>
  );
}
