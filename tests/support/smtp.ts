// A real SMTP server for mail tests (smtp-server), on a loopback port, collecting what it receives.
// Plain SMTP without STARTTLS or AUTH, so nodemailer talks to it over `smtp://127.0.0.1:<port>`.
import { SMTPServer } from "smtp-server";
import { freePort } from "./net.ts";

export interface MimePart {
  headers: Record<string, string>;
  contentType: string;
  /** Decoded body (quoted-printable and base64 undone). */
  body: string;
}

export interface ReceivedMessage {
  from: string | undefined;
  to: string[];
  raw: string;
  headers: Record<string, string>;
  /** Leaf parts of the message (for multipart/alternative: the text and the html part). */
  parts: MimePart[];
  text: string | undefined;
  html: string | undefined;
}

export interface TestSmtpServer {
  port: number;
  url: string;
  messages: ReceivedMessage[];
  running: boolean;
  /** Starts listening (again) on the same port. */
  start(): Promise<void>;
  /** Stops listening: connections are then refused on `port`. */
  stop(): Promise<void>;
  /** While set, every new connection is answered with this reply (e.g. 421) and closed. */
  refuseConnections: SmtpReply | undefined;
  /** While set, a recipient it returns a reply for is refused at RCPT TO (e.g. 550). */
  rejectRecipient: ((address: string) => SmtpReply | undefined) | undefined;
}

export interface SmtpReply {
  code: number;
  message: string;
}

function replyError(reply: SmtpReply): Error {
  // smtp-server answers a callback error with its responseCode and message.
  return Object.assign(new Error(reply.message), { responseCode: reply.code });
}

/** Creates the server on a free port; it listens only once `start()` is called (or with `listen`). */
export async function createSmtpServer(options: { listen?: boolean } = {}): Promise<TestSmtpServer> {
  const port = await freePort();
  const messages: ReceivedMessage[] = [];
  let server: SMTPServer | undefined;

  const handle: TestSmtpServer = {
    port,
    url: `smtp://127.0.0.1:${port}`,
    messages,
    running: false,
    refuseConnections: undefined,
    rejectRecipient: undefined,
    async start() {
      if (server) return;
      const s = new SMTPServer({
        logger: false,
        // stop() must not wait long for a client that keeps its connection open.
        closeTimeout: 200,
        disableReverseLookup: true,
        authOptional: true,
        disabledCommands: ["STARTTLS", "AUTH"],
        onConnect(_session, callback) {
          const refusal = handle.refuseConnections;
          callback(refusal ? replyError(refusal) : undefined);
        },
        onRcptTo(address, _session, callback) {
          const rejection = handle.rejectRecipient?.(address.address);
          callback(rejection ? replyError(rejection) : undefined);
        },
        onData(stream, session, callback) {
          const chunks: Buffer[] = [];
          stream.on("data", (c: Buffer) => chunks.push(c));
          stream.on("end", () => {
            const raw = Buffer.concat(chunks).toString("utf8");
            const parsed = parseMime(raw);
            const leaves = leafParts(parsed);
            messages.push({
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
              to: session.envelope.rcptTo.map((r) => r.address),
              raw,
              headers: parsed.headers,
              parts: leaves,
              text: leaves.find((p) => p.contentType.startsWith("text/plain"))?.body,
              html: leaves.find((p) => p.contentType.startsWith("text/html"))?.body,
            });
            callback();
          });
        },
      });
      await new Promise<void>((resolve, reject) => {
        s.server.once("error", reject);
        s.listen(port, "127.0.0.1", () => resolve());
      });
      server = s;
      handle.running = true;
    },
    async stop() {
      const s = server;
      if (!s) return;
      server = undefined;
      handle.running = false;
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
  if (options.listen !== false) await handle.start();
  return handle;
}

interface ParsedEntity {
  headers: Record<string, string>;
  contentType: string;
  body: string;
  children: ParsedEntity[];
}

function parseMime(raw: string): ParsedEntity {
  const split = raw.search(/\r?\n\r?\n/);
  const head = split === -1 ? raw : raw.slice(0, split);
  const rest = split === -1 ? "" : raw.slice(split).replace(/^\r?\n\r?\n/, "");
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const contentType = (headers["content-type"] ?? "text/plain").toLowerCase();
  const boundary = /boundary="?([^";]+)"?/i.exec(headers["content-type"] ?? "")?.[1];
  if (contentType.startsWith("multipart/") && boundary) {
    const sections = rest.split(`--${boundary}`);
    const children = sections
      .slice(1)
      .filter((s) => !s.startsWith("--"))
      .map((s) => parseMime(s.replace(/^\r?\n/, "").replace(/\r?\n$/, "")));
    return { headers, contentType, body: "", children };
  }
  const encoding = (headers["content-transfer-encoding"] ?? "7bit").toLowerCase();
  return { headers, contentType, body: decode(rest, encoding), children: [] };
}

function decode(body: string, encoding: string): string {
  // Line endings on the wire are CRLF; compare bodies with plain \n.
  return decodeTransfer(body, encoding).replace(/\r\n/g, "\n");
}

function decodeTransfer(body: string, encoding: string): string {
  if (encoding === "base64") return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
  if (encoding === "quoted-printable") {
    const bytes = body
      .replace(/=\r?\n/g, "")
      .replace(/=([0-9A-F]{2})/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
    return Buffer.from(bytes, "latin1").toString("utf8");
  }
  return body;
}

function leafParts(entity: ParsedEntity): MimePart[] {
  if (entity.children.length === 0) {
    return [{ headers: entity.headers, contentType: entity.contentType, body: entity.body }];
  }
  return entity.children.flatMap(leafParts);
}
