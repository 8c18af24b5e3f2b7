// The look of the Settings pages that build their own forms (Managers, API keys, Webhooks, Balance): one place.

export const card = "rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6";
export const sectionHeading = "text-xl font-bold text-brand-800";
export const controlClass =
  "block min-h-11 w-full rounded-md border border-slate-400 bg-white px-3 py-2 text-base text-slate-900 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-700 aria-[invalid=true]:border-red-700";
export const labelClass = "mb-1 block font-medium text-slate-800";
/** A row's destructive action (Revoke, Remove, Delete): red outline on white. */
export const dangerButton =
  "inline-flex min-h-11 items-center justify-center rounded-md border border-red-700 bg-white px-4 font-semibold text-red-800 hover:bg-red-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-700";
/** A row's other action (Deliveries, Send test ping, Re-send): brand outline on white. */
export const secondaryButton =
  "inline-flex min-h-11 items-center justify-center rounded-md border border-brand-700 bg-white px-4 font-semibold text-brand-800 hover:bg-brand-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";
