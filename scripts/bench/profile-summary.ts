// Summarises a V8 CPU profile (`node --cpu-prof`, e.g. from `node scripts/bench/http-load.ts
// --profile`): self time by where the code lives (a dependency, our own folder, Node's internals,
// garbage collection), and the hottest functions. A flame graph's totals as a table, for
// docs/BENCHMARKS.md.
//
//   node scripts/bench/profile-summary.ts bench-results/profiles/<file>.cpuprofile [--top 15]
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a frame's code lives: `pkg:<name>`, an app folder (app/, server/, core/, build), or Node. */
export function placeOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith("(") ? functionName : "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return `pkg:${pkg[1]}`;
  if (url.startsWith("node:")) return "node: internals";
  const own = /\/(app|server|core|build\/server)\//.exec(url);
  return own ? `${own[1]}/` : url.replace(/^file:\/\//, "");
}

export function summarise(profile: Profile, top = 15) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  for (const [i, id] of profile.samples.entries()) selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const idle = [...selfUs.entries()]
    .filter(([id]) => byId.get(id)?.callFrame.functionName === "(idle)")
    .reduce((a, [, us]) => a + us, 0);
  const busy = total - idle;
  const places = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node || node.callFrame.functionName === "(idle)") continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const place = placeOf(url, functionName);
    places.set(place, (places.get(place) ?? 0) + us);
    const name = `${functionName || "(anonymous)"} ${place}${url ? `:${lineNumber + 1}` : ""}`;
    functions.set(name, (functions.get(name) ?? 0) + us);
  }
  const rank = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => ({ name, ms: Math.round(us / 1000), share: Math.round((us / busy) * 1000) / 10 }));
  return {
    busyMs: Math.round(busy / 1000),
    idleMs: Math.round(idle / 1000),
    places: rank(places),
    functions: rank(functions),
  };
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: "string", default: "15" } },
  });
  const file = positionals[0];
  if (!file) throw new Error("usage: node scripts/bench/profile-summary.ts <file.cpuprofile> [--top 15]");
  const s = summarise(JSON.parse(readFileSync(file, "utf8")) as Profile, Number(values.top));
  console.log(`busy ${s.busyMs} ms, idle ${s.idleMs} ms\n`);
  console.log("| where | self time | share of busy time |\n|---|--:|--:|");
  for (const p of s.places) console.log(`| ${p.name} | ${p.ms} ms | ${p.share} % |`);
  console.log("\n| function | self time | share |\n|---|--:|--:|");
  for (const f of s.functions) console.log(`| \`${f.name}\` | ${f.ms} ms | ${f.share} % |`);
}
