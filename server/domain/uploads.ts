// Pending CSV uploads (DESIGN.md §1: every flow works without JavaScript, so the server parses
// the upload, shows the same errors or a preview with Save, and keeps the parsed rows until Save): the
// rows a checked file gave, kept in `pending_uploads` for their owner only, for a short while.
// The web portal reaches this through WebServices.pendingUploads (app/context.ts).
import { randomBytes } from "node:crypto";
import { and, eq, gt, lte } from "drizzle-orm";
import type { PendingUploadKind, PendingUploadStore } from "../../app/context.ts";
import type { Db } from "../db/client.ts";
import { pendingUploads } from "../db/schema.ts";

/** How long a checked file waits for its Save. */
export const PENDING_UPLOAD_TTL_MS = 60 * 60 * 1000;

export function pendingUploadStore(db: Db, now: () => Date = () => new Date()): PendingUploadStore {
  return {
    async save({ userId, kind, fileName, rows }) {
      const id = randomBytes(18).toString("base64url");
      // One pending file per person and kind: a newer check replaces the older one, and expired rows go.
      await db.delete(pendingUploads).where(and(eq(pendingUploads.userId, userId), eq(pendingUploads.kind, kind)));
      await db.delete(pendingUploads).where(lte(pendingUploads.expiresAt, now()));
      await db.insert(pendingUploads).values({
        id,
        userId,
        kind,
        fileName: fileName.slice(0, 255),
        rows,
        expiresAt: new Date(now().getTime() + PENDING_UPLOAD_TTL_MS),
      });
      return id;
    },
    async read(id: string, userId: number, kind: PendingUploadKind) {
      const [row] = await db
        .select({ fileName: pendingUploads.fileName, rows: pendingUploads.rows })
        .from(pendingUploads)
        .where(
          and(
            eq(pendingUploads.id, id),
            eq(pendingUploads.userId, userId),
            eq(pendingUploads.kind, kind),
            gt(pendingUploads.expiresAt, now()),
          ),
        );
      return row ?? null;
    },
    async delete(id: string, userId: number) {
      await db.delete(pendingUploads).where(and(eq(pendingUploads.id, id), eq(pendingUploads.userId, userId)));
    },
  };
}
