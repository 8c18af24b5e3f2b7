// Security (docs/requirements.md §D7): CSV uploads through the real edge and the real My Team action. Oversized
// files and wrong types are refused with their messages and store nothing; spreadsheet formula
// payloads (=, +, -, @ at a cell's start) are stored as plain text — and the product writes no
// CSV containing user data (only the two static templates), so they are never handed back to a
// spreadsheet. A new CSV writer fails the last test until it neutralises such cells.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FILE_TOO_LARGE_MESSAGE, INVALID_FILE_TYPE_MESSAGE, TEAM_CSV_TEMPLATE } from "../../core/csv.ts";
import { MAX_UPLOAD_BYTES } from "../../core/limits.ts";
import { PASSWORD } from "../../modules/identity/accounts.testkit.ts";
import { payingManager } from "../../modules/orders/payments.testkit.ts";
import { WEB_MULTIPART_MAX_BYTES } from "../../server/http/app.ts";
import { databases } from "../support/db.ts";
import { rowCounts } from "./fixtures.ts";
import { Jar, rendered, startWebApplication, type WebApplication } from "./web.ts";

const FORMULAS = ['=HYPERLINK("http://evil.example","click")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "=1+1"];

for (const { kind, skipped } of databases) {
  (skipped ? describe.skip : describe)(`CSV uploads [${kind}]`, () => {
    let app: WebApplication;
    let jar: Jar;
    let csrf: string;
    let honeypot: string;
    let manager: Awaited<ReturnType<typeof payingManager>>;

    beforeAll(async () => {
      app = await startWebApplication({ kind, env: { RATE_LIMIT_FACTOR: "100" } });
      manager = await payingManager(app.api, app.database.db);
      jar = new Jar();
      const page = await app.request("/corporate/login");
      jar.take(page);
      const root = (await rendered(page)).loaderData.root as { csrf: string; honeypot: { nameFieldName: string } };
      csrf = root.csrf;
      honeypot = root.honeypot.nameFieldName;
      const res = await app.request("/corporate/login", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header(), origin: app.origin },
        body: new URLSearchParams({ userName: manager.email, password: PASSWORD, csrf, [honeypot]: "" }),
      });
      expect(res.status).toBe(302);
      jar.take(res);
      // Login renews the CSRF cookie: the upload forms carry the token rendered after login.
      const portal = await app.request("/portal/my-team", { headers: { cookie: jar.header() } });
      expect(portal.status).toBe(200);
      jar.take(portal);
      csrf = ((await rendered(portal)).loaderData.root as { csrf: string }).csrf;
    });
    afterAll(async () => {
      await app?.close();
    });

    function upload(name: string, content: BlobPart, type = "text/csv", intent = "save-file") {
      const form = new FormData();
      form.set("csrf", csrf);
      form.set(honeypot, "");
      form.set("intent", intent);
      form.set("file", new File([content], name, { type }));
      return app.request("/portal/my-team", {
        method: "POST",
        headers: { cookie: jar.header(), origin: app.origin },
        body: form,
      });
    }

    const replyText = async (res: Response) => JSON.stringify((await rendered(res)).actionData);

    it("refuses an oversized file (over MAX_UPLOAD_BYTES) and stores nothing", async () => {
      const before = await rowCounts(app.database.db);
      const row = "Ann,Lee,ann.lee@example.com\r\n";
      const big = `First Name,Last Name,Email\r\n${row.repeat(Math.ceil((MAX_UPLOAD_BYTES + 10) / row.length))}`;
      for (const intent of ["save-file", "check-upload"]) {
        const res = await upload("team.csv", big, "text/csv", intent);
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(await replyText(res)).toContain(FILE_TOO_LARGE_MESSAGE);
      }
      // A body far beyond the cap (and beyond the edge's multipart limit) is not even read to the
      // end: the edge refuses it while it arrives (413).
      const huge = await upload("team.csv", new Uint8Array(WEB_MULTIPART_MAX_BYTES + 1024 * 1024).fill(65));
      expect(huge.status).toBe(413);
      expect(await rowCounts(app.database.db)).toEqual(before);
    });

    it("refuses wrong file types (name) and unreadable content, and stores nothing", async () => {
      const before = await rowCounts(app.database.db);
      for (const [name, type] of [
        ["team.exe", "application/octet-stream"],
        ["team.csv.html", "text/html"],
        ["team.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"],
        ["team", "text/plain"],
      ] as const) {
        const res = await upload(name, "First Name,Last Name,Email\r\nAnn,Lee,ann@example.com\r\n", type);
        expect(res.status, name).toBeGreaterThanOrEqual(400);
        expect(await replyText(res), name).toContain(INVALID_FILE_TYPE_MESSAGE);
      }
      // A binary file with a .csv name: refused by the reader, never a 500.
      const zip = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0, 0xff, 0xfe, 0, 1, 2, 3]);
      const res = await upload("team.csv", zip);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(await rowCounts(app.database.db)).toEqual(before);
    });

    it("formula payloads at a cell's start are stored as plain text, exactly as typed", async () => {
      const lines = FORMULAS.map((f, i) => `"${f.replace(/"/g, '""')}",Lee${i},formula${i}@example.com`);
      const res = await upload("formulas.csv", `${TEAM_CSV_TEMPLATE}${lines.join("\r\n")}\r\n`);
      expect(res.status, await res.clone().text()).toBeLessThan(400);
      const list = await manager.json<{ items: Array<{ firstName: string; email: string }> }>(
        "GET",
        "Users?pageNumber=1&pageSize=100&search=formula",
      );
      const names = list.items.map((u) => u.firstName).sort();
      expect(names).toEqual([...FORMULAS].sort());
    });

    it("a file posted without its form's CSRF token, or with the honeypot filled, is refused before it is read", async () => {
      const before = await rowCounts(app.database.db);
      const body = `${TEAM_CSV_TEMPLATE}Ann,Lee,csrf.ann@example.com\r\n`;
      const send = (fields: Record<string, string>) => {
        const form = new FormData();
        for (const [name, value] of Object.entries(fields)) form.set(name, value);
        form.set("file", new File([body], "team.csv", { type: "text/csv" }));
        return app.request("/portal/my-team", {
          method: "POST",
          headers: { cookie: jar.header(), origin: app.origin },
          body: form,
        });
      };
      expect((await send({ csrf: "forged", [honeypot]: "", intent: "save-file" })).status).toBe(403);
      expect((await send({ [honeypot]: "", intent: "save-file" })).status).toBe(403);
      expect((await send({ csrf, [honeypot]: "bot", intent: "save-file" })).status).toBe(400);
      expect(await rowCounts(app.database.db)).toEqual(before);
    });

    it("without JavaScript: the checked file is staged, previewed, saved through its job, and nothing is left", async () => {
      const lines = Array.from({ length: 12 }, (_, i) => `Nojs${i},Lee,nojs.${i}@example.com`);
      const res = await upload("nojs.csv", `${TEAM_CSV_TEMPLATE}${lines.join("\r\n")}\r\n`, "text/csv", "check-upload");
      expect(res.status).toBe(302);
      const preview = new URL(res.headers.get("location") ?? "", app.origin);
      const id = preview.searchParams.get("upload") ?? "";
      expect(preview.searchParams.get("dialog")).toBe("add");
      // The progress resource route reads the same job, for its owner only.
      const progress = await app.request(`/portal/import-progress?id=${id}`, { headers: { cookie: jar.header() } });
      expect(progress.status, progress.headers.get("location") ?? "").toBe(200);
      expect(await progress.json()).toEqual({
        status: "staged",
        fileName: "nojs.csv",
        processedRows: 12,
        totalRows: 12,
      });
      expect((await app.request(`/portal/import-progress?id=${id}`)).status).toBe(302);
      expect(
        (await app.request(`/portal/import-progress?id=${"x".repeat(20)}`, { headers: { cookie: jar.header() } }))
          .status,
      ).toBe(404);

      const page = await app.request(`${preview.pathname}${preview.search}`, { headers: { cookie: jar.header() } });
      expect(page.status).toBe(200);
      const loaded = (await rendered(page)).loaderData["features/my-team/portal.my-team"] as {
        upload: { count: number; fileName: string; sample: unknown[] };
      };
      expect(loaded.upload).toMatchObject({ id, count: 12, fileName: "nojs.csv" });
      expect(loaded.upload.sample).toHaveLength(5);

      const save = await app.request("/portal/my-team", {
        method: "POST",
        headers: { cookie: jar.header(), origin: app.origin, "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ csrf, [honeypot]: "", intent: "save-upload", uploadId: id }),
      });
      expect(save.status).toBe(302);
      expect(save.headers.get("location")).toBe("/portal/my-team");
      const list = await manager.json<{ totalCount: number }>("GET", "Users?pageNumber=1&pageSize=1&search=nojs");
      expect(list.totalCount).toBe(12);
      const counts = await rowCounts(app.database.db);
      expect(counts.import_jobs).toBe(0);
      expect(counts.import_job_rows).toBe(0);
    });

    it("the only CSV the product writes is the static template, the same for everyone", async () => {
      const res = await app.request("/portal/my-team/template.csv", { headers: { cookie: jar.header() } });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/csv/);
      expect(res.headers.get("content-disposition")).toMatch(/^attachment;/);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(await res.text()).toBe(TEAM_CSV_TEMPLATE);
      const anonymous = await app.request("/portal/my-team/template.csv");
      expect(anonymous.status).toBe(302);
    });
  });
}

