// The building blocks of every form (see app/lib/forms.ts for the conventions): labelled
// fields wired to conform, error texts, the form's alert banner and the busy submit button.
import { type FieldMetadata, getInputProps, getSelectProps, getTextareaProps } from "@conform-to/react";
import { type ComponentProps, type FormEvent, type ReactNode, useEffect, useRef, useState } from "react";
import { useNavigation, useRouteLoaderData, useSubmit } from "react-router";
import { SELECT_PLACEHOLDER } from "../lib/forms.ts";
import { useCsrfToken } from "../lib/use-csrf-token.ts";
import type { loader as rootLoader } from "../root.tsx";

const controlClass =
  "block w-full min-h-11 rounded-md border border-slate-400 bg-white px-3 py-2 text-base text-slate-900 shadow-sm placeholder:text-slate-500 focus-visible:border-brand-700 focus-visible:outline-2 focus-visible:outline-offset-0 focus-visible:outline-brand-700 aria-invalid:border-red-700";
const labelClass = "mb-1 block text-sm font-semibold text-slate-800";

/** The messages of one field, referenced by the control's aria-describedby. */
export function FieldError({ id, errors }: { id: string; errors?: string[] }) {
  return (
    <p id={id} className="mt-1 text-sm font-medium text-red-700 empty:hidden">
      {errors?.length ? errors.join(" ") : null}
    </p>
  );
}

/** A signed-in visitor's CSRF token as a hidden input; nothing on a page for visitors without a session. */
export function CsrfInput() {
  const token = useCsrfToken();
  return token ? <input type="hidden" name="csrf" value={token} /> : null;
}

/**
 * What every form post carries besides its fields (app/lib/security.server.ts checks both guards):
 * a signed-in visitor's CSRF token, the honeypot as hidden inputs (no ids, so any number of forms fit on one page)
 * and, for an action that serves several forms, the form's intent.
 */
export function HiddenFormInputs({ intent }: { intent?: string }) {
  return (
    <>
      <CsrfInput />
      <HiddenHoneypot />
      {intent === undefined ? null : <input type="hidden" name="intent" value={intent} />}
    </>
  );
}

interface TextFieldProps {
  field: FieldMetadata<unknown>;
  label: string;
  type?: "text" | "email" | "date" | "datetime-local";
  autoComplete?: string;
  className?: string;
  /** Helper text under the label, read with the field (aria-describedby). */
  help?: string;
  placeholder?: string;
  /** The on-screen keyboard to offer ("numeric" for a card number, its expiry and CVC). */
  inputMode?: "numeric" | "text";
  /** A cap tighter than the constraint's: what the input takes as typed (a card number with its spaces). */
  maxLength?: number;
  /** false for entries no dictionary knows (card details, names). */
  spellCheck?: boolean;
}

/**
 * A labelled text, email or date-time input; `required`, `maxLength`, `min` and `max` come from
 * the form's constraint unless `maxLength` is given.
 */
export function TextField({
  field,
  label,
  type = "text",
  autoComplete,
  className,
  help,
  placeholder,
  inputMode,
  maxLength,
  spellCheck,
}: TextFieldProps) {
  const { key, ...props } = getInputProps(field, { type });
  const helpId = `${field.id}-help`;
  return (
    <div className={className}>
      <LabelWithHelp htmlFor={field.id} label={label} help={help} helpId={helpId} />
      <input
        key={key}
        {...props}
        aria-describedby={[help ? helpId : undefined, props["aria-describedby"]].filter(Boolean).join(" ") || undefined}
        placeholder={placeholder}
        autoComplete={autoComplete}
        inputMode={inputMode}
        maxLength={maxLength ?? props.maxLength}
        spellCheck={spellCheck}
        className={controlClass}
      />
      <FieldError id={field.errorId} errors={field.errors} />
    </div>
  );
}

/** A field's label, and its help line under it when there is one (referenced by aria-describedby). */
function LabelWithHelp({
  htmlFor,
  label,
  help,
  helpId,
}: {
  htmlFor: string;
  label: ReactNode;
  help?: ReactNode;
  helpId: string;
}) {
  return (
    <>
      <label htmlFor={htmlFor} className={labelClass}>
        {label}
      </label>
      {help ? (
        <p id={helpId} className="mb-1 text-sm text-slate-600">
          {help}
        </p>
      ) : null}
    </>
  );
}

/**
 * A labelled native select whose first option is blank (docs/requirements.md §S8 dropdown
 * defaults: 'Select...'); `placeholder` names a blank that means "none" in an optional field.
 */
