// The one renderer every email goes through (ADR 0031): a template hands it the content (a
// heading, paragraphs, an optional quote, a details table, a button) and gets back the HTML part,
// laid out with React Email's table-based components so Outlook's Word engine renders it, and the
// plain-text part, written from the same content. Both parts are required (docs/requirements.md §D6).
//
// Nothing here builds HTML from strings: React escapes every text and attribute, so whatever a
// person typed (a name, a company, a message) reaches the HTML as text (templates.test.ts).
import { Body } from "@react-email/body";
import { Button } from "@react-email/button";
import { Container } from "@react-email/container";
import { Head } from "@react-email/head";
import { Heading } from "@react-email/heading";
import { Html } from "@react-email/html";
import { Section } from "@react-email/section";
import { Text } from "@react-email/text";
import { type CSSProperties, Fragment, createElement as h, type ReactNode } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import type { EmailContent } from "../port.ts";

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

/** What a template returns: the message, ready for the outbox (outbox.ts keeps subject, html, text). */
export type RenderedEmail = EmailContent;

const FOOTER = "Reward Portal · Licensed exclusively to a marketing company.";
const BRAND = "#6d28d9";
// On every text element, not only the body: Outlook's Word engine does not carry a font into
// nested tables and falls back to Times New Roman.
const FONT = "Arial,Helvetica,sans-serif";

/** A template's message: its address and subject, and both parts rendered from `body`. */
export function email(to: string, subject: string, body: EmailBody): RenderedEmail {
  return { to, subject, ...renderEmail(body) };
}

export function renderEmail(body: EmailBody): { html: string; text: string } {
  return { html: renderHtml(body), text: renderText(body) };
}

function renderHtml(body: EmailBody): string {
  const text = (children: ReactNode, style?: CSSProperties) =>
    h(
      Text,
      { style: { fontFamily: FONT, fontSize: "16px", lineHeight: "24px", margin: "0 0 16px", ...style } },
      children,
    );
  // A message keeps its line breaks as <br>: Outlook ignores white-space:pre-wrap.
  const lines = (value: string) =>
    h(
      Fragment,
      null,
      value.split("\n").flatMap((line, i) => (i === 0 ? [line] : [h("br", { key: i }), line])),
    );

  const [first, ...later] = body.paragraphs.map((p) => text(p));
  const quote = body.quote
    ? [
        text(body.quote.label, { fontWeight: 600, margin: "0 0 4px" }),
        h(
          Section,
          { style: { borderLeft: `4px solid ${BRAND}`, backgroundColor: "#f5f3ff", margin: "0 0 16px" } },
          // A quotation is a blockquote (readers and screen readers say so; Outlook keeps its inline style).
          h(
            "blockquote",
            { style: { fontFamily: FONT, fontSize: "16px", lineHeight: "24px", margin: 0, padding: "8px 16px" } },
            lines(body.quote.text),
          ),
        ),
      ]
    : [];
  const details = body.details?.length
    ? h(
        "table",
        {
          role: "presentation",
          cellPadding: 6,
          cellSpacing: 0,
          border: 0,
          style: {
            borderCollapse: "collapse",
            margin: "16px 0",
            fontFamily: FONT,
            fontSize: "16px",
            lineHeight: "24px",
          },
        },
        h(
          "tbody",
          null,
          body.details.map(([label, value], i) =>
            h(
              "tr",
              { key: i },
              h(
                "th",
                { align: "left", valign: "top", style: { fontFamily: FONT, color: "#555555", fontWeight: 600 } },
                label,
              ),
              h("td", { valign: "top", style: { fontFamily: FONT } }, lines(value)),
            ),
          ),
        ),
      )
    : null;
  const action = body.action
    ? h(
        Section,
        { style: { margin: "8px 0 16px" } },
        h(
          Button,
          {
            href: body.action.url,
            style: {
              fontFamily: FONT,
              backgroundColor: BRAND,
              color: "#ffffff",
              padding: "12px 20px",
              borderRadius: "6px",
              fontSize: "16px",
              textDecoration: "none",
            },
          },
          body.action.label,
        ),
      )
    : null;

  const document = h(
    Html,
    { lang: "en-AU" },
    h(Head),
    h(
      Body,
      { style: { backgroundColor: "#ffffff", color: "#1f2937", fontFamily: FONT, margin: 0, padding: 0 } },
      h(
        Container,
        { style: { maxWidth: "600px", padding: "24px" } },
        h(
          Heading,
          { as: "h1", style: { fontFamily: FONT, fontSize: "22px", lineHeight: "30px", margin: "0 0 16px" } },
          body.heading,
        ),
        first,
        ...quote,
        ...later,
        details,
        action,
        text(FOOTER, { color: "#6b7280", fontSize: "12px", lineHeight: "18px" }),
      ),
    ),
  );
  // React's own renderToStaticMarkup, not @react-email/render's render(): that one streams each
  // message through a web stream and measured about eight times slower, which a 1,000-recipient
  // release (1,001 emails in one transaction, docs/BENCHMARKS.md) cannot afford (ADR 0031).
  // React writes self-closed <br/>; the messages have always been HTML5 (`<!doctype html>`,
  // `<br>`), which every client reads the same, and the tests and the e2e specs read them so
  // (modules/identity/identity.test.ts, modules/reward-drafts/reward-my-team.test.ts, tests/e2e/payment.spec.ts).
  // A `<br/>` can only be ours: a person's `<` reaches the HTML as `&lt;`.
  return `<!doctype html>${renderToStaticMarkup(document).replaceAll("<br/>", "<br>")}`;
}

/** The plain-text part, line for line what the messages have always said (templates.test.ts). */
function renderText(body: EmailBody): string {
  return [
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
    FOOTER,
  ].join("\n");
}
