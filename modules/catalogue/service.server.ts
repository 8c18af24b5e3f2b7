// The retailer catalogue shown on the landing page. The tiles under public/brands/ are our own
// simple wordmark drawings, never third-party artwork.
import { and, asc, eq, sql } from "drizzle-orm";
import type { LatestReward } from "../../core/public-forms.ts";
import type { Db } from "../../server/db/client.ts";
import { catalogueItems } from "../../server/db/schema.ts";

export interface CatalogueSeedItem {
  slug: string;
  brand: string;
}

/** docs/requirements.md §S2's retailer carousel, in its order. */
export const BRANDS: CatalogueSeedItem[] = [
  { slug: "apple", brand: "Apple" },
  { slug: "bunnings", brand: "Bunnings" },
  { slug: "flight-centre", brand: "Flight-Centre" },
  { slug: "bws", brand: "BWS" },
  { slug: "jb-hifi", brand: "JB-HIFI" },
  { slug: "myer", brand: "Myer" },
  { slug: "woolworths", brand: "Woolworths" },
  { slug: "lululemon", brand: "LuluLemon" },
  { slug: "boohoo", brand: "Boohoo" },
];

/** The "latest rewards" glance: twelve gift cards. */
export const LATEST_REWARDS: CatalogueSeedItem[] = [
  { slug: "apple", brand: "Apple" },
  { slug: "bunnings", brand: "Bunnings" },
  { slug: "woolworths", brand: "Woolworths" },
  { slug: "myer", brand: "Myer" },
  { slug: "jb-hifi", brand: "JB-HIFI" },
  { slug: "flight-centre", brand: "Flight-Centre" },
  { slug: "lululemon", brand: "LuluLemon" },
  { slug: "bws", brand: "BWS" },
  { slug: "boohoo", brand: "Boohoo" },
  { slug: "coles", brand: "Coles" },
  { slug: "kmart", brand: "Kmart" },
  { slug: "uber-eats", brand: "Uber Eats" },
];

export function brandImageUrl(slug: string): string {
  return `/brands/${slug}.svg`;
}

export function rewardImageUrl(slug: string): string {
  return `/rewards/${slug}.svg`;
}

export function catalogueClickUrl(catalogueUrl: string, slug: string): string {
  const url = new URL(catalogueUrl);
  url.searchParams.set("brand", slug);
  return url.toString();
}

/** Idempotent: inserts missing rows and refreshes the rest (e.g. after CATALOGUE_URL changes). */
export async function seedCatalogue(db: Db, catalogueUrl: string): Promise<void> {
  const rows = [
    ...BRANDS.map((b, i) => ({
      kind: "brand" as const,
      slug: b.slug,
      brand: b.brand,
      imageUrl: brandImageUrl(b.slug),
      position: i,
    })),
    ...LATEST_REWARDS.map((b, i) => ({
      kind: "latest" as const,
      slug: b.slug,
      brand: b.brand,
      imageUrl: rewardImageUrl(b.slug),
      position: i,
    })),
  ].map((r) => ({ ...r, clickUrl: catalogueClickUrl(catalogueUrl, r.slug) }));
  await db
    .insert(catalogueItems)
    .values(rows)
    .onConflictDoUpdate({
      target: [catalogueItems.kind, catalogueItems.slug],
      set: {
        brand: sql`excluded.brand`,
        imageUrl: sql`excluded.image_url`,
        clickUrl: sql`excluded.click_url`,
        position: sql`excluded.position`,
      },
    });
  cached.delete(db);
}

/**
 * The catalogue changes only when a process seeds it (at start), yet the landing page reads it
 * on every request: each process keeps what it read for a minute (another process's reseed shows
 * within that), and its own seeding empties its copy at once.
 */
const CATALOGUE_CACHE_MS = 60_000;
const cached = new WeakMap<Db, Map<string, { rows: Promise<LatestReward[]>; until: number }>>();

async function listKind(db: Db, kind: "brand" | "latest"): Promise<LatestReward[]> {
  let byKind = cached.get(db);
  if (!byKind) {
    byKind = new Map();
    cached.set(db, byKind);
  }
  const hit = byKind.get(kind);
  if (hit && hit.until > Date.now()) return hit.rows;
  const rows = db
    .select({ brand: catalogueItems.brand, imageURL: catalogueItems.imageUrl, clickURL: catalogueItems.clickUrl })
    .from(catalogueItems)
    .where(and(eq(catalogueItems.kind, kind)))
    .orderBy(asc(catalogueItems.position))
    .then((r) => r as LatestReward[]);
  const entry = { rows, until: Date.now() + CATALOGUE_CACHE_MS };
  byKind.set(kind, entry);
  // A failed read is not kept.
  rows.catch(() => {
    if (byKind.get(kind) === entry) byKind.delete(kind);
  });
  return rows;
}

export const listLatestRewards = (db: Db) => listKind(db, "latest");
