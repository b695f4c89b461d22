// The app's build (deploy/ensure-app.sh): Preact's JSX through esbuild, the output in the
// Python package (api/web/dist, served by api/web/routes.py), hashed assets under /assets.
import { defineConfig } from "vite";

export default defineConfig({
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  build: {
    outDir: "../api/web/dist",
    emptyOutDir: true,
    assetsDir: "assets",
    target: "es2022",
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
});
