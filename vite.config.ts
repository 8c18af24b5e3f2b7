import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig, type Plugin } from "vite";

/**
 * conform's parseWithZod (@conform-to/zod/v4) builds its form-value coercion with four helpers
 * from classic "zod/v4" (lazy, optional, pipe, transform), and classic zod's schema classes carry
 * every method: about 8 KB of brotli on each page with a form. The form schemas are zod/mini
 * (ADR 0017), whose helpers of the same names build the same zod-core schemas, so the browser
 * build gives conform those instead. The server keeps classic zod.
 */
function conformWithZodMini(): Plugin {
  return {
    name: "conform-zod-mini",
    enforce: "pre",
    applyToEnvironment: (environment) => environment.config.consumer === "client",
    async resolveId(source, importer) {
      if (source !== "zod/v4" || !importer?.includes("/@conform-to/zod/")) return null;
      return this.resolve("zod/mini", importer, { skipSelf: true });
    },
  };
}

export default defineConfig({
  plugins: [conformWithZodMini(), tailwindcss(), reactRouter()],
  resolve: { tsconfigPaths: true },
  build: { target: "es2022" },
  // Separate caches let several dev servers run side by side (VITE_CACHE_DIR=...).
  cacheDir: process.env.VITE_CACHE_DIR ?? "node_modules/.vite",
});
