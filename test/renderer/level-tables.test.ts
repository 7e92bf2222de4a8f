import { expect } from 'chai';
import { AssetStore } from '../../renderer/assets/asset-store.ts';
import { CpuCompositor, kernelInput } from '../../renderer/backends/cpu/cpu-backend.ts';
import { compositeKernel } from '../support/reference-kernel.ts';
import type { CompositeJob } from '../../renderer/backends/backend.ts';
import { EDGE_BLOCK_BYTES, allocPlanes } from '../../renderer/backends/cpu/arena.ts';
import { makeLayers, type Layers } from '../../renderer/assets/layers.ts';
import { SRGB8_TO_LINEAR } from '../../shared/color/srgb.ts';
import { encodeSrgb8 } from '../../renderer/color/srgb8.ts';
import { TEST_SET8, compositeJob, expectKernelMatch, quietLogger, testAssets } from './helpers.ts';
import { CPU_LEVEL_EXTRAS, cpuLevelExtras } from '../../renderer/backends/cpu/level-extras.ts';

const f = Math.fround;
const INV16 = f(1 / 65535);
const INV8 = f(1 / 255);

/** The partly painted pixels of each row inside the layers' runs, in raster order. */
function edgesByRow(l: Layers): number[][] {
  const { rowStart: rs, xs } = l.runs!;
  const rows: number[][] = [];
  for (let y = 0; y < l.height; y++) {
    const row: number[] = [];
    for (let r = rs[y]!; r < rs[y + 1]!; r++) {
      for (let i = y * l.width + xs[2 * r]!; i < y * l.width + xs[2 * r + 1]!; i++) if (l.paint[i] !== 0 && l.paint[i] !== 255) row.push(i);
    }
    rows.push(row);
  }
  return rows;
}

/**
 * Random planes in an arena with many partly painted pixels, made into Layers (its tables built at
 * once); `lightings` > 0: the fully painted pixels' lightings drawn from that many, so it gets a palette.
 */
function randomLayers(key: string, w: number, h: number, seed: number, edgeShare: number, lightings = 0, shadowedBase = true): Layers {
  const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const lights = Array.from({ length: lightings }, () => [Math.floor(rand() ** 2 * 65536), rand() < 0.5 ? 0 : Math.floor(rand() * 65536)]);
  const p = allocPlanes(key, w, h, { shadow: true, coverage: false, shadowedBase, output: true });
  for (let i = 0; i < w * h; i++) {
    const x = i % w;
    // a car-like band of paint with a ragged edge, and partly painted pixels scattered inside it
    const inside = x > w * 0.1 && x < w * 0.9;
    const u = rand();
    p.paint[i] = !inside ? 0 : u < edgeShare ? 1 + Math.floor(rand() * 254) : u < edgeShare + 0.05 ? 0 : 255;
    const light = lightings > 0 && p.paint[i] === 255 ? lights[Math.floor(rand() * lightings)]! : null;
    p.diffuse[i] = light ? light[0]! : Math.floor(rand() ** 2 * 65536);
    p.specular[i] = light ? light[1]! : rand() < 0.5 ? 0 : Math.floor(rand() * 65536);
    p.shadow![i] = rand() < 0.3 ? Math.floor(rand() * 256) : 0;
    for (let c = 0; c < 3; c++) p.base[i * 3 + c] = Math.floor(rand() * 256);
  }
  if (shadowedBase) return makeLayers(key, { ...p, width: w, height: h }, CPU_LEVEL_EXTRAS);
  const { shadowedBase: _none, ...planes } = p;
  return makeLayers(key, { ...planes, width: w, height: h }, cpuLevelExtras({ shadowedBase: false }));
}

function job(layers: Layers, color: [number, number, number], shadow: boolean): CompositeJob {
  return { layers, color, neutral: [0.42, 0.45, 0.47], calibration: { diffuseGain: 1.3, specularFloor: 0.04 }, shadow, plate: null, transparent: null };
}

/**
 * The level's tables (level-tables.ts withLevelTables): the edge list (LevelEdges), from which a render
 * reads the partly painted pixels' inputs in order instead of from four scattered planes, and the
 * palette (LevelPalette); the same bytes as without them.
 */
