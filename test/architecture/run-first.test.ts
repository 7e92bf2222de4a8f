import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** npm test names test/run-first.txt's files ahead of the glob; mocha only warns about a missing one. */
describe('test/run-first.txt', () => {
  it('names test files that exist, each once', () => {
    const names = fs
      .readFileSync(path.join(ROOT, 'test/run-first.txt'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() && !l.startsWith('#'));
    expect(names.length).to.be.above(0);
    expect(new Set(names).size, 'each once').to.equal(names.length);
    for (const n of names) {
      expect(n, n).to.match(/^test\/.+\.test\.ts$/);
      expect(fs.existsSync(path.join(ROOT, n)), `${n} exists`).to.equal(true);
    }
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.test, 'npm test reads it').to.contain('test/run-first.txt');
  });
});
