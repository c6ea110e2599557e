// Builds the UI into a module script (app.js), the chunks it loads when
// needed (SpecEditor.js: CodeMirror, loaded by the Spec tab; fixed names, no
// hashes) and one style sheet (style.css), which CMake embeds (every file of
// the output folder) into the binary next to src/web/assets/
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
    // No preload helper: the chunks import each other relative to app.js
    // (under any base path) and the CSS is one file.
    modulePreload: false,
    rollupOptions: {
      input: "src/main.tsx",
      output: {
        format: "es",
        entryFileNames: "app.js",
        chunkFileNames: "[name].js",
        assetFileNames: (info) => (info.names?.[0]?.endsWith(".css") ? "style.css" : "[name][extname]"),
      },
    },
  },
});
