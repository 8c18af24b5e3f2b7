// The captcha port (docs/requirements.md §D6, §S4): a public call carries a token from the invisible
// score-based check (isCaptchaV3 true) or, after a failure, from the visible challenge.
export interface CaptchaCheck {
  token: string;
  isV3: boolean;
  /** The action the v3 token was requested for (e.g. "login", "waitlist"). */
  action: string;
  remoteIp?: string;
}

export interface Captcha {
  readonly enabled: boolean;
  /** true when the token proves a human; false sends the client to the visible challenge. */
  verify(check: CaptchaCheck): Promise<boolean>;
}

/** The default: no captcha; the honeypot and rate limits still apply. */
export const captchaOff: Captcha = {
  enabled: false,
  async verify() {
    return true;
  },
};
