import { expect } from 'chai';
import { AssetStore } from '../../renderer/assets/asset-store.ts';
import { CpuCompositor, kernelInput } from '../../renderer/backends/cpu/cpu-backend.ts';
import { compositeKernel } from '../support/reference-kernel.ts';
import { runPipeline, STEPS } from '../../renderer/pipeline/pipeline.ts';
import type { RenderContext, Step } from '../../renderer/pipeline/context.ts';
import { allocPlanes } from '../../renderer/backends/cpu/arena.ts';
import { makeLayers, type Layers } from '../../renderer/assets/layers.ts';
import { TEST_SET, TEST_SET8, compositeJob, expectKernelMatch, quietLogger, testAssets } from './helpers.ts';
import { CPU_LEVEL_EXTRAS, cpuLevelExtras } from '../../renderer/backends/cpu/level-extras.ts';

/**
 * The layers' own output picture (LayerArena.output): an opaque render composites into it in place
 * when no other render holds it, and it comes back when the render is done with it, encoded or failed.
 */
describe('cpu backend, the layers\' own output picture', function () {
  this.timeout(60_000);

  it('lends it to one opaque render at a time, with the same bytes as a pooled buffer, inline and in the workers', async () => {
    const store = new AssetStore({ dir: await testAssets(), cacheBytes: 128 * 1024 * 1024, logger: quietLogger, levelExtras: CPU_LEVEL_EXTRAS });
    const set = await store.getSet(TEST_SET);
    let first: Buffer | null = null;
    for (const inlineMaxPixels of [0, 1 << 30]) {
      const cpu = await CpuCompositor.create({ workers: 2, logger: quietLogger, inlineMaxPixels });
      try {
        const job = await compositeJob(store, cpu, set, { view: 'front_left', color: '#C41E3A', shadow: true, plate: 'AB 1234', transparent: false, width: 480 });
        const own = job.layers.arena?.output ?? null;
        expect(own, 'the cpu store gives each level an output picture').to.not.equal(null);
        expect(own!.length).to.equal(job.layers.width * job.layers.height * 3);
        const ref = new Uint8Array(own!.length);
        compositeKernel({ ...kernelInput(job, ref), runs: null, shadowedBase: null });
        // two at once: the first holds the layers' picture, the second gets a pooled one
        const [a, b] = await Promise.all([cpu.composite(job), cpu.composite(job)]);
        expect(a.data, 'the first').to.equal(own);
        expect(b.data, 'the second, while the first holds it').to.not.equal(own);
        expectKernelMatch(a.data, ref, job.layers.paint, 3, `in place, inline ${inlineMaxPixels > 0}`);
        expectKernelMatch(b.data, ref, job.layers.paint, 3, `pooled, inline ${inlineMaxPixels > 0}`);
        // byte for byte: own and pooled, in the workers and inline
        expect(Buffer.compare(Buffer.from(a.data), Buffer.from(b.data)), 'own and pooled').to.equal(0);
        first ??= Buffer.from(a.data);
        expect(Buffer.compare(Buffer.from(a.data), first), 'workers and inline').to.equal(0);
        cpu.release(a);
        cpu.release(b);
        // a stale second release of `a`, once another render holds the picture, leaves that loan alone
        const held = await cpu.composite(job);
        expect(held.data).to.equal(own);
        cpu.release(a);
        const other = await cpu.composite(job);
        expect(other.data, 'still held').to.not.equal(own);
        cpu.release(other);
        cpu.release(held);
        // given back: the next render has it again, another colour
        const blue = { ...job, color: [0.01, 0.07, 0.26] as [number, number, number] };
        const blueRef = new Uint8Array(own!.length);
        compositeKernel({ ...kernelInput(blue, blueRef), runs: null, shadowedBase: null });
        const c = await cpu.composite(blue);
        expect(c.data).to.equal(own);
        expectKernelMatch(c.data, blueRef, job.layers.paint, 3, `in place again, inline ${inlineMaxPixels > 0}`);
        cpu.release(c);
        // a transparent picture (RGBA) never goes there
        const t = await compositeJob(store, cpu, set, { view: 'front_left', color: '#C41E3A', shadow: true, plate: null, transparent: true, width: 480 });
        const ti = await cpu.composite(t);
        expect(ti.channels).to.equal(4);
        expect(ti.data).to.not.equal(t.layers.arena?.output);
        cpu.release(ti);
      } finally {
        await cpu.close();
      }
    }
  });

  it('fails a composite whose bands were in the workers when the compositor closed, instead of leaving it waiting', async () => {
    const store = new AssetStore({ dir: await testAssets(), cacheBytes: 128 * 1024 * 1024, logger: quietLogger, levelExtras: CPU_LEVEL_EXTRAS });
    const set = await store.getSet(TEST_SET);
    const cpu = await CpuCompositor.create({ workers: 2, logger: quietLogger, inlineMaxPixels: 0 });
    // transparent: every pixel computed, so the bands are still running when the workers are stopped
    const job = await compositeJob(store, cpu, set, { view: 'front_left', color: '#C41E3A', shadow: true, plate: 'AB 1234', transparent: true, width: 480 });
    const running = cpu.composite(job).then(
      () => 'done',
      (e: Error) => e.message,
    );
    await cpu.close();
    const settled = await Promise.race([running, new Promise((r) => setTimeout(() => r('still waiting'), 5000))]);
    expect(['done', 'cpu compositor closed']).to.include(settled);
  });

  it('comes back when a render fails after its composite, so the next render has it', async () => {
    const store = new AssetStore({ dir: await testAssets(), cacheBytes: 128 * 1024 * 1024, logger: quietLogger, levelExtras: CPU_LEVEL_EXTRAS });
    const set = await store.getSet(TEST_SET);
    const cpu = await CpuCompositor.create({ workers: 0, logger: quietLogger });
    try {
      const ctxOf = (): RenderContext => ({
        req: { assetSet: TEST_SET, view: 'front_left', color: '#2E7D32', shadow: true, plate: 'K 1', format: 'png', width: 480 },
        set,
        view: set.views.front_left!,
        deadline: { at: Infinity },
        timings: {},
      });
      const failing: Step = {
        name: 'encode',
        run() {
          throw new Error('encoder failed');
        },
      };
      const ctx = ctxOf();
      let failed: unknown = null;
      await runPipeline(ctx, { store, backend: cpu }, [...STEPS.slice(0, 3), failing]).catch((e: unknown) => (failed = e));
      expect((failed as Error | null)?.message).to.equal('encoder failed');
      expect(ctx.image, 'the pipeline gave the picture back').to.equal(undefined);
      const next = ctxOf();
      await runPipeline(next, { store, backend: cpu }, STEPS.slice(0, 3));
      expect(next.image!.data).to.equal(next.layers!.arena!.output);
      cpu.release(next.image!);
    } finally {
      await cpu.close();
    }
  });
});

