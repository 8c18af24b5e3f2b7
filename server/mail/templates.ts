// Every email has an HTML and a plain-text part built from the same content.
export interface EmailBody {
  heading: string;
  paragraphs: string[];
  /**
   * A person's own words quoted after the first paragraph (a sender's message to recipients):
   * escaped, line breaks kept in both parts.
   */
  quote?: { label: string; text: string };
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
  const quoteHtml = body.quote
    ? `<p style="margin-bottom:4px;font-weight:600">${escapeHtml(body.quote.label)}</p>
<blockquote style="margin:0 0 16px;padding:8px 16px;border-left:4px solid #6d28d9;background:#f5f3ff">${body.quote.text
        .split("\n")
        .map(escapeHtml)
        .join("<br>")}</blockquote>`
    : "";
  const [firstParagraph, ...laterParagraphs] = body.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`);
  const html = `<!doctype html><html lang="en-AU"><body style="font-family:Arial,Helvetica,sans-serif;color:#1f2937;line-height:1.5;max-width:600px;margin:0 auto;padding:24px">
<h1 style="font-size:22px">${escapeHtml(body.heading)}</h1>
${[firstParagraph ?? "", quoteHtml, ...laterParagraphs].filter(Boolean).join("\n")}
${detailsHtml}${actionHtml}
<p style="color:#6b7280;font-size:12px">Reward Portal · Licensed exclusively to a marketing company.</p>
</body></html>`;
  const text = [
    body.heading,
    "",
    ...body.paragraphs.flatMap((p, index) =>
      index === 0 && body.quote
        ? [p, "", body.quote.label, ...body.quote.text.split("\n").map((l) => `> ${l}`.trimEnd()), ""]
        : [p, ""],
    ),
    ...(body.details ?? []).map(([k, v]) => `${k}: ${v}`),
    ...(body.details?.length ? [""] : []),
    ...(body.action ? [`${body.action.label}: ${body.action.url}`, ""] : []),
    "Reward Portal · Licensed exclusively to a marketing company.",
  ].join("\n");
  return { html, text };
}