describe("CSV writers in the source", () => {
  it("only the static templates answer text/csv; anything else writing CSV must neutralise formula cells", () => {
    const roots = ["app", "server", "modules", "core"];
    const writers: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) {
          if (name !== "+types") walk(path);
        } else if (/\.(ts|tsx)$/.test(name) && !/\.test\.ts$|\.testkit\.ts$/.test(name)) {
          const text = readFileSync(path, "utf8");
          // A response or a download of CSV: a text/csv content type (header or Blob) or a CSV writer library.
          if (/content-type["']?\s*[:,]\s*["']text\/csv|type:\s*["']text\/csv|csv-stringify|papaparse/i.test(text))
            writers.push(path);
        }
      }
    };
    for (const root of roots) walk(root);
    // Both serve a constant (TEAM_CSV_TEMPLATE, REWARD_CSV_TEMPLATE): headings only, no user data.
    const known = [
      "app/features/my-team/portal.my-team.template.ts",
      "app/features/reward-my-team/portal.reward-my-team.template.ts",
      // Not a writer: it sends the visitor's own upload, as it arrives, to the in-process API's
      // import (POST /Imports takes text/csv); nothing it sends reaches a browser.
      "app/lib/uploads.server.ts",
      // The one CSV writer (core/csv-file.ts csvFile: every cell through csvCell, which
      // neutralises formulas; tested in modules/audit/audit.test.ts and reward-history.test.ts), used by
      // the audit trail and the reward history; and the pages' downloads of them.
      "core/csv-file.ts",
      "app/features/audit/portal.settings.audit.export.ts",
      "app/features/dashboard/portal.reward-history.csv.ts",
    ];
    expect(
      writers.sort(),
      "a new CSV writer: if it writes user data, prefix cells starting with = + - @ (or tab, CR) with ' and list it here",
    ).toEqual(known.sort());
  });
});