describe('cpu backend, level tables', function () {
  this.timeout(60_000);

  it('are built for the levels renders ask for, not for a larger level made only to reduce them from, until a render asks for that one', async () => {
    const asked: string[] = [];
    const extras = { ...CPU_LEVEL_EXTRAS, afterLevel: (l: Layers, still: () => boolean) => (asked.push(l.key), CPU_LEVEL_EXTRAS.afterLevel!(l, still)) };
    const store = new AssetStore({ dir: await testAssets(), cacheBytes: 128 * 1024 * 1024, logger: quietLogger, levelExtras: extras });
    const set = await store.getSet(TEST_SET8);
    const small = await store.levelFor(set, 'front_left', 240);
    await store.tablesBuilt();
    expect(small.width).to.be.below(set.views.front_left!.width);
    expect(asked, 'only the asked level').to.deep.equal([small.key]);
    expect((await store.levelFor(set, 'front_left', 240)).arena!.edges, 'the asked level has its tables').to.not.equal(null);
    const full = await store.levelFor(set, 'front_left', set.views.front_left!.width);
    await store.tablesBuilt();
    expect(asked.slice(1), 'the full size, once a render asks for it').to.deep.equal([full.key]);
    expect((await store.levelFor(set, 'front_left', set.views.front_left!.width)).arena!.edges).to.not.equal(null);
  });

  it('lists each partly painted pixel of the runs once, in raster order, four to a block, a row\'s last block filled up with its last pixel, with the kernel\'s single-precision inputs', async () => {
    const store = new AssetStore({ dir: await testAssets(), cacheBytes: 128 * 1024 * 1024, logger: quietLogger, levelExtras: CPU_LEVEL_EXTRAS });
    const l = await store.levelFor(await store.getSet(TEST_SET8), 'front_left', 480);
    await store.tablesBuilt();
    const e = l.arena!.edges;
    expect(e, 'a baked level has an edge list').to.not.equal(null);
    const rows = edgesByRow(l);
    const buf = l.arena!.memory.buffer;
    const total = rows.reduce((n, r) => n + r.length, 0);
    expect(e!.count).to.equal(total);
    expect(total, 'the test level has edges').to.be.above(500);
    const u32 = new Uint32Array(buf, e!.at, e!.rowStart[l.height]! * (EDGE_BLOCK_BYTES / 4));
    const f32 = new Float32Array(buf, e!.at, u32.length);
    const shadow = l.shadow!;
    let checked = 0;
    for (let y = 0; y < l.height; y++) {
      const row = rows[y]!;
      const b0 = e!.rowStart[y]!;
      const b1 = e!.rowStart[y + 1]!;
      expect(b1 - b0, `row ${y}'s blocks`).to.equal(Math.ceil(row.length / 4));
      for (let k = 0; k < (b1 - b0) * 4; k++) {
        const i = row[Math.min(k, row.length - 1)]!;
        const o = (b0 + (k >> 2)) * 32 + (k & 3);
        expect(u32[o], `row ${y} entry ${k}`).to.equal(i);
        const s8 = shadow[i]!;
        const want = [
          f(l.diffuse[i]! * INV16),
          f(l.specular[i]! * INV16),
          f(l.paint[i]! * INV8),
          f(SRGB8_TO_LINEAR[l.base[i * 3]!]!),
          f(SRGB8_TO_LINEAR[l.base[i * 3 + 1]!]!),
          f(SRGB8_TO_LINEAR[l.base[i * 3 + 2]!]!),
          s8 === 0 ? 1 : f(1 - f(s8 * INV8)),
        ];
        for (let j = 0; j < 7; j++) expect(f32[o + 4 * (j + 1)], `pixel ${i} field ${j + 1}`).to.equal(want[j]);
        checked++;
      }
    }
    expect(checked).to.be.at.least(total);
  });

  it('makes none where partly painted pixels are more than a quarter of the level, and the palette is still tried', () => {
    const l = randomLayers('edges-many', 160, 40, 7, 0.4);
    expect(l.arena!.tablesTried).to.equal(true);
    expect(l.arena!.edges).to.equal(null);
    const few = randomLayers('edges-few', 160, 40, 7, 0.1);
    expect(few.arena!.edges).to.not.equal(null);
    expect(few.arena!.edges!.count).to.equal(edgesByRow(few).reduce((n, r) => n + r.length, 0));
  });

  it('gives partly painted pixels the formula\'s bytes in single precision, and every pixel the same bytes with the tables, with and without the edge list, in place and pooled, inline and in the workers, palette or not', async () => {
    for (const layers of [randomLayers('tables-bytes', 331, 29, 99, 0.2), randomLayers('tables-palette', 331, 29, 5, 0.15, 37)]) {
      const arena = layers.arena!;
      expect(arena.edges).to.not.equal(null);
      expect(arena.palette !== null, `${layers.key}: palette`).to.equal(layers.key === 'tables-palette');
      const rows = edgesByRow(layers);
      for (const inlineMaxPixels of [0, 1 << 30]) {
        const cpu = await CpuCompositor.create({ workers: 2, logger: quietLogger, inlineMaxPixels });
        try {
          for (const [color, shadow] of [
            [[0.82, 0.09, 0.03], true],
            [[0.91, 0.91, 0.91], false],
            [[0.02, 0.05, 0.4], true],
          ] as [[number, number, number], boolean][]) {
            const j = job(layers, color, shadow);
            const label = `${layers.key} colour ${color} shadow ${shadow} inline ${inlineMaxPixels > 0}`;
            // two at once: the layers' own picture (in place) and a pooled one (a scratch row copied out)
            const [own, pooled] = await Promise.all([cpu.composite(j), cpu.composite(j)]);
            expect(own.data).to.equal(arena.output);
            expect(pooled.data).to.not.equal(arena.output);
            const withTables = Buffer.from(own.data);
            expect(Buffer.compare(Buffer.from(pooled.data), withTables), `${label}: in place and pooled`).to.equal(0);
            cpu.release(own);
            cpu.release(pooled);
            // the single-precision formula, edge pixel by edge pixel
            const [gain, floor] = [f(1.3), f(0.04)];
            const K = f(0.9);
            let wrong = 0;
            let edges = 0;
            for (const row of rows) {
              for (const i of row) {
                edges++;
                const D = f(layers.diffuse[i]! * INV16);
                const S = f(layers.specular[i]! * INV16);
                const m = f(layers.paint[i]! * INV8);
                const Sc = Math.max(f(S - floor), 0);
                const Dc = f(gain * D);
                let c = color.map((t) => f(f(f(t) * Dc) + Sc));
                const mx = Math.max(c[0]!, c[1]!, c[2]!);
                if (mx > K) {
                  const x = f(f(mx - K) * f(1 / (1 - 0.9)));
                  const k = f(f(K + f(f(f(1 - 0.9) * x) / f(1 + x))) / mx);
                  c = c.map((v) => f(v * k));
                }
                const rest = f(1 - m);
                const neutral = [0.42, 0.45, 0.47];
                const out = c.map((v, ch) => {
                  const under = f(f(SRGB8_TO_LINEAR[layers.base[i * 3 + ch]!]!) - f(m * f(f(f(neutral[ch]!) * D) + S)));
                  let o = f(Math.min(Math.max(under, 0), rest) + f(m * v));
                  const s8 = layers.shadow![i]!;
                  if (shadow && s8 !== 0) o = f(o * f(1 - f(s8 * INV8)));
                  return o;
                });
                for (let ch = 0; ch < 3; ch++) if (withTables[i * 3 + ch] !== encodeSrgb8(out[ch]!)) wrong++;
              }
            }
            expect(edges).to.be.above(1000);
            expect(wrong, label).to.equal(0);
            // and the reference kernel (double precision) within a code
            const ref = new Uint8Array(withTables.length);
            compositeKernel({ ...kernelInput(j, ref), runs: null, shadowedBase: null });
            expectKernelMatch(withTables, ref, layers.paint, 3, label);
            // without the edge list (as before it is built): the same bytes
            const edgeList = arena.edges;
            try {
              arena.edges = null;
              const [plain, plainPooled] = await Promise.all([cpu.composite(j), cpu.composite(j)]);
              expect(Buffer.compare(Buffer.from(plain.data), withTables), `${label}: no edge list, in place`).to.equal(0);
              expect(Buffer.compare(Buffer.from(plainPooled.data), withTables), `${label}: no edge list, pooled`).to.equal(0);
              cpu.release(plain);
              cpu.release(plainPooled);
            } finally {
              arena.edges = edgeList;
            }
          }
        } finally {
          await cpu.close();
        }
      }
    }
  });

  it('gives the same bytes with and without the tables where a level has no partly painted pixels, and where it has a shadow but no shadowed base (the runs then unused with the shadow)', async () => {
    const none = randomLayers('tables-no-edges', 97, 11, 21, 0, 9);
    expect(none.arena!.edges!.count, 'an empty edge list').to.equal(0);
    const unshaded = randomLayers('tables-no-shadowed-base', 97, 11, 22, 0.15, 9, false);
    expect(unshaded.shadowedBase, 'no shadowed base').to.equal(undefined);
    expect(unshaded.arena!.edges).to.not.equal(null);
    const cpu = await CpuCompositor.create({ workers: 2, logger: quietLogger, inlineMaxPixels: 0 });
    try {
      for (const layers of [none, unshaded]) {
        const arena = layers.arena!;
        for (const shadow of [true, false]) {
          const j = job(layers, [0.3, 0.6, 0.1], shadow);
          const ref = new Uint8Array(layers.width * layers.height * 3);
          compositeKernel({ ...kernelInput(j, ref), runs: null, shadowedBase: null });
          // twice: the second into the same output picture again
          const got: Buffer[] = [];
          for (let i = 0; i < 2; i++) {
            const img = await cpu.composite(j);
            got.push(Buffer.from(img.data));
            cpu.release(img);
          }
          expectKernelMatch(got[1]!, ref, layers.paint, 3, `${layers.key} shadow ${shadow}`);
          const edges = arena.edges;
          arena.edges = null;
          try {
            const plain = await cpu.composite(j);
            expect(Buffer.compare(Buffer.from(plain.data), got[0]!), `${layers.key} shadow ${shadow}: without the tables`).to.equal(0);
            expect(Buffer.compare(got[1]!, got[0]!), `${layers.key} shadow ${shadow}: the picture reused`).to.equal(0);
            cpu.release(plain);
          } finally {
            arena.edges = edges;
          }
        }
      }
    } finally {
      await cpu.close();
    }
  });

  it('fits both tables in the room the arena reserves, down to the smallest levels', () => {
    for (const [w, h] of [[1, 1], [3, 2], [8, 2], [17, 3], [64, 4]] as const) {
      for (const share of [0, 0.2]) {
        // lightings drawn from few, so the palette is built too
        const l = randomLayers(`tables-${w}x${h}-${share}`, w, h, w * 31 + h, share, 2);
        const a = l.arena!;
        // built without running out of room (a grow past the maximum throws); the tiniest may be refused by the shares
        expect(a.tablesTried).to.equal(true);
        if (w >= 17) {
          expect(a.edges, `${w}×${h} edges`).to.not.equal(null);
          expect(a.palette, `${w}×${h} palette`).to.not.equal(null);
        }
      }
    }
  });

  it('gives a baked level the same bytes with and without its tables, with the palette, shadow and plate', async () => {
    const store = new AssetStore({ dir: await testAssets(), cacheBytes: 128 * 1024 * 1024, logger: quietLogger, levelExtras: CPU_LEVEL_EXTRAS });
    const set = await store.getSet(TEST_SET8);
    const cpu = await CpuCompositor.create({ workers: 2, logger: quietLogger, inlineMaxPixels: 0 });
    try {
      for (const view of ['front_left', 'rear'] as const) {
        const j = await compositeJob(store, cpu, set, { view, color: '#C41E3A', shadow: true, plate: 'AB 1234', transparent: false, width: 480 });
        await store.tablesBuilt();
        const arena = j.layers.arena!;
        expect(arena.edges, `${view}: edge list`).to.not.equal(null);
        expect(arena.palette, `${view}: palette`).to.not.equal(null);
        const a = await cpu.composite(j);
        const withList = Buffer.from(a.data);
        cpu.release(a);
        const edges = arena.edges;
        try {
          arena.edges = null;
          const b = await cpu.composite(j);
          expect(Buffer.compare(Buffer.from(b.data), withList), `${view}: without the edge list`).to.equal(0);
          cpu.release(b);
        } finally {
          arena.edges = edges;
        }
      }
    } finally {
      await cpu.close();
    }
  });
});