export function SelectField({
  field,
  label,
  options,
  placeholder = SELECT_PLACEHOLDER,
  className,
}: {
  field: FieldMetadata<unknown>;
  label: string;
  options: readonly { value: string; label: string }[];
  placeholder?: string;
  className?: string;
}) {
  const { key, ...props } = getSelectProps(field);
  return (
    <div className={className}>
      <label htmlFor={field.id} className={labelClass}>
        {label}
      </label>
      <select key={key} {...props} className={`${controlClass} cursor-pointer`}>
        <option value="">{placeholder}</option>
        {options.map((option) => (
          <option key={option.value} value={option.value}>
            {option.label}
          </option>
        ))}
      </select>
      <FieldError id={field.errorId} errors={field.errors} />
    </div>
  );
}

/** A labelled textarea with a live character count when it has a maximum length. */
export function TextAreaField({
  field,
  label,
  rows = 5,
  className,
  help,
}: {
  field: FieldMetadata<unknown>;
  label: string;
  rows?: number;
  className?: string;
  /** Helper text under the label, read with the field (aria-describedby). */
  help?: string;
}) {
  const { key, ...props } = getTextareaProps(field);
  const countId = `${field.id}-count`;
  const helpId = `${field.id}-help`;
  const [length, setLength] = useState(typeof field.initialValue === "string" ? field.initialValue.length : 0);
  return (
    <div className={className}>
      <LabelWithHelp htmlFor={field.id} label={label} help={help} helpId={helpId} />
      <textarea
        key={key}
        {...props}
        aria-describedby={
          [help ? helpId : undefined, props["aria-describedby"], field.maxLength ? countId : undefined]
            .filter(Boolean)
            .join(" ") || undefined
        }
        rows={rows}
        onChange={(event) => setLength(event.currentTarget.value.length)}
        className={`${controlClass} resize-y`}
      />
      <div className="flex items-start justify-between gap-4">
        <FieldError id={field.errorId} errors={field.errors} />
        {field.maxLength ? (
          <p id={countId} className="ml-auto mt-1 shrink-0 text-sm text-slate-600">
            {length} / {field.maxLength}
          </p>
        ) : null}
      </div>
    </div>
  );
}

/** A checkbox whose label (children) may hold links; the whole row is a ≥ 44 px target. */
export function CheckboxField({
  field,
  children,
  onCheckedChange,
  className,
}: {
  field: FieldMetadata<unknown>;
  children: ReactNode;
  onCheckedChange?: (checked: boolean) => void;
  className?: string;
}) {
  const { key, ...props } = getInputProps(field, { type: "checkbox" });
  return (
    <div className={className}>
      <div className="flex min-h-11 items-start gap-3">
        <input
          key={key}
          {...props}
          onChange={(event) => onCheckedChange?.(event.currentTarget.checked)}
          className="mt-2.5 size-5 shrink-0 cursor-pointer rounded border-slate-500 accent-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
        />
        <label htmlFor={field.id} className="cursor-pointer py-2 text-sm text-slate-800">
          {children}
        </label>
      </div>
      <FieldError id={field.errorId} errors={field.errors} />
    </div>
  );
}

/**
 * The form's banner for messages that belong to no field (the API's detail, docs/requirements.md §S8), in a
 * role="alert" region. When `focusKey` changes and `focus` is true, it takes the focus.
 */
export function FormAlert({ messages, focusKey, focus }: { messages: string[]; focusKey?: unknown; focus?: boolean }) {
  const ref = useRef<HTMLDivElement>(null);
  const shouldFocus = Boolean(focus) && messages.length > 0;
  // Once per new reply (focusKey), as soon as its messages are on screen.
  // biome-ignore lint/correctness/useExhaustiveDependencies: focusKey is the trigger, not a value read
  useEffect(() => {
    if (shouldFocus) ref.current?.focus();
  }, [focusKey, shouldFocus]);
  return (
    <div
      ref={ref}
      role="alert"
      tabIndex={-1}
      className="rounded-md border border-red-700 bg-red-50 px-4 py-3 text-sm font-medium text-red-800 outline-none focus-visible:ring-2 focus-visible:ring-red-700 empty:hidden"
    >
      {messages.length ? messages.map((message) => <p key={message}>{message}</p>) : null}
    </div>
  );
}

function Spinner() {
  return (
    <svg className="size-5 animate-spin" viewBox="0 0 24 24" fill="none" aria-hidden="true">
      <circle cx="12" cy="12" r="10" stroke="currentColor" strokeWidth="4" className="opacity-25" />
      <path d="M22 12a10 10 0 0 0-10-10" stroke="currentColor" strokeWidth="4" strokeLinecap="round" />
    </svg>
  );
}

/**
 * The form's submit button. Busy (JS only): spinner + 'Please wait', disabled, aria-busy.
 * Without JavaScript it is a plain submit button.
 */
