// Password hashing (docs/requirements.md §D7): argon2id with the library's defaults (19 MiB, 2 passes,
// 1 lane — OWASP's recommended minimum), stored as a PHC string.
import { hash, verify } from "@node-rs/argon2";

export function hashPassword(password: string): Promise<string> {
  return hash(password);
}

let dummyHash: Promise<string> | undefined;

/**
 * True when `password` matches `stored`. With no stored hash (unknown address, a team member
 * without a password) it still runs one verification, so the answer takes as long either way.
 */
export async function verifyPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) {
    dummyHash ??= hash("no-such-user: equalise the timing");
    await verify(await dummyHash, password).catch(() => false);
    return false;
  }
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}
