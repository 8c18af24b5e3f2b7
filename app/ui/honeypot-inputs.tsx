// The honeypot's trap field in a form (ADR 0007): a text input a person never sees, which a bot
// that fills every field fills too; app/lib/security.server.ts refuses such a post with
// remix-utils' Honeypot. We render the inputs ourselves instead of remix-utils' HoneypotInputs,
// which writes autocomplete="nope", not a valid value (the HTML checker's test,
// tests/html/html-validity.test.ts, fails on it). Same field names and values as remix-utils'
// component, hidden by our stylesheet's `hidden` class instead of a <style> in every form.
import { useId } from "react";
import { useRouteLoaderData } from "react-router";
import type { loader as rootLoader } from "../root.tsx";

const LABEL = "Please leave this field blank";

/**
 * The honeypot's inputs as text fields hidden from people: display:none (so no one sees, tabs to
 * or hears them), aria-hidden and tabIndex -1 as well, and autocomplete off so the browser does
 * not fill them. Their ids come from useId, so several forms on one page keep them unique.
 * HiddenHoneypot (form-fields.tsx) sends the same fields as hidden inputs, for one-button forms.
 */
export function HoneypotInputs() {
  const id = useId();
  const honeypot = useRouteLoaderData<typeof rootLoader>("root")?.honeypot;
  if (!honeypot) return null;
  const { nameFieldName, validFromFieldName, encryptedValidFrom } = honeypot;
  const nameId = `${id}-name`;
  const validFromId = `${id}-valid-from`;
  return (
    <div className="hidden" aria-hidden="true">
      <label htmlFor={nameId}>{LABEL}</label>
      <input id={nameId} name={nameFieldName} type="text" defaultValue="" autoComplete="off" tabIndex={-1} />
      {validFromFieldName && encryptedValidFrom ? (
        <>
          <label htmlFor={validFromId}>{LABEL}</label>
          <input
            id={validFromId}
            name={validFromFieldName}
            type="text"
            value={encryptedValidFrom}
            readOnly
            autoComplete="off"
            tabIndex={-1}
          />
        </>
      ) : null}
    </div>
  );
}
