// Looks at pages as a person would: `node scripts/screenshot.ts http://localhost:3000/help out-dir [--no-js]`
// writes a 360 px and a 1280 px full-page PNG of the URL using Debian's Chromium.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "@playwright/test";

const [url, outDir = "screenshots", flag] = process.argv.slice(2);
if (!url) {
  console.error("usage: node scripts/screenshot.ts URL [OUT_DIR] [--no-js]");
  process.exit(2);
}
mkdirSync(outDir, { recursive: true });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
});
const name = new URL(url).pathname.replace(/[^a-z0-9]+/gi, "_").replace(/^_|_$/g, "") || "home";
for (const width of [360, 1280]) {
  const context = await browser.newContext({ viewport: { width, height: 800 }, javaScriptEnabled: flag !== "--no-js" });
  const page = await context.newPage();
  await page.goto(url, { waitUntil: "networkidle" });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  const file = join(outDir, `${name}-${width}${flag === "--no-js" ? "-nojs" : ""}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(`${file}${overflow > 0 ? `  (scrolls horizontally by ${overflow}px!)` : ""}`);
  await context.close();
}
await browser.close();
