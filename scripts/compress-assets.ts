// Pre-compresses the built client files (brotli and gzip, maximum levels) so the server sends
// them without compressing per request (serveStatic's `precompressed`).
import { readdir, readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const root = process.argv[2] ?? "build/client";
const compressible = /\.(js|mjs|css|html|svg|json|txt|xml|webmanifest)$/;

async function* walk(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

let files = 0;
for await (const file of walk(root)) {
  if (!compressible.test(file)) continue;
  if ((await stat(file)).size < 1024) continue;
  const content = await readFile(file);
  await writeFile(`${file}.br`, brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  await writeFile(`${file}.gz`, gzipSync(content, { level: 9 }));
  files++;
}
console.log(`pre-compressed ${files} files in ${root}`);
