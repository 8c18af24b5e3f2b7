import { reactRouter } from "@react-router/dev/vite";
import tailwindcss from "@tailwindcss/vite";
import { defineConfig } from "vite";

export default defineConfig({
  plugins: [tailwindcss(), reactRouter()],
  resolve: { tsconfigPaths: true },
  build: { target: "es2022" },
  // Separate caches let several dev servers run side by side (VITE_CACHE_DIR=...).
  cacheDir: process.env.VITE_CACHE_DIR ?? "node_modules/.vite",
});
