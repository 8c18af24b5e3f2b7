// The dashboard's spend picture (modules/reward-history/spend.ts): Reward Dollars released per month over the last
// 12 months as a bar chart drawn on the server (SVG: no JavaScript, readable at 360 px because
// positions are percentages and the text keeps its own size), the same figures in a table for
// screen readers, and the totals of those months.
import { formatDollars } from "../../../core/money.ts";
import { monthLabel, type SpendSummary } from "../../../modules/reward-history/spend.ts";

const CHART_HEIGHT = 200;
const TOP = 24;
const BOTTOM = 28;

function Totals({ totals }: { totals: SpendSummary["totals"] }) {
  const cards: Array<[string, string]> = [
    ["Reward Dollars released", formatDollars(totals.releasedCents)],
    ["Service fees", formatDollars(totals.serviceFeeCents)],
    ["GST", formatDollars(totals.gstCents)],
    ["Recipients reached", totals.recipientsReached.toLocaleString("en-AU")],
  ];
  return (
    <dl className="grid grid-cols-2 gap-3 lg:grid-cols-4">
      {cards.map(([label, value]) => (
        <div key={label} className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
          <dt className="text-sm text-slate-600">{label}</dt>
          <dd className="mt-1 text-xl font-bold tabular-nums text-slate-900">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

export function SpendPicture({ spend }: { spend: SpendSummary }) {
  const { months } = spend;
  const first = months[0]?.month ?? "";
  const last = months.at(-1)?.month ?? "";
  const max = Math.max(0, ...months.map((m) => m.releasedCents));
  const slot = 100 / Math.max(months.length, 1);
  const plot = CHART_HEIGHT - TOP - BOTTOM;
  const title = `Reward Dollars released per month, ${monthLabel(first)} to ${monthLabel(last)}`;
  return (
    <section aria-labelledby="spend-heading" className="space-y-4">
      <div>
        <h2 id="spend-heading" className="text-2xl font-bold text-brand-800">
          Your Reward Spend
        </h2>
        <p className="mt-1 text-slate-700">
          The last 12 months, {monthLabel(first)} to {monthLabel(last)}.
        </p>
      </div>
      <Totals totals={spend.totals} />
      <div className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
        <svg
          role="img"
          aria-labelledby="spend-chart-title"
          width="100%"
          height={CHART_HEIGHT}
          className="block overflow-visible text-brand-700"
          data-testid="spend-chart"
        >
          <title id="spend-chart-title">{title}</title>
          <line x1="0" x2="100%" y1={TOP + plot} y2={TOP + plot} stroke="#94a3b8" />
          {max > 0 ? (
            <>
              <line x1="0" x2="100%" y1={TOP} y2={TOP} stroke="#e2e8f0" strokeDasharray="4 4" />
              <text x="0" y={TOP - 8} fontSize="12" fill="#475569">
                {formatDollars(max)}
              </text>
            </>
          ) : (
            <text x="50%" y={TOP + plot / 2} fontSize="14" fill="#475569" textAnchor="middle">
              No rewards released in these months
            </text>
          )}
          {months.map((m, i) => {
            const height = max > 0 ? Math.round((m.releasedCents / max) * plot) : 0;
            return (
              <g key={m.month} data-month={m.month}>
                <title>{`${monthLabel(m.month)}: ${formatDollars(m.releasedCents)}`}</title>
                <rect
                  x={`${i * slot + slot * 0.15}%`}
                  width={`${slot * 0.7}%`}
                  y={TOP + plot - height}
                  height={height}
                  rx="2"
                  fill="currentColor"
                />
                {/* A phone shows each month's initial, a wider screen its short name. */}
                {(
                  [
                    ["sm:hidden", monthLabel(m.month, true).charAt(0)],
                    ["hidden sm:inline", monthLabel(m.month, true)],
                  ] as const
                ).map(([className, label]) => (
                  <text
                    key={className}
                    x={`${(i + 0.5) * slot}%`}
                    y={CHART_HEIGHT - 8}
                    fontSize="11"
                    fill="#334155"
                    textAnchor="middle"
                    className={className}
                  >
                    {label}
                  </text>
                ))}
              </g>
            );
          })}
        </svg>
        {/* Hidden in a box, not as the table itself: a table is never narrower than its content, so a
            hidden table would still widen the page at 360 px. */}
        <div className="sr-only">
          <table>
            <caption>{title}</caption>
            <thead>
              <tr>
                <th scope="col">Month</th>
                <th scope="col">Reward Dollars released</th>
              </tr>
            </thead>
            <tbody>
              {months.map((m) => (
                <tr key={m.month}>
                  <th scope="row">{monthLabel(m.month)}</th>
                  <td>{formatDollars(m.releasedCents)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </section>
  );
}
