// Every email has an HTML and a plain-text part built from the same content.
export interface EmailBody {
  heading: string;
  paragraphs: string[];
  /** Label/value pairs shown as a small table (e.g. the fields of a contact request). */
  details?: Array<[string, string]>;
  action?: { label: string; url: string };
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] ?? ch);

export function renderEmail(body: EmailBody): { html: string; text: string } {
  const detailsHtml = body.details?.length
    ? `<table role="presentation" cellpadding="6" style="border-collapse:collapse;margin:16px 0">${body.details
        .map(
          ([k, v]) =>
            `<tr><th align="left" style="color:#555;font-weight:600;vertical-align:top">${escapeHtml(k)}</th><td style="white-space:pre-wrap">${escapeHtml(v)}</td></tr>`,
        )
        .join("")}</table>`
    : "";
  const actionHtml = body.action
    ? `<p><a href="${escapeHtml(body.action.url)}" style="display:inline-block;background:#6d28d9;color:#fff;padding:12px 20px;border-radius:6px;text-decoration:none">${escapeHtml(body.action.label)}</a></p>`
    : "";
  const html = `<!doctype html><html lang="en-AU"><body style="font-family:Arial,Helvetica,sans-serif;color:#1f2937;line-height:1.5;max-width:600px;margin:0 auto;padding:24px">
<h1 style="font-size:22px">${escapeHtml(body.heading)}</h1>
${body.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join("\n")}
${detailsHtml}${actionHtml}
<p style="color:#6b7280;font-size:12px">Reward Portal · Licensed exclusively to a marketing company.</p>
</body></html>`;
  const text = [
    body.heading,
    "",
    ...body.paragraphs.flatMap((p) => [p, ""]),
    ...(body.details ?? []).map(([k, v]) => `${k}: ${v}`),
    ...(body.details?.length ? [""] : []),
    ...(body.action ? [`${body.action.label}: ${body.action.url}`, ""] : []),
    "Reward Portal · Licensed exclusively to a marketing company.",
  ].join("\n");
  return { html, text };
}
