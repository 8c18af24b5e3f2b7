// The mail port (docs/requirements.md §D6): the outbox worker hands each message to one transport.
export interface OutgoingEmail {
  /** Stable id of the outbox row: also the Message-ID, so a receiver can drop a duplicate. */
  id: number;
  from: string;
  to: string;
  subject: string;
  html: string;
  text: string;
}

export interface MailTransport {
  readonly name: "smtp" | "dev-mailbox";
  /**
   * True when the outbox row itself is where the message is read (the dev mailbox): its body must
   * stay readable after delivery. Otherwise the body (codes, reset links, recipient passwords) is
   * redacted once delivered (docs/requirements.md §D7: no secret stays in a table after it has done its job).
   */
  readonly keepsBodies: boolean;
  /**
   * Delivers the message, or throws. A PermanentMailError means this message will never be
   * accepted (a 5xx reply to it, an address the transport refuses); anything else is transient
   * and retried with backoff (docs/requirements.md §D6: an outage delays mail, never loses it).
   */
  send(email: OutgoingEmail): Promise<void>;
  close?(): Promise<void>;
}

/** A delivery failure that retrying the same message cannot fix. `message` is kept in the row. */
export class PermanentMailError extends Error {
  override name = "PermanentMailError";
}

/** What a feature hands to the outbox; html and text are both required (docs/requirements.md §D6). */
export interface EmailContent {
  to: string;
  subject: string;
  html: string;
  text: string;
}