export function SubmitButton({
  children,
  busy = false,
  disabled = false,
  className = "",
  name,
  value,
  form,
  formNoValidate,
}: {
  children: ReactNode;
  busy?: boolean;
  disabled?: boolean;
  className?: string;
  /** A button that names its intent (a form with two submit buttons posts the one pressed). */
  name?: string;
  value?: string;
  /** The id of the form it submits, when it sits outside it. */
  form?: string;
  formNoValidate?: boolean;
}) {
  return (
    <button
      type="submit"
      name={name}
      value={value}
      form={form}
      formNoValidate={formNoValidate}
      disabled={busy || disabled}
      aria-busy={busy || undefined}
      className={`inline-flex min-h-11 items-center justify-center gap-2 rounded-md bg-brand-700 px-6 py-2 font-semibold text-white shadow-sm transition-transform hover:bg-brand-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700 active:scale-105 disabled:cursor-not-allowed disabled:bg-slate-400 disabled:text-slate-900 ${className}`}
    >
      {busy ? (
        <>
          <Spinner />
          Please wait
        </>
      ) : (
        children
      )}
    </button>
  );
}

/** Something that may need to add data (e.g. a captcha token) to a post before it is sent. */
export interface SubmitPreparer {
  /** When false the post goes out as a plain <Form> submission. */
  needsPreparation: boolean;
  prepare(formData: FormData): Promise<{ ok: true } | { ok: false; error?: string }>;
}

/**
 * conform's `onSubmit` for a route form, and its busy state. When `preparer` needs to add data
 * first (the v3 captcha token), the submission is held, prepared, then sent with useSubmit;
 * otherwise React Router's <Form> sends it as usual.
 */
export function useFormSubmit(action: string, preparer?: SubmitPreparer) {
  const submit = useSubmit();
  const navigation = useNavigation();
  const [preparing, setPreparing] = useState(false);
  const [clientError, setClientError] = useState<string>();

  const navigatingFromThisForm =
    navigation.state !== "idle" &&
    navigation.formMethod?.toUpperCase() === "POST" &&
    navigation.formAction?.split(/[?#]/)[0] === action.split(/[?#]/)[0];

  function onSubmit(event: FormEvent<HTMLFormElement>, context: { formData: FormData }) {
    setClientError(undefined);
    if (!preparer?.needsPreparation) return;
    event.preventDefault();
    if (preparing) return;
    setPreparing(true);
    void preparer.prepare(context.formData).then((outcome) => {
      setPreparing(false);
      if (outcome.ok) {
        void submit(context.formData, { method: "post", action, preventScrollReset: true });
      } else if (outcome.error) {
        setClientError(outcome.error);
      }
    });
  }

  return { onSubmit, busy: preparing || navigatingFromThisForm, clientError };
}

/**
 * A form's thank-you state (role="status"). Its heading takes the focus when it appears, so a
 * keyboard or screen-reader user lands on the result after the post/redirect/get.
 */
export function FormSuccess({
  title,
  children,
  level = 2,
  className = "",
}: {
  title: string;
  children?: ReactNode;
  level?: 2 | 3;
  className?: string;
}) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  const Heading = level === 2 ? "h2" : "h3";
  return (
    <div role="status" className={`space-y-3 ${className}`}>
      <Heading ref={ref} tabIndex={-1} className="text-2xl font-bold text-brand-800 outline-none md:text-3xl">
        {title}
      </Heading>
      {children}
    </div>
  );
}

/**
 * The honeypot fields as hidden inputs, for a one-button form or one beside a form that already
 * holds the visible-to-bots trap field (<HoneypotInputs />, app/ui/honeypot-inputs.tsx).
 */
export function HiddenHoneypot() {
  const honeypot = useRouteLoaderData<typeof rootLoader>("root")?.honeypot;
  if (!honeypot) return null;
  return (
    <>
      <input type="hidden" name={honeypot.nameFieldName} value="" />
      {honeypot.validFromFieldName && honeypot.encryptedValidFrom ? (
        <input type="hidden" name={honeypot.validFromFieldName} value={honeypot.encryptedValidFrom} />
      ) : null}
    </>
  );
}

/**
 * A form that posts to the page's own address, query included, without writing that address into
 * the page: a plain `<form method="post">` has no action attribute (HTML posts it to the document's
 * URL), and once hydrated the router submits it to the current location, which is what React
 * Router does for a form without an action. For pages whose address carries a secret (the verify
 * and reset links): the page then holds nothing of it.
 */
export function OwnAddressForm({
  onSubmit,
  preventScrollReset = true,
  ...props
}: Omit<ComponentProps<"form">, "action" | "method"> & { preventScrollReset?: boolean }) {
  const submit = useSubmit();
  return (
    <form
      {...props}
      method="post"
      onSubmit={(event) => {
        onSubmit?.(event);
        if (event.defaultPrevented) return;
        event.preventDefault();
        // The button that submitted it (its name and value go with the form), else the form.
        const submitter = (event.nativeEvent as SubmitEvent).submitter;
        void submit(submitter instanceof HTMLButtonElement ? submitter : event.currentTarget, {
          method: "post",
          preventScrollReset,
        });
      }}
    />
  );
}
