// The test files npm test hands mocha, in the order they start: test/run-first.txt's (the longest)
// first, then every other test/**/*.test.ts in path order, each once. Mocha's parallel mode does not
// drop a file named twice (a file given by name and again by a glob ran twice), hence this list.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const first = fs
  .readFileSync(path.join(root, 'test', 'run-first.txt'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const missing = first.filter((f) => !fs.existsSync(path.join(root, f)));
if (missing.length) {
  console.error(`test/run-first.txt names files that do not exist: ${missing.join(', ')}`);
  process.exit(1);
}
const all = fs
  .readdirSync(path.join(root, 'test'), { recursive: true })
  .map((f) => path.join('test', String(f)).split(path.sep).join('/'))
  .filter((f) => f.endsWith('.test.ts'))
  .sort();
const seen = new Set();
for (const f of [...first, ...all]) {
  if (seen.has(f)) continue;
  seen.add(f);
  console.log(f);
}
