// Server-only helpers of two-factor set-up (ADR 0042): the QR code of an otpauth URI, drawn on
// the server as an SVG data URI (an <img> any browser shows, JavaScript or not; the page's CSP
// allows data: images), and the secret grouped in fours for typing into an app by hand.
import QRCode from "qrcode";

export interface TwoFactorSetupView {
  /** data:image/svg+xml;base64,… of the otpauth URI. */
  qrCode: string;
  /** The base32 secret in groups of four ("ABCD EFGH …"), as apps accept it typed. */
  secretText: string;
}

export async function twoFactorSetupView(answer: { secret: string; otpauthUri: string }): Promise<TwoFactorSetupView> {
  const svg = await QRCode.toString(answer.otpauthUri, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return {
    qrCode: `data:image/svg+xml;base64,${Buffer.from(svg).toString("base64")}`,
    secretText: answer.secret.match(/.{1,4}/g)?.join(" ") ?? answer.secret,
  };
}
