// `npm start` on a fresh clone builds first; later starts reuse the build unless sources are newer:
// the web app (React Router's build) when app/, modules/, core/ or public/ changed, the server bundle
// (build/server.js, ADR 0024) alone when only the server's sources changed.
import { execSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const webBuild = "build/server/index.js";
const serverBundle = "build/server.js";

function newestMtime(path: string): number {
  if (!statSync(path).isDirectory()) return statSync(path).mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

const builtAt = (file: string) => (existsSync(file) ? statSync(file).mtimeMs : 0);

const webSources = Math.max(newestMtime("app"), newestMtime("modules"), newestMtime("core"), newestMtime("public"));
const serverSources = Math.max(
  newestMtime("server"),
  newestMtime("modules"),
  newestMtime("core"),
  newestMtime("server.ts"),
);
if (builtAt(webBuild) < webSources) {
  console.log("Building the web app…");
  execSync("npm run build", { stdio: "inherit" });
} else if (builtAt(serverBundle) < Math.max(serverSources, builtAt(webBuild))) {
  console.log("Bundling the server…");
  execSync("node scripts/build-server.ts", { stdio: "inherit" });
}
