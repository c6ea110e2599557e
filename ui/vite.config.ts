// Builds the UI into one script (app.js) and one style sheet (style.css) with
// fixed names, which CMake embeds into the binary next to src/web/assets/
// (index.html, favicon.svg). The server fills index.html's placeholders
// (base path, settings), so Vite does not process an HTML entry.
import { defineConfig } from "vite";

export default defineConfig({
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir: process.env.DAGU_UI_OUT || "dist",
    emptyOutDir: true,
    target: "es2020",
    sourcemap: false,
    cssCodeSplit: false,
    chunkSizeWarningLimit: 2000,
    rollupOptions: {
      input: "src/main.tsx",
      output: {
        format: "iife",
        entryFileNames: "app.js",
        assetFileNames: (info) => (info.names?.[0]?.endsWith(".css") ? "style.css" : "[name][extname]"),
      },
    },
  },
});
