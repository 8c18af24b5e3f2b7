// The dashboard's company balance (ADR 0043 §3–4): every manager sees what the prepaid balance holds, since every manager may pay a
// reward list from it on Review & Pay; the statement is in Settings → Balance. Topping up stays an
// Owner's (the API's canTopUp, ADR 0022 §2), so only an Owner is offered it.
import { href, Link } from "react-router";
import { formatDollars } from "../../../core/money.ts";
import { outlineButtonClass, textLinkClass } from "../../ui/buttons.ts";

export interface DashboardBalance {
  balanceCents: number;
  canTopUp: boolean;
}

export function CompanyBalance({ balance }: { balance: DashboardBalance }) {
  const page = href("/portal/settings/balance");
  return (
    <section
      aria-labelledby="company-balance-heading"
      className="flex flex-wrap items-center justify-between gap-4 rounded-lg border border-slate-200 bg-white p-4 shadow-sm sm:p-6"
    >
      <div>
        <h2 id="company-balance-heading" className="text-sm font-semibold text-slate-700">
          Company balance
        </h2>
        <p className="mt-1 text-2xl font-bold tabular-nums text-slate-900" data-testid="company-balance">
          {formatDollars(balance.balanceCents)}
        </p>
        <p className="mt-1 text-sm text-slate-600">Pay for rewards from it on the Review &amp; Pay page.</p>
      </div>
      <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
        {balance.canTopUp ? (
          <Link to={page} className={outlineButtonClass}>
            Top up
          </Link>
        ) : null}
        <Link to={page} className={textLinkClass}>
          View the statement
        </Link>
      </div>
    </section>
  );
}
