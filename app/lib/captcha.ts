// Browser side of reCAPTCHA (docs/requirements.md §S4): one script from Google (loaded once, with the page's
// CSP nonce), a v3 token per submit, and the visible v2 checkbox when the server asks for it.

interface RenderParams {
  sitekey: string;
  callback: (token: string) => void;
  "expired-callback": () => void;
  "error-callback": () => void;
}

interface Grecaptcha {
  ready(callback: () => void): void;
  execute(siteKey: string, options: { action: string }): Promise<string>;
  render(container: HTMLElement, params: RenderParams): number;
  reset(widgetId?: number): void;
}

declare global {
  interface Window {
    grecaptcha?: Grecaptcha;
  }
}

const SCRIPT_ID = "recaptcha-script";
let loading: Promise<void> | undefined;

/** Adds Google's script (render=<v3 site key>, so v3 execute and v2 render both work) once. */
export function loadRecaptcha(v3SiteKey: string, nonce?: string): Promise<void> {
  if (loading) return loading;
  loading = new Promise<void>((resolve, reject) => {
    if (document.getElementById(SCRIPT_ID)) return resolve();
    const script = document.createElement("script");
    script.id = SCRIPT_ID;
    script.src = `https://www.google.com/recaptcha/api.js?render=${encodeURIComponent(v3SiteKey)}`;
    script.async = true;
    script.defer = true;
    if (nonce) script.nonce = nonce;
    script.onload = () => resolve();
    script.onerror = () => {
      loading = undefined;
      script.remove();
      reject(new Error("reCAPTCHA script failed to load"));
    };
    document.head.appendChild(script);
  });
  return loading;
}

/** The loaded API once `ready` has fired, or undefined when it is not there yet. */
function whenReady(): Promise<Grecaptcha> | undefined {
  const api = window.grecaptcha;
  if (!api?.ready) return undefined;
  return new Promise((resolve) => api.ready(() => resolve(api)));
}

export type V3Result = { ok: true; token: string } | { ok: false; reason: "not-ready" | "error" };

/** A v3 token for the form's action ("waitlist", "help", "login", ...). */
export async function executeV3(v3SiteKey: string, action: string): Promise<V3Result> {
  const ready = whenReady();
  if (!ready) {
    // docs/requirements.md §S8: logged, nothing shown, nothing sent.
    console.log("reCAPTCHA v3 is not ready");
    return { ok: false, reason: "not-ready" };
  }
  try {
    const api = await ready;
    const token = await api.execute(v3SiteKey, { action });
    return token ? { ok: true, token } : { ok: false, reason: "error" };
  } catch {
    return { ok: false, reason: "error" };
  }
}

/** Renders the visible v2 checkbox into `container`; returns its widget id. */
export async function renderV2(
  container: HTMLElement,
  v2SiteKey: string,
  onToken: (token: string) => void,
): Promise<number | undefined> {
  const ready = whenReady();
  if (!ready) return undefined;
  const api = await ready;
  if (!container.isConnected || container.childElementCount > 0) return undefined;
  return api.render(container, {
    sitekey: v2SiteKey,
    callback: onToken,
    "expired-callback": () => onToken(""),
    "error-callback": () => onToken(""),
  });
}

export function resetV2(widgetId: number | undefined): void {
  if (widgetId === undefined) return;
  window.grecaptcha?.reset(widgetId);
}
