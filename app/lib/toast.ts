// Toasts (docs/requirements.md §S2, §S9): one at a time, default / destructive / success, 5 seconds, dismissible.
export type ToastType = "default" | "destructive" | "success";

export interface Toast {
  id: string;
  type: ToastType;
  title: string;
  description?: string;
}

export const TOAST_DURATION_MS = 5000;
