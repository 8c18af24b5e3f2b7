// The bot check of the public forms (docs/requirements.md §S4, §S8), driven by `useSite().captcha`:
// - off (the default): hidden inputs with an empty token and isCaptchaV3=true, nothing visible;
// - on: Google's script with the CSP nonce; a v3 token for the form's action is fetched just
//   before the post; when the action answers `captcha: "v2"` (the API refused the v3 token),
//   the visible v2 checkbox replaces it, the badge hides, and submit waits until it is solved.
import { type ReactNode, useEffect, useRef, useState } from "react";
import { useRouteLoaderData } from "react-router";
import { executeV3, loadRecaptcha, renderV2, resetV2 } from "../lib/captcha.ts";
import { type FormReply, GENERIC_FORM_ERROR } from "../lib/forms.ts";
import { useHydrated } from "../lib/use-hydrated.ts";
import { type loader as rootLoader, useSite } from "../root.tsx";
import type { SubmitPreparer } from "./form-fields.tsx";

export interface CaptchaControl extends SubmitPreparer {
  /** Hidden inputs, and the visible challenge when asked for: render inside the form. */
  element: ReactNode;
  /** True while the visible challenge waits to be solved: keep the submit button disabled. */
  blocksSubmit: boolean;
}

/**
 * `action` is the v3 action name ("waitlist", "help", "login"…); `reply` is the action data of
 * the form's last post (a new reply resets a solved challenge, as docs/requirements.md §S8 asks after an error).
 */
export function useCaptcha({ action, reply }: { action: string; reply: FormReply | undefined }): CaptchaControl {
  const { captcha } = useSite();
  const nonce = useRouteLoaderData<typeof rootLoader>("root")?.nonce;
  const enabled = captcha.enabled && Boolean(captcha.v3SiteKey);
  const hydrated = useHydrated();

  // Once the server asked for the visible challenge, it stays for this form.
  const [challenge, setChallenge] = useState(false);
  if (enabled && reply?.captcha === "v2" && !challenge) setChallenge(true);

  const [v2Token, setV2Token] = useState("");
  const widget = useRef<number | undefined>(undefined);
  const container = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (enabled && captcha.v3SiteKey) loadRecaptcha(captcha.v3SiteKey, nonce).catch(() => undefined);
  }, [enabled, captcha.v3SiteKey, nonce]);

  useEffect(() => {
    const el = container.current;
    if (!challenge || !captcha.v3SiteKey || !captcha.v2SiteKey || !el) return;
    let cancelled = false;
    loadRecaptcha(captcha.v3SiteKey, nonce)
      .then(() => renderV2(el, captcha.v2SiteKey!, (token) => !cancelled && setV2Token(token)))
      .then((id) => {
        if (id !== undefined) widget.current = id;
      })
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [challenge, captcha.v3SiteKey, captcha.v2SiteKey, nonce]);

  // A new answer from the server (e.g. 'Email is already in the waitlist.') resets the challenge.
  useEffect(() => {
    if (!reply) return;
    resetV2(widget.current);
    setV2Token("");
  }, [reply]);

  const element = (
    <>
      <input type="hidden" name="isCaptchaV3" value={challenge ? "false" : "true"} />
      <input type="hidden" name="captchaToken" value={challenge ? v2Token : ""} />
      {challenge ? (
        <div className="space-y-2">
          {/* The invisible check's badge gives way to the visible challenge. */}
          <style>{".grecaptcha-badge{visibility:hidden!important}"}</style>
          <p className="text-sm text-slate-700">
            {hydrated
              ? "Please confirm you are not a robot, then submit again."
              : "Please turn on JavaScript to complete the verification, then submit again."}
          </p>
          <div ref={container} className="min-h-[78px] max-w-full overflow-x-auto" />
        </div>
      ) : null}
    </>
  );

  return {
    element,
    blocksSubmit: challenge && !v2Token,
    needsPreparation: enabled && !challenge,
    async prepare(formData) {
      const result = await executeV3(captcha.v3SiteKey ?? "", action);
      if (!result.ok) return result.reason === "not-ready" ? { ok: false } : { ok: false, error: GENERIC_FORM_ERROR };
      formData.set("captchaToken", result.token);
      formData.set("isCaptchaV3", "true");
      return { ok: true };
    },
  };
}
