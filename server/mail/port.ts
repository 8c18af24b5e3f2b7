// The mail port (DESIGN.md §6): the outbox worker hands each message to one transport.
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
  send(email: OutgoingEmail): Promise<void>;
  close?(): Promise<void>;
}

/** What a feature hands to the outbox; html and text are both required (DESIGN.md §6). */
export interface EmailContent {
  to: string;
  subject: string;
  html: string;
  text: string;
}
