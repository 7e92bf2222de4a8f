// Vite build of the customers' dashboard, served by the gateway under /dashboard/ (docs/dashboard-ui.md).
// Paths come from import.meta.url so that the build works from any working directory.
import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';

const dir = (rel: string) => decodeURIComponent(new URL(rel, import.meta.url).pathname);

export default defineConfig({
  root: dir('.'),
  base: '/dashboard/',
  plugins: [preact()],
  build: {
    outDir: dir('./dist'),
    emptyOutDir: true,
    // The gateway's CSP is default-src 'self' with no inline script or style: every asset is a file.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
