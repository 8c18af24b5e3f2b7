// Fails fast when an npm script runs on a Node older than the project's pinned 24
// (for example after `npm ci --ignore-scripts`, which skips the `node` package's install step).
const major = Number(process.versions.node.split(".")[0]);
if (major < 24) {
  console.error(
    `This project needs Node 24 or newer; this is Node ${process.versions.node}.\n` +
      "Run `npm install` (with install scripts) so the pinned node@24 lands in node_modules/.bin.",
  );
  process.exit(1);
}
