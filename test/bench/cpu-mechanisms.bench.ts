/**
 * npm run bench:cpu-mechanisms [-- --set ID] [-- --widths 400,1600,2400] [-- --formats webp,png,jpeg]
 *                              [-- --rounds N] [-- --only palette,edges]
 *
 * What each of the cpu backend's optional mechanisms (renderer/backends/cpu/mechanisms.ts) earns: one
 * renderer with every mechanism on and one per mechanism with only that one off, all in this process
 * on the same committed set (default sportscoupe-a, view front_left, shadow and plate on), the same
 * request shape as `bench:render`. First each renderer's png must equal the baseline's, byte for byte
 * (opaque and transparent), or the bench stops. Then, per format and width, round after round, one
 * cache miss (a new colour) on each renderer in turn, in an order that rotates every round, and one
 * encode of the finished picture alone (the floor): so the machine's load falls on all of them alike.
 * Then, per renderer, concurrent misses (workers × 2 in flight) in four passes: renders per second, the median pass.
 *
 * Printed per format and width: the floor, the baseline's miss against the restated target (a miss
 * within 0.5 ms of its encode at ≤ 400 px, ≤ 1.15 × at 1600 and 2400 px), and for each mechanism the
 * baseline's miss without it: p50 wall, its gain over the baseline (miss without it / with it − 1),
 * CPU per miss, and the gain in renders per second under concurrency.
 */
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { loadRendererConfig } from '../../renderer/config.ts';
import { createLogger } from '../../shared/logger.ts';
import type { ImageFormat } from '../../shared/render-options.ts';
import { startRendererServer, type RendererInternals, type RendererServer } from '../../renderer/server.ts';
import { ALL_CPU_MECHANISMS, CPU_MECHANISMS, type CpuMechanisms } from '../../renderer/backends/cpu/mechanisms.ts';
import { encodeFloor } from './support/encode-floor.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const opt = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const SET = opt('--set') ?? 'sportscoupe-a';
const VIEW = 'front_left';
const WIDTHS = (opt('--widths') ?? '400,1600,2400').split(',').map(Number);
const FORMATS = (opt('--formats') ?? 'webp,png,jpeg').split(',') as ImageFormat[];
const ROUNDS = opt('--rounds') ? Number(opt('--rounds')) : null;
const ONLY = opt('--only')?.split(',') as (keyof CpuMechanisms)[] | undefined;

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const cpuMs = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1000;
let colourSeq = 0;
const nextColour = () => `#${((colourSeq++ * 2654435761) >>> 8).toString(16).padStart(6, '0').slice(-6).toUpperCase()}`;
const f2 = (x: number) => x.toFixed(2);
const signed = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`;

interface Variant {
  name: string;
  off: keyof CpuMechanisms | null;
  server: RendererServer;
  it: RendererInternals;
}

async function main() {
  const logger = createLogger('bench', 'warn');
  const config = loadRendererConfig({ RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', ASSETS_DIR: path.join(ROOT, 'assets'), RENDER_BACKEND: 'cpu', RENDER_CACHE_MB: '1024' });
  const load = () => os.loadavg().map((x) => x.toFixed(2)).join(' ');
  console.log(`machine: ${os.cpus().length} × ${os.cpus()[0]?.model ?? '?'}, node ${process.version}, sharp ${sharp.versions.sharp}; workers ${config.workers}; set ${SET} ${VIEW}; load ${load()}`);
  const variants: Variant[] = [];
  for (const off of [null, ...(ONLY ?? CPU_MECHANISMS)]) {
    const mechanisms: CpuMechanisms = off === null ? ALL_CPU_MECHANISMS : { ...ALL_CPU_MECHANISMS, [off]: false };
    let it: RendererInternals | null = null;
    const server = await startRendererServer({ config, logger, cpuMechanisms: mechanisms, onInternals: (i) => (it = i) });
    variants.push({ name: off === null ? 'all on' : `without ${off}`, off, server, it: it! });
  }
  const base = variants[0]!;
  const set = await base.it.store.getSet(SET);
  const view = set.views[VIEW]!;

  // the same bytes with and without each mechanism, or nothing here is worth measuring
  for (const width of WIDTHS) {
    for (const background of [undefined, 'transparent'] as const) {
      const req = { assetSet: SET, view: VIEW, shadow: true, plate: 'B MW 1234', format: 'png' as ImageFormat, width, color: '#2E6DB4', ...(background ? { background } : {}) };
      for (const v of variants) {
        await v.it.service.render(req);
        await v.it.store.tablesBuilt();
      }
      // a second colour, so that the tables (built after the first) and primed pictures are in play
      const second = { ...req, color: '#B4462E' };
      const want = (await base.it.service.render(second)).bytes;
      for (const v of variants.slice(1)) {
        const got = (await v.it.service.render(second)).bytes;
        if (!got.equals(want)) throw new Error(`${v.name}: ${width} px ${background ?? 'studio'} png differs from the baseline's`);
      }
    }
  }
  console.log(`bytes: every variant's png equals the baseline's at ${WIDTHS.join(', ')} px, studio and transparent`);

  const header = `| format | width | encode alone p50 ms | all on: miss p50 ms | target | ${variants.slice(1).map((v) => `without ${v.off}`).join(' | ')} |`;
  const rows = [header, `| --- | --- | --- | --- | --- | ${variants.slice(1).map(() => '---').join(' | ')} |`];
  const gains = new Map<string, number[]>();
  for (const format of FORMATS) {
    for (const width of WIDTHS) {
      const rounds = ROUNDS ?? (width <= 400 ? 120 : width <= 1600 ? 20 : 12);
      const req = { assetSet: SET, view: VIEW, shadow: true, plate: 'B MW 1234', format, width };
      for (const v of variants) {
        await v.it.service.render({ ...req, color: nextColour() });
        await v.it.store.tablesBuilt();
      }
      const floor = await encodeFloor(base.it, set, view, { ...req, color: '#C41E3A' });
      const wall = variants.map(() => [] as number[]);
      const cpu = variants.map(() => [] as number[]);
      const enc: number[] = [];
      for (let r = 0; r < rounds; r++) {
        for (let k = 0; k <= variants.length; k++) {
          const j = (k + r) % (variants.length + 1);
          if (j === variants.length) {
            const e0 = performance.now();
            await floor.encode();
            enc.push(performance.now() - e0);
            continue;
          }
          const c0 = process.cpuUsage();
          const t0 = performance.now();
          await variants[j]!.it.service.render({ ...req, color: nextColour() });
          wall[j]!.push(performance.now() - t0);
          cpu[j]!.push(cpuMs(process.cpuUsage(c0)));
        }
      }
      // concurrent misses: each variant in four passes, the order reversed every other pass; the median pass
      const passes = variants.map(() => [] as number[]);
      const conc = Math.max(2, config.workers * 2);
      const total = Math.max(16, rounds);
      for (let pass = 0; pass < 4; pass++) {
        for (let i = 0; i < variants.length; i++) {
          const j = pass % 2 === 0 ? i : variants.length - 1 - i;
          let done = 0;
          const t0 = performance.now();
          await Promise.all(
            Array.from({ length: conc }, async () => {
              while (done < total) {
                done++;
                await variants[j]!.it.service.render({ ...req, color: nextColour() });
              }
            }),
          );
          passes[j]!.push(done / ((performance.now() - t0) / 1000));
        }
      }
      const rps = passes.map((p) => pct(p, 50));
      const e50 = pct(enc, 50);
      const m50 = pct(wall[0]!, 50);
      const target = width <= 400 ? `${f2(m50 - e50)} ms over (≤ 0.5)` : `${f2(m50 / e50)} × (≤ 1.15)`;
      const cells = variants.slice(1).map((v, i) => {
        const w50 = pct(wall[i + 1]!, 50);
        const gain = w50 / m50 - 1;
        const cpuGain = pct(cpu[i + 1]!, 50) / pct(cpu[0]!, 50) - 1;
        const rpsGain = rps[0]! / rps[i + 1]! - 1;
        gains.set(v.off!, [...(gains.get(v.off!) ?? []), gain, rpsGain]);
        return `${f2(w50)} ms (${signed(gain)}; CPU ${signed(cpuGain)}; busy ${signed(rpsGain)})`;
      });
      rows.push(`| ${format} | ${width} | ${f2(e50)} | ${f2(m50)} (CPU ${f2(pct(cpu[0]!, 50))}; ${rps[0]!.toFixed(0)}/s busy) | ${target} | ${cells.join(' | ')} |`);
      console.log(rows[rows.length - 1]);
    }
  }
  console.log(`\n${rows.join('\n')}\n`);
  console.log('Largest gain of each mechanism, over every format and width, alone or busy (a mechanism earns its place at ≥ 5 %):');
  for (const [m, g] of gains) console.log(`- ${m}: ${signed(Math.max(...g))}`);
  console.log(`load ${load()}`);
  for (const v of variants) await v.server.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
