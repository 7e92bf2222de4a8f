// The folders' import rules (docs/architecture.md): gateway/, renderer/ and studio/ import nothing from
// each other (what two share is in shared/, proto/ or baker/, libraries that import none of the three);
// and no module graph has a cycle, type-only imports included (a cycle closed by types is still two
// modules that cannot be read apart). Read from the source text, so it holds whatever the bundler does.
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SOURCE_ROOTS = ['gateway', 'renderer', 'studio', 'shared', 'baker', 'proto', 'client/src', 'ops', 'deploy'];
const PROCESSES = ['gateway', 'renderer', 'studio'];
const LIBRARIES = ['shared', 'baker', 'proto'];

function sourceFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules' && e.name !== 'dist') walk(p);
      } else if (/\.(ts|tsx|mts)$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
    }
  };
  for (const r of SOURCE_ROOTS) walk(path.join(ROOT, r));
  return out;
}

/** Relative imports and re-exports (static, dynamic and type-only), resolved to files. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g)) {
    out.push(path.resolve(path.dirname(file), m[1]!));
  }
  return out;
}

const top = (file: string) => path.relative(ROOT, file).split(path.sep)[0]!;

describe('architecture: the folders\' import rules', () => {
  const files = sourceFiles();
  const graph = new Map(files.map((f) => [f, importsOf(f)] as const));

  it('finds the sources it reads (the walk is not empty)', () => {
    expect(files.length).to.be.greaterThan(200);
    for (const r of ['gateway', 'renderer', 'studio', 'shared', 'baker']) expect(files.some((f) => top(f) === r), r).to.equal(true);
  });

  it('gateway/, renderer/ and studio/ import nothing from each other; the libraries import none of them', () => {
    const wrong: string[] = [];
    for (const [file, deps] of graph) {
      const from = top(file);
      for (const d of deps) {
        const to = top(d);
        if (to === from) continue;
        if ((PROCESSES.includes(from) && PROCESSES.includes(to)) || (LIBRARIES.includes(from) && PROCESSES.includes(to))) {
          wrong.push(`${path.relative(ROOT, file)} → ${path.relative(ROOT, d)}`);
        }
      }
    }
    expect(wrong).to.deep.equal([]);
  });

  it('no module is part of an import cycle (type-only imports included)', () => {
    const cycles: string[] = [];
    const done = new Set<string>();
    const onPath = new Map<string, number>();
    const trail: string[] = [];
    const visit = (n: string) => {
      onPath.set(n, trail.length);
      trail.push(n);
      for (const d of graph.get(n) ?? []) {
        if (!graph.has(d)) continue;
        const at = onPath.get(d);
        if (at !== undefined) cycles.push([...trail.slice(at), d].map((f) => path.relative(ROOT, f)).join(' → '));
        else if (!done.has(d)) visit(d);
      }
      trail.pop();
      onPath.delete(n);
      done.add(n);
    };
    for (const f of graph.keys()) if (!done.has(f)) visit(f);
    expect(cycles).to.deep.equal([]);
  });
});
