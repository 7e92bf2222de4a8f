import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** npm test's file list (test/test-files.mjs): test/run-first.txt's files first, then every other test file, each once. */
describe('npm test\'s file list', () => {
  it('names every test file once, the run-first ones first; a run-first name that does not exist fails it', () => {
    const first = fs
      .readFileSync(path.join(ROOT, 'test/run-first.txt'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('#'));
    expect(first.length).to.be.above(0);
    const r = spawnSync(process.execPath, [path.join(ROOT, 'test/test-files.mjs')], { encoding: 'utf8' });
    expect(r.status, r.stderr).to.equal(0);
    const listed = r.stdout.trim().split('\n');
    const onDisk = fs
      .readdirSync(path.join(ROOT, 'test'), { recursive: true })
      .map((f) => `test/${String(f).split(path.sep).join('/')}`)
      .filter((f) => f.endsWith('.test.ts'));
    expect([...listed].sort()).to.deep.equal(onDisk.sort());
    expect(listed.slice(0, first.length)).to.deep.equal(first);
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.test, 'npm test uses it, and stops where it fails').to.contain('files=$(node test/test-files.mjs) && mocha');
  });
});
