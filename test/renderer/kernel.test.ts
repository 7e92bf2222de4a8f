import { expect } from 'chai';
import { linearToSrgb, hexToLinear } from '../../renderer/color/srgb.ts';
import { AssetStore } from '../../renderer/assets/asset-store.ts';
import { activeRuns } from '../../renderer/assets/layers.ts';
import { CpuCompositor, kernelInput } from '../../renderer/backends/cpu/cpu-backend.ts';
import { compositeKernel, compositeRows } from '../../renderer/backends/cpu/kernel.ts';
import { SHADED, encodeSrgb8 } from '../../renderer/backends/cpu/srgb8.ts';
import { WasmKernel } from '../../renderer/backends/cpu/wasm-kernel.ts';
import { SRGB8_TO_LINEAR } from '../../renderer/color/srgb.ts';
import type { RenderContext } from '../../renderer/pipeline/context.ts';
import { layersStep } from '../../renderer/pipeline/steps/01-layers.ts';
import { plateStep } from '../../renderer/pipeline/steps/02-plate.ts';
import { VIEW_IDS } from '../../shared/views.ts';
import { TEST_SET, quietLogger, testAssets } from './helpers.ts';

/** The cpu kernel's shortcuts (exact encode table, runs of active pixels, bands of rows) against the plain formula. */
describe('cpu kernel', function () {
  this.timeout(60_000);

  it('encodes linear light to 8-bit sRGB exactly as round(255 · encode(c)), at every rounding threshold too', () => {
    const exact = (c: number) => Math.round(linearToSrgb(c) * 255);
    let seed = 12345;
    const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
    const wrong: number[] = [];
    for (let i = 0; i < 1_000_000; i++) {
      const c = i % 2 ? rand() : rand() ** 4; // dark values, where the steps are closest, get half the draws
      if (encodeSrgb8(c) !== exact(c)) wrong.push(c);
    }
    expect(wrong).to.deep.equal([]);
    // just below and at each threshold between two codes
    for (let k = 0; k < 255; k++) {
      let lo = 0;
      let hi = 1;
      for (let j = 0; j < 80; j++) {
        const mid = (lo + hi) / 2;
        if (exact(mid) > k) hi = mid;
        else lo = mid;
      }
      expect(encodeSrgb8(lo), `below threshold ${k}`).to.equal(exact(lo));
      expect(encodeSrgb8(hi), `at threshold ${k}`).to.equal(exact(hi));
    }
    expect([encodeSrgb8(-1), encodeSrgb8(0), encodeSrgb8(1), encodeSrgb8(7)]).to.deep.equal([0, 0, 255, 255]);
    for (let b = 0; b < 256; b++) {
      expect(encodeSrgb8(SRGB8_TO_LINEAR[b]!), `code ${b} round trip`).to.equal(b);
      for (const s of [0, 1, 128, 255]) expect(SHADED[(s << 8) | b]).to.equal(exact(SRGB8_TO_LINEAR[b]! * (1 - s / 255)));
    }
  });

  it('finds every pixel with paint or shadow in the runs', () => {
    const w = 97;
    const h = 13;
    const paint = new Uint8Array(w * h);
    const shadow = new Uint8Array(w * h);
    let seed = 7;
    for (let i = 0; i < paint.length; i++) {
      seed = (seed * 69069 + 1) >>> 0;
      if (seed % 17 === 0) paint[i] = 1 + (seed % 255);
      else if (seed % 23 === 0) shadow[i] = 1 + (seed % 200);
    }
    const { rowStart, xs } = activeRuns(w, h, paint, shadow);
    for (let y = 0; y < h; y++) {
      const inRun = new Uint8Array(w);
      for (let r = rowStart[y]!; r < rowStart[y + 1]!; r++) {
        expect(xs[2 * r]!).to.be.below(xs[2 * r + 1]!);
        if (r > rowStart[y]!) expect(xs[2 * r]!, 'runs sorted and apart').to.be.above(xs[2 * r - 1]!);
        for (let x = xs[2 * r]!; x < xs[2 * r + 1]!; x++) inRun[x] = 1;
      }
      for (let x = 0; x < w; x++) {
        if (paint[y * w + x] || shadow[y * w + x]) expect(inRun[x], `pixel ${x},${y}`).to.equal(1);
      }
    }
  });

  it('gives the same bytes with runs and bands as the formula over every pixel, in WebAssembly, and as the worker pool', async () => {
    const wasm = new WasmKernel();
    const store = new AssetStore({ dir: await testAssets(), cacheBytes: 128 * 1024 * 1024, logger: quietLogger });
    const set = await store.getSet(TEST_SET);
    const pool = await CpuCompositor.create({ workers: 2, logger: quietLogger, inlineMaxPixels: 0 });
    try {
      let compared = 0;
      for (const view of VIEW_IDS) {
        for (const [color, shadow, plate, transparent] of [
          ['#C41E3A', true, 'AB 1234', false],
          ['#1A1A1A', false, null, false],
          ['#F5F5F5', true, null, true],
          ['#1E4B8C', true, 'XY-98 ÄÖ', true],
        ] as const) {
          const ctx: RenderContext = {
            req: { assetSet: TEST_SET, view, color, shadow, plate, format: 'png', width: 480 },
            set,
            view: set.views[view]!,
            deadline: { at: Infinity },
            timings: {},
          };
          await layersStep.run(ctx, { store, backend: pool });
          await plateStep.run(ctx, { store, backend: pool });
          const job = {
            layers: ctx.layers!,
            color: hexToLinear(color),
            neutral: set.neutral,
            calibration: ctx.view.calibration,
            shadow: shadow && ctx.view.shadow,
            plate: ctx.plate ?? null,
            transparent: transparent ? set.backdrop : null,
          };
          const ch = transparent && ctx.layers!.coverage ? 4 : 3;
          const n = ctx.layers!.width * ctx.layers!.height * ch;
          const plain = new Uint8Array(n);
          compositeKernel({ ...kernelInput(job, plain), runs: null });
          const banded = new Uint8Array(n);
          const input = kernelInput(job, banded);
          const H = ctx.layers!.height;
          for (const [y0, y1] of [
            [0, 7],
            [7, Math.floor(H / 2)],
            [Math.floor(H / 2), H],
          ]) {
            compositeRows(input, y0!, y1!);
          }
          expect(Buffer.compare(Buffer.from(banded), Buffer.from(plain)), `${view} ${color} bands`).to.equal(0);
          // the WebAssembly kernel (what the backend runs), with and without runs, in bands: on the
          // planes in place in their arena (from two threads' scratch rows), and copied in without one
          expect(ctx.layers!.arena, 'the store allocates layers in an arena').to.not.equal(undefined);
          for (const [runs, arena, slot] of [
            [true, true, 0],
            [false, true, 3],
            [true, false, 0],
            [false, false, 0],
          ] as const) {
            const w = new Uint8Array(n).fill(77);
            const wi = { ...kernelInput(job, w), ...(runs ? {} : { runs: null }), ...(arena ? {} : { arena: null }) };
            wasm.compositeRows(wi, 0, 5, slot);
            wasm.compositeRows(wi, 5, H, slot);
            expect(Buffer.compare(Buffer.from(w), Buffer.from(plain)), `${view} ${color} wasm, runs ${runs}, arena ${arena}`).to.equal(0);
          }
          const pooled = await pool.composite(job);
          expect(Buffer.compare(Buffer.from(pooled.data), Buffer.from(plain)), `${view} ${color} pool`).to.equal(0);
          pool.release(pooled);
          compared++;
        }
      }
      expect(compared).to.equal(36);
    } finally {
      await pool.close();
    }
  });
});
