// The catalogue call and the API's generic answers (unknown paths), against the real database.
import { existsSync } from "node:fs";
import { count } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { DETAILS } from "../../core/public-forms.ts";
import { seedCatalogue } from "../../modules/catalogue/service.server.ts";
import { createTestApi, expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { catalogueItems } from "../db/schema.ts";

const CATALOGUE_URL = "https://catalogue.test/shop";

describeEachDatabase("public API", ({ database }) => {
  const config = testConfig({ CATALOGUE_URL });
  beforeEach(() => truncateAll(database().db));

  describe("GET /api/Catalogue/latest-reward", () => {
    it("answers an empty list before the catalogue is seeded", async () => {
      const res = await createTestApi(database().db, { config }).request("/api/Catalogue/latest-reward");
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual([]);
    });

    it("lists the twelve latest rewards with brand, imageURL and clickURL", async () => {
      await seedCatalogue(database().db, CATALOGUE_URL);
      const res = await createTestApi(database().db, { config }).request("/api/Catalogue/latest-reward");
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^application\/json/);
      const items = (await res.json()) as Array<Record<string, string>>;
      expect(items).toHaveLength(12);
      for (const item of items) {
        expect(Object.keys(item).sort()).toEqual(["brand", "clickURL", "imageURL"]);
        expect(item.brand).toMatch(/\S/);
        // Our own drawings, served from public/.
        expect(item.imageURL).toMatch(/^\/rewards\/[a-z0-9-]+\.svg$/);
        expect(existsSync(new URL(`../../public${item.imageURL}`, import.meta.url))).toBe(true);
        const click = new URL(item.clickURL ?? "");
        expect(click.origin + click.pathname).toBe(CATALOGUE_URL);
        expect(click.searchParams.get("brand")).toMatch(/^[a-z0-9-]+$/);
      }
      expect(new Set(items.map((i) => i.brand)).size).toBe(12);
      expect(items[0]?.brand).toBe("Apple");
    });

    it("seeds idempotently and refreshes the links when CATALOGUE_URL changes", async () => {
      const { db } = database();
      await seedCatalogue(db, CATALOGUE_URL);
      const first = await (await createTestApi(db, { config }).request("/api/Catalogue/latest-reward")).json();
      await seedCatalogue(db, CATALOGUE_URL);
      const [rows] = await db.select({ n: count() }).from(catalogueItems);
      expect(rows?.n).toBe(9 + 12);
      const second = await (await createTestApi(db, { config }).request("/api/Catalogue/latest-reward")).json();
      expect(second).toEqual(first);

      await seedCatalogue(db, "https://elsewhere.test/");
      const third = (await (await createTestApi(db).request("/api/Catalogue/latest-reward")).json()) as Array<{
        clickURL: string;
      }>;
      expect(third).toHaveLength(12);
      expect(third.every((i) => i.clickURL.startsWith("https://elsewhere.test/?brand="))).toBe(true);
    });
  });

  it.each([
    ["GET", "/api/Nope"],
    ["GET", "/api/Catalogue/latest-reward/extra"],
    ["POST", "/api/Identity/unknown"],
    ["GET", "/api/WaitList"],
    ["DELETE", "/api/Help/create-help-anonymous"],
  ])("%s %s is a 404 problem", async (method, path) => {
    const res = await createTestApi(database().db).request(path, { method });
    const problem = await expectProblem(res, 404);
    expect(problem.detail).toBe(DETAILS.notFound);
  });
});
