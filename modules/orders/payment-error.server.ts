/** A refusal the API answers as problem+json with this status and detail (server/api/refusals.ts). */
export class PaymentError extends Error {
  readonly status: number;
  /** The field a refusal is about, for a form to show it there (problem+json `errors`). */
  readonly errors?: Record<string, string[]>;
  constructor(status: number, detail: string, errors?: Record<string, string[]>) {
    super(detail);
    this.name = "PaymentError";
    this.status = status;
    this.errors = errors;
  }
}
