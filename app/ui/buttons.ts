// The portal's button looks, as class lists shared by <button>s and links styled as buttons.

const focusRing = "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";

/** The main action of a form or a step (Complete, Pay). */
export const primaryButtonClass = `inline-flex min-h-11 items-center justify-center rounded-md bg-brand-700 px-6 py-2 font-semibold text-white shadow-sm hover:bg-brand-800 disabled:bg-slate-400 ${focusRing}`;

/** A secondary action: brand outline on white (Preview, Print, Download CSV, Search, …). */
export const outlineButtonClass = `inline-flex min-h-11 items-center justify-center rounded-md border border-brand-700 bg-white px-6 py-2 font-semibold text-brand-700 hover:bg-brand-50 ${focusRing}`;

/** The same, smaller, for an action in a table row (Resend). */
export const outlineRowButtonClass = `inline-flex min-h-11 items-center justify-center rounded-md border border-brand-700 bg-white px-3 py-1 text-sm font-semibold text-brand-700 hover:bg-brand-50 ${focusRing}`;

/** A destructive action confirmed on purpose (Cancel and refund). */
export const dangerButtonClass = `inline-flex min-h-11 items-center justify-center rounded-md bg-red-700 px-6 py-2 font-semibold text-white hover:bg-red-800 ${focusRing}`;

/** A link in running text or a back link. */
export const textLinkClass = `inline-flex min-h-11 items-center gap-1 font-semibold text-brand-700 underline underline-offset-2 hover:text-brand-900 ${focusRing}`;
