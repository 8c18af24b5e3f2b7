// The CSV import calls: the file as a streamed text/csv body, the job's progress for its owner
// only, the file's messages on a refusal (nothing staged), Save of a checked file.
import { beforeEach, expect, it } from "vitest";
import { expectProblem } from "../../tests/support/api.ts";
import { testConfig } from "../../tests/support/config.ts";
import { describeEachDatabase, truncateAll } from "../../tests/support/db.ts";
import { captureLogs } from "../../tests/support/logs.ts";
import { accountsApi, signUpVerified } from "../identity/accounts.testkit.ts";
import { applyNextImport } from "./service.server.ts";

const FILE = "First Name,Last Name,Email Address\r\nAnn,Lee,ann@example.com\r\nBo,Ng,bo@example.com\r\n";

/** The file in small pieces, as a browser's upload arrives. */
function streamOf(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + 16));
      at += 16;
    },
  });
}

describeEachDatabase("CSV import API", ({ database }) => {
  const db = () => database().db;
  beforeEach(() => truncateAll(db()));

  it("stages a streamed file, answers its progress to its owner only, and refuses a bad file whole", async () => {
    const logs = captureLogs("error");
    const { api } = accountsApi(db(), { config: testConfig(), logger: logs.logger });
    const alice = await signUpVerified(api, db(), { email: "alice@example.com" });
    const bob = await signUpVerified(api, db(), { email: "bob@example.com" });
    const send = (token: string, path: string, init: RequestInit = {}) =>
      api.fetch(
        new Request(`http://api.internal/api${path}`, {
          ...init,
          headers: { authorization: `Bearer ${token}`, "content-type": "text/csv" },
        }),
      );
    const post = (token: string, query: string, text: string) =>
      send(token, `/Imports?${query}`, { method: "POST", body: streamOf(text), duplex: "half" } as RequestInit);

    const created = await post(alice.accessToken, "kind=team&fileName=team.csv", FILE);
    expect(created.status, logs.lines.join("\n")).toBe(201);
    const job = (await created.json()) as { id: string; status: string; totalRows: number };
    expect(job).toMatchObject({ status: "staged", totalRows: 2, processedRows: 2 });

    const preview = await send(alice.accessToken, `/Imports/${job.id}?sample=1`);
    expect(await preview.json()).toMatchObject({ sample: [{ email: "ann@example.com" }] });
    await expectProblem(await send(bob.accessToken, `/Imports/${job.id}`), 404);
    await expectProblem(await send(bob.accessToken, `/Imports/${job.id}/start`, { method: "POST" }), 404);

    const queued = await send(alice.accessToken, `/Imports/${job.id}/start`, { method: "POST" });
    expect(await queued.json()).toMatchObject({ status: "queued" });
    await applyNextImport(db());
    expect(await (await send(alice.accessToken, `/Imports/${job.id}`)).json()).toMatchObject({
      status: "done",
      result: { successfullyAdded: 2, duplicates: 0 },
    });

    const bad = await post(alice.accessToken, "kind=team&fileName=bad.csv&queue=true", `${FILE}Cy,,cy@example.com\r\n`);
    const problem = await expectProblem(bad, 400);
    expect(problem.errors).toEqual({ file: ["Row 3: Last Name is missing or incorrect"] });
    await expectProblem(await post(alice.accessToken, "kind=other&fileName=x.csv", FILE), 400);
    await expectProblem(await send(alice.accessToken, "/Imports/short"), 404);
    const anonymous = await api.fetch(new Request("http://api.internal/api/Imports/abcdefghijklmnopqrstuv"));
    expect(anonymous.status).toBe(401);
  });
});
