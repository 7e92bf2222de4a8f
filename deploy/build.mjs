// `npm run build`: compiles the runtime entries to dist/ with tsc (tsconfig.build.json; relative
// `.ts` imports rewritten to `.js`) and copies the files they read at run time beside them, so dist/
// is an application root: `node dist/gateway/main.js`, `node dist/renderer/main.js`,
// `node dist/gateway/cli/admin.js`, `node dist/deploy/healthcheck.js gateway|renderer`; the dashboard's
// pages are built (Vite) into dist/dashboard/dist, where the compiled gateway serves them from.
// The container images copy dist/ to /app (with node_modules and assets/). Options:
//   --out <dir>        another output folder (tests build into a temporary one)
//   --link-assets      dist/assets -> ../assets (to run dist/ from a checkout; images copy assets/)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const outArg = args.indexOf('--out');
const out = path.resolve(root, outArg >= 0 ? args[outArg + 1] : 'dist');
const linkAssets = args.includes('--link-assets');

fs.rmSync(out, { recursive: true, force: true });
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const r = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json'), '--outDir', out], { stdio: 'inherit', cwd: root });
if (r.status !== 0) {
  console.error('build: tsc failed');
  process.exit(r.status ?? 1);
}

const copies = ['package.json', 'proto', 'docs/openapi.json', 'gateway/http/docs-page.html', 'gateway/db/migrations', 'renderer/backends/cpu/wasm/kernel.wasm'];
for (const rel of copies) {
  fs.cpSync(path.join(root, rel), path.join(out, rel), { recursive: true });
}

// The customers' dashboard: built here (an install without scripts, as the image's, never ran the
// postinstall that builds it) and copied where the compiled gateway looks for it (dist/dashboard/dist).
// A build without it would answer /dashboard/ with 503, so its absence fails the build.
const dash = spawnSync(process.execPath, [path.join(root, 'deploy', 'build-dashboard.mjs')], { stdio: 'inherit', cwd: root });
const dashDist = path.join(root, 'dashboard', 'dist', 'index.html');
if (dash.status !== 0 || !fs.existsSync(dashDist)) {
  console.error('build: the dashboard was not built (needs the devDependencies: vite)');
  process.exit(dash.status || 1);
}
fs.cpSync(path.join(root, 'dashboard', 'dist'), path.join(out, 'dashboard', 'dist'), { recursive: true });
if (linkAssets && !fs.existsSync(path.join(out, 'assets'))) {
  fs.symlinkSync(path.relative(out, path.join(root, 'assets')), path.join(out, 'assets'));
}
console.log(`build: ${path.relative(root, out) || '.'} ready (node ${path.relative(root, out)}/gateway/main.js)`);
