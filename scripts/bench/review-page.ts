// Review page benchmark: the server time of `GET /portal/reward-my-team-review` for a
// draft of 5,000 recipients, through the whole edge with the production build, on PGlite in
// memory. Target: under 300 ms. Needs `npm run build` first.
//
//   node scripts/bench/review-page.ts [--recipients 5000] [--requests 20]
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { MAX_DRAFT_RECIPIENTS } from "../../modules/reward-drafts/schema.ts";
import { addNewRecipients } from "../../modules/reward-drafts/service.server.ts";
import { startSignedInBench } from "./signed-in.ts";

export interface ReviewPageFigures {
  recipients: number;
  requests: number;
  medianMs: number;
  p90Ms: number;
  maxMs: number;
  bytes: number;
}

const round = (ms: number) => Math.round(ms * 10) / 10;

export async function benchReviewPage(recipients = MAX_DRAFT_RECIPIENTS, requests = 20): Promise<ReviewPageFigures> {
  const bench = await startSignedInBench();
  try {
    const rows = Array.from({ length: recipients }, (_, i) => ({
      firstName: `Recipient${i + 1}`,
      lastName: `Surname ${i + 1}`,
      email: `recipient.${i + 1}@example.com`,
      value: (i % 50) + 1,
    }));
    await addNewRecipients(
      bench.running.database.db,
      { userId: bench.manager.userId, companyId: bench.manager.companyId },
      rows,
      new Date(),
    );
    // Warm up: the first render compiles the route module and fills caches.
    for (let i = 0; i < 3; i++) await (await bench.get("/portal/reward-my-team-review")).arrayBuffer();
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < requests; i++) {
      const t0 = performance.now();
      const res = await bench.get("/portal/reward-my-team-review");
      const body = await res.arrayBuffer();
      times.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`the Review page answered ${res.status}`);
      bytes = body.byteLength;
    }
    const html = await (await bench.get("/portal/reward-my-team-review", { compressed: false })).text();
    if (!html.includes("Surname 5000") && !html.includes("Surname 1 ")) {
      throw new Error("the Review page does not list the draft's recipients");
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
    return {
      recipients,
      requests,
      medianMs: round(at(0.5)),
      p90Ms: round(at(0.9)),
      maxMs: round(times[times.length - 1] ?? 0),
      bytes,
    };
  } finally {
    await bench.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      recipients: { type: "string", default: String(MAX_DRAFT_RECIPIENTS) },
      requests: { type: "string", default: "20" },
    },
  });
  const f = await benchReviewPage(Number(values.recipients), Number(values.requests));
  const target = 300;
  console.log(
    `Review page with ${f.recipients} recipients (PGlite, in memory, ${f.requests} requests): median ${f.medianMs} ms, p90 ${f.p90Ms} ms, max ${f.maxMs} ms, ${Math.round(f.bytes / 1024)} KB (target median < ${target} ms: ${f.medianMs < target ? "met" : "MISSED"})`,
  );
}
