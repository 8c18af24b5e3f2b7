// The money rules of docs/requirements.md §D5, in integer cents. Pure code: the browser shows the same
// figures the server charges, but only the server's are ever used for a payment.

/** 1 Reward Dollar = $1 AUD = 100 cents. */
export const CENTS_PER_REWARD_DOLLAR = 100;
/** A recipient's amount is a whole number of Reward Dollars from 0 to 10,000. */
export const MAX_REWARD_DOLLARS = 10_000;
/**
 * Every order line, whatever made it (a draft, a CSV, an API order, an automation), pays its
 * member from $1 to $10,000 (docs/rules.md "What an order line may be"; modules/orders/order-lines.server.ts).
 */
export const MIN_LINE_CENTS = 1 * CENTS_PER_REWARD_DOLLAR;
export const MAX_LINE_CENTS = MAX_REWARD_DOLLARS * CENTS_PER_REWARD_DOLLAR;

/** Whether `cents` is an amount one order line may pay: whole cents from $1 to $10,000. */
export function isLineAmount(cents: number): boolean {
  return Number.isSafeInteger(cents) && cents >= MIN_LINE_CENTS && cents <= MAX_LINE_CENTS;
}
/** Fulfilment fee: 10 % of the reward total. GST: 10 % of the fee only. */
export const SERVICE_FEE_RATE = { numerator: 10n, denominator: 100n } as const;
export const GST_RATE = { numerator: 10n, denominator: 100n } as const;

/** amount × numerator / denominator, rounded half up to the cent (amounts are never negative). */
function percentOf(cents: bigint, rate: { numerator: bigint; denominator: bigint }): bigint {
  const scaled = cents * rate.numerator;
  return (scaled * 2n + rate.denominator) / (rate.denominator * 2n);
}

export interface Charges {
  rewardsCents: number;
  serviceFeeCents: number;
  gstCents: number;
  totalCents: number;
}

/**
 * The cost of a list of whole Reward Dollar amounts: rewards + fee + GST on the fee.
 * $100 of rewards → fee $10.00, GST $1.00, total $111.00. Computed in bigint so no sum can
 * lose a cent, and returned as safe integers (a draft's total is far below 2^53 cents).
 */
export function chargesFor(rewardDollars: readonly number[]): Charges {
  let rewards = 0n;
  for (const dollars of rewardDollars) {
    if (!Number.isSafeInteger(dollars) || dollars < 0)
      throw new RangeError(`not a whole Reward Dollar amount: ${dollars}`);
    rewards += BigInt(dollars) * BigInt(CENTS_PER_REWARD_DOLLAR);
  }
  const fee = percentOf(rewards, SERVICE_FEE_RATE);
  const gst = percentOf(fee, GST_RATE);
  return {
    rewardsCents: Number(rewards),
    serviceFeeCents: Number(fee),
    gstCents: Number(gst),
    totalCents: Number(rewards + fee + gst),
  };
}

/** Cents as dollars with two decimals, for JSON answers (docs/requirements.md §S3 summary): 11100 → 111. */
export function centsToDollars(cents: number): number {
  return Math.round(cents) / 100;
}

// One formatter for every call: Number.prototype.toLocaleString with a locale builds a new one each
// time, which the Dashboard's spend picture did dozens of times a request (docs/BENCHMARKS.md).
const wholeDollars = new Intl.NumberFormat("en-AU", { maximumFractionDigits: 0 });

/**
 * The one way money is written: "$1,234.50" in Australian format, two decimals; with
 * `wholeDollars`, a whole amount without them ("$50", what an automation sends).
 */
export function formatDollars(cents: number, options: { wholeDollars?: boolean } = {}): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(Math.round(cents));
  const whole = wholeDollars.format(Math.floor(abs / 100));
  if (options.wholeDollars && abs % 100 === 0) return `${sign}$${whole}`;
  return `${sign}$${whole}.${String(abs % 100).padStart(2, "0")}`;
}
