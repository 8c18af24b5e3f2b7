import { data, redirect } from "react-router";
import { services } from "../../context.ts";
import type { Route } from "./+types/gift-card";

const MAX_CODE_LENGTH = 128;

/** /GiftCard/{code} sends the browser to the same page on the external voucher site. */
export function loader({ params, context }: Route.LoaderArgs) {
  const code = params.code?.trim() ?? "";
  if (!code || code.length > MAX_CODE_LENGTH) {
    throw data("The gift card code is missing or too long.", { status: 400 });
  }
  const base = services(context).config.voucherUrl.replace(/\/+$/, "");
  return redirect(`${base}/GiftCard/${encodeURIComponent(code)}`);
}

export default function GiftCard() {
  return null;
}
