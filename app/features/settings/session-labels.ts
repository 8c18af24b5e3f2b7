// How the Profile page names a session: the browser and system read from its User-Agent (a
// person recognises "Firefox on Windows", not the header), and when it began, in the time zone
// the portal's customers work in. Formatted on the server, so the page reads the same before
// and after hydration whatever the browser's own zone.
import { formatDate } from "../../../core/dates.ts";

/** "Firefox on Windows"; "Unknown browser" when the header names nothing known. */
export function describeUserAgent(userAgent: string | null): string {
  const ua = userAgent ?? "";
  const browser = /Edg(e|A|iOS)?\//.test(ua)
    ? "Edge"
    : /OPR\/|Opera/.test(ua)
      ? "Opera"
      : /Firefox\/|FxiOS\//.test(ua)
        ? "Firefox"
        : /Chrome\/|CriOS\/|Chromium\//.test(ua)
          ? "Chrome"
          : /Safari\//.test(ua)
            ? "Safari"
            : null;
  const system = /iPhone|iPad|iPod/.test(ua)
    ? "iOS"
    : /Android/.test(ua)
      ? "Android"
      : /Windows/.test(ua)
        ? "Windows"
        : /Mac OS X|Macintosh/.test(ua)
          ? "macOS"
          : /CrOS/.test(ua)
            ? "ChromeOS"
            : /Linux/.test(ua)
              ? "Linux"
              : null;
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? (system ? `A browser on ${system}` : "Unknown browser");
}

/** The portal's time zone for times it shows (the portal serves Australian businesses). */

/** "24 Nov 2026, 5:48 pm AEDT". */
export function formatSessionTime(iso: string): string {
  return formatDate(iso, "dateTimeZone");
}
