// `npm start` on a fresh clone builds first; later starts reuse the build unless sources are newer.
import { execSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const marker = "build/server/index.js";

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const time = entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
}

const sourcesTime = Math.max(newestMtime("app"), newestMtime("core"), newestMtime("public"));
if (!existsSync(marker) || statSync(marker).mtimeMs < sourcesTime) {
  console.log("Building the web app…");
  execSync("npm run build", { stdio: "inherit" });
}