/** `l`'s palette lists each fully painted pixel's lighting, once per lighting, row by row, in its arena. */
function expectPaletteOf(l: Layers): void {
  const p = l.arena!.palette!;
  expect(p.size % 4).to.equal(0);
  expect(p.diffuse.buffer, 'in the arena').to.equal(l.arena!.memory.buffer);
  const keys = new Set<number>();
  let used = 0;
  let k = 0;
  for (let y = 0; y < l.height; y++) {
    expect(p.rowStart[y], `row ${y} starts at its first fully painted pixel`).to.equal(k);
    for (let i = y * l.width; i < (y + 1) * l.width; i++) {
      if (l.paint[i] !== 255) continue;
      const e = p.index[k++]!;
      if (!(e < p.size)) throw new Error(`pixel ${i}: entry ${e} past the ${p.size} entries`);
      if (p.diffuse[e] !== l.diffuse[i] || p.specular[e] !== l.specular[i]) throw new Error(`pixel ${i}: entry ${e} is not its lighting`);
      used = Math.max(used, e + 1);
    }
  }
  for (let e = 0; e < used; e++) keys.add(p.diffuse[e]! * 65536 + p.specular[e]!);
  expect(k, 'every fully painted pixel listed').to.equal(p.index.length);
  expect(p.rowStart[l.height]).to.equal(k);
  expect(keys.size, 'each lighting once').to.equal(used);
  expect(used).to.be.at.most(k / 2);
}

