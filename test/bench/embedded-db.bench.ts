/**
 * `npm run bench:embedded-db [-- --rounds 5 --buffers 128MB,32MB]`: what the embedded database's
 * shared_buffers cost at start (gateway/db/pglite.ts EMBEDDED_SHARED_BUFFERS): PGlite's initdb of a
 * fresh data directory once per value, then --rounds opens of a copy of one initialised directory per
 * value, the values alternating, each timed in CPU (this process's user + system) and wall ms, and a
 * first query. PGlite zeroes its shared memory page by page at every open, so the figure follows the
 * setting.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { pgliteOptions } from '../../gateway/db/pglite.ts';

const { values: args } = parseArgs({
  options: { rounds: { type: 'string', default: '5' }, buffers: { type: 'string', default: '128MB,32MB' } },
});
const rounds = Number(args.rounds);
const values = args.buffers!.split(',').map((s) => s.trim()).filter(Boolean);

const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function timed<T>(fn: () => Promise<T>): Promise<{ cpu: number; wall: number; value: T }> {
  const c0 = cpuMs();
  const t0 = performance.now();
  const value = await fn();
  return { cpu: cpuMs() - c0, wall: performance.now() - t0, value };
}

const open = (dir: string, buffers: string) => PGlite.create(dir, pgliteOptions(buffers));

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-embedded-db-'));
try {
  console.log(`machine: ${os.cpus()[0]?.model ?? '?'} x${os.cpus().length}, node ${process.version}; ${rounds} opens per value, alternating`);
  const initdb: Record<string, { cpu: number; wall: number }> = {};
  for (const v of values) {
    const t = await timed(async () => {
      const db = await open(path.join(root, `init-${v}`), v);
      await db.query('SELECT 1');
      await db.close();
    });
    initdb[v] = t;
  }
  const template = path.join(root, `init-${values[0]}`);
  const opens: Record<string, { cpu: number[]; wall: number[] }> = Object.fromEntries(values.map((v) => [v, { cpu: [], wall: [] }]));
  for (let r = 0; r < rounds; r++) {
    for (const v of r % 2 === 0 ? values : [...values].reverse()) {
      const dir = path.join(root, `open-${r}-${v}`);
      fs.cpSync(template, dir, { recursive: true });
      const t = await timed(async () => {
        const db = await open(dir, v);
        const shown = (await db.query<{ shared_buffers: string }>('SHOW shared_buffers')).rows[0]!.shared_buffers;
        await db.close();
        return shown;
      });
      if (t.value !== v) throw new Error(`asked for shared_buffers=${v}, the database says ${t.value}`);
      opens[v]!.cpu.push(t.cpu);
      opens[v]!.wall.push(t.wall);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }
  console.log('| shared_buffers | initdb + open, CPU ms | wall ms | open of a copy, median CPU ms | median wall ms |');
  console.log('| --- | ---: | ---: | ---: | ---: |');
  for (const v of values) {
    console.log(`| ${v} | ${initdb[v]!.cpu.toFixed(0)} | ${initdb[v]!.wall.toFixed(0)} | ${median(opens[v]!.cpu).toFixed(0)} | ${median(opens[v]!.wall).toFixed(0)} |`);
  }
} finally {
  fs.rmSync(root, { recursive: true, force: true });
}
