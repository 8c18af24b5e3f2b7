// The dev mailbox (docs/requirements.md §D3, §D6): the outbox as the local mail adapter holds it. It exists
// only while SMTP_URL is unset, and outside demo mode only for loopback clients; otherwise the
// route answers 404.
import { data, href } from "react-router";
import { dateFormat } from "../../../core/dates.ts";
import { services } from "../../context.ts";
import type { Route } from "./+types/dev.mailbox";

export const meta: Route.MetaFunction = () => [{ title: "Dev mailbox" }, { name: "robots", content: "noindex" }];

export async function loader({ context }: Route.LoaderArgs) {
  const { devMailbox: mailbox, clientIp } = services(context);
  if (!mailbox?.isOpenTo(clientIp)) throw data("Not Found", { status: 404 });
  const messages = await mailbox.list();
  return data({ messages }, { headers: { "cache-control": "no-store", "x-robots-tag": "noindex" } });
}

function formatTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateFormat("mediumDateTimeSeconds").format(date);
}

const statusClass: Record<string, string> = {
  sent: "bg-green-100 text-green-900",
  pending: "bg-amber-100 text-amber-900",
  failed: "bg-red-100 text-red-900",
};

export default function DevMailbox({ loaderData }: Route.ComponentProps) {
  const { messages } = loaderData;
  return (
    <main id="main" className="mx-auto max-w-5xl px-4 py-8">
      <h1 className="text-3xl font-bold text-brand-800">Dev mailbox</h1>
      <p className="mt-2 text-slate-700">
        Emails the app would have sent (SMTP_URL is not set), newest first. {messages.length}{" "}
        {messages.length === 1 ? "message" : "messages"}.{" "}
        <a
          href={href("/dev/mailbox")}
          className="font-semibold text-brand-700 underline focus-visible:outline-2 focus-visible:outline-brand-700"
        >
          Refresh
        </a>
      </p>
      {messages.length === 0 ? (
        <p className="mt-8 rounded-md border border-slate-200 p-6 text-slate-700">No messages yet.</p>
      ) : (
        <ol className="mt-8 space-y-6">
          {messages.map((message) => (
            <li key={message.id}>
              <article aria-labelledby={`mail-${message.id}`} className="rounded-lg border border-slate-200 shadow-sm">
                <header className="border-b border-slate-200 bg-slate-50 px-4 py-3">
                  <h2 id={`mail-${message.id}`} className="break-words text-lg font-semibold text-slate-900">
                    {message.subject}
                  </h2>
                  <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm text-slate-700">
                    <dt className="font-semibold">To</dt>
                    <dd className="break-all">{message.to}</dd>
                    <dt className="font-semibold">Status</dt>
                    <dd>
                      <span
                        className={`rounded px-2 py-0.5 text-xs font-semibold ${statusClass[message.status] ?? "bg-slate-200 text-slate-900"}`}
                      >
                        {message.status}
                      </span>
                    </dd>
                    <dt className="font-semibold">Time</dt>
                    <dd>
                      <time dateTime={message.createdAt}>{formatTime(message.createdAt)}</time>
                    </dd>
                  </dl>
                </header>
                <pre className="overflow-x-auto whitespace-pre-wrap break-words px-4 py-3 font-sans text-sm text-slate-900">
                  {message.text}
                </pre>
                {message.html ? (
                  <details className="border-t border-slate-200">
                    <summary className="flex min-h-11 cursor-pointer items-center px-4 font-semibold text-brand-700 focus-visible:outline-2 focus-visible:-outline-offset-2 focus-visible:outline-brand-700">
                      HTML preview
                    </summary>
                    {/* sandbox without allow-scripts: the email's HTML cannot run code or reach this page. */}
                    <iframe
                      title={`HTML preview of ${message.subject}`}
                      sandbox=""
                      srcDoc={message.html}
                      loading="lazy"
                      className="h-[32rem] w-full border-0 border-t border-slate-200 bg-white"
                    />
                  </details>
                ) : null}
              </article>
            </li>
          ))}
        </ol>
      )}
    </main>
  );
}