/** The level palette (level-tables.ts LevelPalette): fully painted pixels' colours computed once per distinct lighting. */
describe('cpu backend, level palettes', function () {
  this.timeout(60_000);

  it('lists each fully painted pixel\'s lighting once, in the level\'s arena, and makes none where lightings do not repeat enough', async () => {
    const store = new AssetStore({ dir: await testAssets(), cacheBytes: 128 * 1024 * 1024, logger: quietLogger, levelExtras: CPU_LEVEL_EXTRAS });
    const set8 = await store.getSet(TEST_SET8);
    // built after the level, in the background (a small one may be done at once, in its first slice)
    let l = await store.levelFor(set8, 'front_left', 480);
    const bytesBefore = l.bytes;
    await store.tablesBuilt();
    l = await store.levelFor(set8, 'front_left', 480);
    expect(l.arena!.palette, '8-bit light at full size: a palette').to.not.equal(null);
    expectPaletteOf(l);
    expect(l.bytes, 'the cache counts the palette').to.be.at.least(l.arena!.memory.buffer.byteLength);
    expect(l.bytes).to.be.above(bytesBefore);
    expect(store.stats().bytes, 'and so does the store').to.be.at.least(l.bytes);
    // 16-bit light (the other test set): distinct nearly everywhere, no palette
    const set16 = await store.getSet(TEST_SET);
    const l16 = await store.levelFor(set16, 'front_left', 480);
    await store.tablesBuilt();
    expect(l16.arena!.tablesTried, 'tried').to.equal(true);
    expect(l16.arena!.palette).to.equal(null);
    // the room its index took stays, counted
    expect((await store.levelFor(set16, 'front_left', 480)).bytes).to.be.above(l16.bytes);
  });

  it('lists the brightest lighting (diffuse and specular 65535, the int32 key -1) like any other, also as the first pixel\'s', async () => {
    const store = new AssetStore({ dir: await testAssets(), cacheBytes: 128 * 1024 * 1024, logger: quietLogger, levelExtras: CPU_LEVEL_EXTRAS });
    const src = await store.levelFor(await store.getSet(TEST_SET8), 'front_left', 480);
    const planes = allocPlanes('brightest', src.width, src.height, { shadow: false, coverage: false, shadowedBase: false, output: true });
    planes.base.set(src.base);
    planes.paint.set(src.paint);
    planes.diffuse.set(src.diffuse);
    planes.specular.set(src.specular);
    let first = -1;
    for (let i = 0, n = 0; i < src.paint.length && n < 50; i++) {
      if (src.paint[i] !== 255) continue;
      if (first < 0) first = i;
      if (n++ % 3 === 0) planes.diffuse[i] = planes.specular[i] = 65535;
    }
    const { shadowedBase: _none, ...p } = planes;
    const layers = makeLayers('brightest', { ...p, width: src.width, height: src.height }, CPU_LEVEL_EXTRAS);
    expect(layers.arena!.palette).to.not.equal(null);
    expect(layers.diffuse[first]).to.equal(65535);
    expectPaletteOf(layers);
  });

  it('gives fully painted pixels their palette colour: the formula\'s bytes in single precision, shadow, plate, inline and in the workers', async () => {
    const store = new AssetStore({ dir: await testAssets(), cacheBytes: 128 * 1024 * 1024, logger: quietLogger, levelExtras: CPU_LEVEL_EXTRAS });
    const set = await store.getSet(TEST_SET8);
    for (const inlineMaxPixels of [0, 1 << 30]) {
      const cpu = await CpuCompositor.create({ workers: 2, logger: quietLogger, inlineMaxPixels });
      try {
        const before = cpu.paletteComposites;
        let n = 0;
        for (const view of ['front_left', 'side_left', 'rear'] as const) {
          for (const [color, shadow, plate] of [
            ['#C41E3A', true, 'AB 1234'],
            ['#F5F5F5', false, null],
            ['#1A1A1A', true, null],
            ['#FFD400', false, 'XY-98 ÄÖ'],
          ] as const) {
            const job = await compositeJob(store, cpu, set, { view, color, shadow, plate, transparent: false, width: 480 });
            await store.tablesBuilt();
            const ref = new Uint8Array(job.layers.width * job.layers.height * 3);
            compositeKernel({ ...kernelInput(job, ref), runs: null, shadowedBase: null });
            const img = await cpu.composite(job);
            expect(img.data).to.equal(job.layers.arena!.output);
            expectKernelMatch(img.data, ref, job.layers.paint, 3, `${view} ${color} shadow ${shadow} plate ${plate}, inline ${inlineMaxPixels > 0}`);
            const withIt = Buffer.from(img.data);
            cpu.release(img);
            n++;
            // the same request without the palette (not built yet, or its colour slots all held):
            // the same bytes, as every fully painted pixel is computed in single precision either way
            const arena = job.layers.arena!;
            const palette = arena.palette;
            arena.palette = null;
            try {
              const plain = await cpu.composite(job);
              expect(Buffer.compare(Buffer.from(plain.data), withIt), `${view} ${color} without the palette`).to.equal(0);
              cpu.release(plain);
            } finally {
              arena.palette = palette;
            }
          }
        }
        expect(cpu.paletteComposites - before, 'each took its colours from the palette').to.equal(n);
        // six at once: one in the layers' own output, five in pooled ones; the first four hold the
        // palette's colour slots, the other two compute their pixels; all give the same bytes
        const job = await compositeJob(store, cpu, set, { view: 'front_left', color: '#2E7D32', shadow: true, plate: 'K 1', transparent: false, width: 480 });
        const ref = new Uint8Array(job.layers.width * job.layers.height * 3);
        compositeKernel({ ...kernelInput(job, ref), runs: null, shadowedBase: null });
        const at = cpu.paletteComposites;
        const six = await Promise.all(Array.from({ length: 6 }, () => cpu.composite(job)));
        expect(cpu.paletteComposites - at, 'as many as the colour slots').to.equal(job.layers.arena!.palette!.colours.length);
        expect(six.filter((img) => img.data === job.layers.arena!.output).length).to.equal(1);
        expectKernelMatch(six[0]!.data, ref, job.layers.paint, 3, `six at once, inline ${inlineMaxPixels > 0}`);
        // palette and computed, own and pooled: the same bytes
        for (const img of six) expect(Buffer.compare(Buffer.from(img.data), Buffer.from(six[0]!.data))).to.equal(0);
        for (const img of six) cpu.release(img);
      } finally {
        await cpu.close();
      }
    }
  });

  it('computes a fully painted pixel under the shadow instead of taking its palette colour', async () => {
    const store = new AssetStore({ dir: await testAssets(), cacheBytes: 128 * 1024 * 1024, logger: quietLogger, levelExtras: CPU_LEVEL_EXTRAS });
    const set = await store.getSet(TEST_SET8);
    const src = await store.levelFor(set, 'front_left', 480);
    await store.tablesBuilt();
    // the same level with a shadow over part of the paint (the set's shadow lies beside it)
    const planes = allocPlanes('shaded-paint', src.width, src.height, { shadow: true, coverage: false, shadowedBase: false, output: true });
    planes.base.set(src.base);
    planes.paint.set(src.paint);
    planes.diffuse.set(src.diffuse);
    planes.specular.set(src.specular);
    let shaded = 0;
    for (let i = 0; i < src.paint.length; i++) {
      planes.shadow![i] = src.shadow![i]!;
      if (src.paint[i] === 255 && i % 7 < 3) {
        planes.shadow![i] = 40 + (i % 150);
        shaded++;
      }
    }
    const { shadowedBase: _none, ...p } = planes;
    const layers = makeLayers('shaded-paint', { ...p, width: src.width, height: src.height }, cpuLevelExtras({ shadowedBase: false }));
    expect(layers.arena!.palette, 'a palette for the copy too').to.not.equal(null);
    expect(shaded).to.be.above(1000);
    const cpu = await CpuCompositor.create({ workers: 0, logger: quietLogger });
    try {
      const base = await compositeJob(store, cpu, set, { view: 'front_left', color: '#1E4B8C', shadow: true, plate: null, transparent: false, width: 480 });
      const job = { ...base, layers };
      const ref = new Uint8Array(layers.width * layers.height * 3);
      compositeKernel({ ...kernelInput(job, ref), runs: null, shadowedBase: null });
      const before = cpu.paletteComposites;
      const img = await cpu.composite(job);
      expect(cpu.paletteComposites - before).to.equal(1);
      expectKernelMatch(img.data, ref, layers.paint, 3, 'shadow over paint');
      cpu.release(img);
    } finally {
      await cpu.close();
    }
  });
});
