// Builds the customers' dashboard (dashboard/ → dashboard/dist/) with Vite, so that `npm ci` (its
// postinstall) leaves a fresh clone ready for `npm start` and for the browser tests. Where Vite is not
// installed (a production `npm ci --omit=dev`, whose image copies a dist/ built in an earlier stage)
// this does nothing; the gateway then answers the dashboard's pages with a 503 that says so.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const config = path.join(root, 'dashboard', 'vite.config.ts');
if (!fs.existsSync(config)) process.exit(0);
let viteBin;
try {
  viteBin = path.join(path.dirname(createRequire(import.meta.url).resolve('vite/package.json')), 'bin', 'vite.js');
} catch {
  console.log('build-dashboard: vite is not installed (production install); skipped');
  process.exit(0);
}
const r = spawnSync(process.execPath, [viteBin, 'build', '--config', config, '--logLevel', 'warn'], { stdio: 'inherit', cwd: root });
if (r.status !== 0) {
  console.error('build-dashboard: vite build failed');
  process.exit(r.status ?? 1);
}
console.log('build-dashboard: dashboard/dist ready');
