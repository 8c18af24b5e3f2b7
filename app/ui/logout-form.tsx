// The Logout control for the portal header and menu (docs/requirements.md §S2): a one-button POST form to
// /corporate/logout with the CSRF token and the honeypot as hidden inputs (no ids, so it can sit
// on any page beside another form). Works without JavaScript.
import type { ReactNode } from "react";
import { Form, href } from "react-router";
import { HiddenFormInputs } from "./form-fields.tsx";

export const LOGOUT_ACTION = href("/corporate/logout");

export function LogoutForm({
  className,
  buttonClassName,
  children = "Logout",
}: {
  className?: string;
  buttonClassName?: string;
  children?: ReactNode;
}) {
  return (
    <Form method="post" action={LOGOUT_ACTION} className={className}>
      <HiddenFormInputs />
      <button type="submit" className={buttonClassName}>
        {children}
      </button>
    </Form>
  );
}
