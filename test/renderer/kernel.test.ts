import { expect } from 'chai';
import { linearToSrgb, hexToLinear } from '../../shared/color/srgb.ts';
import { AssetStore } from '../../renderer/assets/asset-store.ts';
import { sharedU16, sharedU8 } from '../../renderer/backends/cpu/arena.ts';
import { makeLayers } from '../../renderer/assets/layers.ts';
import { CpuCompositor, kernelInput } from '../../renderer/backends/cpu/cpu-backend.ts';
import { compositeKernel, compositeRows } from '../support/reference-kernel.ts';
import { SHADED, encodeSrgb8, encodeTables } from '../../renderer/color/srgb8.ts';
import { WasmKernel } from '../../renderer/backends/cpu/wasm-kernel.ts';
import { SRGB8_TO_LINEAR } from '../../shared/color/srgb.ts';
import { VIEW_IDS } from '../../shared/views.ts';
import { TEST_SET, compositeJob, expectKernelMatch, quietLogger, testAssets } from './helpers.ts';
import { CPU_LEVEL_EXTRAS, cpuLevelExtras } from '../../renderer/backends/cpu/level-extras.ts';

/**
 * The cpu kernel's shortcuts (exact encode table, runs of active pixels, bands of rows, plate overlays)
 * against the plain formula: the JavaScript kernel byte for byte, the wasm kernel byte for byte but for
 * its single-precision fully painted pixels (expectKernelMatch).
 */
describe('cpu kernel', function () {
  this.timeout(60_000);

  it('encodes linear light to 8-bit sRGB exactly as round(255 · encode(c)), at every rounding threshold too', () => {
    const exact = (c: number) => Math.round(linearToSrgb(c) * 255);
    let seed = 12345;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
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
      for (let s = 0; s < 256; s++) {
        if (SHADED[(s << 8) | b] !== exact(SRGB8_TO_LINEAR[b]! * (1 - s / 255))) expect.fail(`SHADED[${s}, ${b}]`);
      }
    }
  });

  it('encodes single-precision values through the four-lane tables (LO16, THR32) exactly as encodeSrgb8', () => {
    const { lo16, thr32 } = encodeTables();
    const enc32 = (c: number) => {
      const e = lo16[Math.min(65535, Math.floor(c * 65536))]!;
      return e < 256 ? e : (e & 255) + (c >= thr32[e & 255]! ? 1 : 0);
    };
    const f32 = new Float32Array(1);
    const bits = new Uint32Array(f32.buffer);
    const check = (c: number) => {
      if (enc32(c) !== encodeSrgb8(c)) expect.fail(`f32 ${c}: ${enc32(c)} against ${encodeSrgb8(c)}`);
    };
    let seed = 99;
    for (let i = 0; i < 1_000_000; i++) {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      const u = seed / 2 ** 32;
      check(Math.fround(i % 2 ? u : u ** 4));
    }
    // each threshold's neighbours in single precision, and both ends
    const { thr } = encodeTables();
    for (let k = 0; k < 255; k++) {
      f32[0] = thr[k]!;
      for (let d = -3; d <= 3; d++) {
        const b = bits[0]!;
        bits[0] = b + d;
        check(f32[0]!);
        bits[0] = b;
      }
    }
    check(0);
    check(1);
    check(Math.fround(1 - 2 ** -24));
    let flagged = 0;
    for (let j = 0; j < 65536; j++) if (lo16[j]! >= 256) flagged++;
    expect(flagged, 'one bucket per threshold inside (0, 1)').to.equal(255);
  });

  it('computes fully painted pixels in the wasm kernel exactly as the formula in single precision, encoded exactly', () => {
    // fully painted runs of every length between partly painted and bare pixels, so the kernel takes
    // them four at a time (wasm/kernel.ts paintedQuad) and short of four (paintedOne) alike
    const w = 1024;
    const h = 24;
    const n = w * h;
    const paint = sharedU8(n).fill(255);
    for (let i = 0; i < n; i++) if (i % 11 === 5) paint[i] = 128;
    for (let i = 0; i < n; i++) if (i % 13 === 7) paint[i] = 0;
    const diffuse = sharedU16(n);
    const specular = sharedU16(n);
    const shadow = sharedU8(n);
    let seed = 4242;
    const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    for (let i = 0; i < n; i++) {
      diffuse[i] = Math.floor(rand() ** 2 * 65536);
      specular[i] = rand() < 0.5 ? 0 : Math.floor(rand() * 65536);
      shadow[i] = rand() < 0.3 ? Math.floor(rand() * 256) : 0;
    }
    const f = Math.fround;
    const INV16 = f(1 / 65535);
    const INV8 = f(1 / 255);
    const K = f(0.9);
    const INV_1K = f(1 / (1 - 0.9));
    const ONE_K = f(1 - 0.9);
    for (const [color, gain, floor] of [
      [[0.82, 0.09, 0.03], 1.3, 0.2],
      [[0.91, 0.91, 0.91], 1.43, 0],
      [[0.02, 0.05, 0.4], 1.8, 0.03],
    ] as [[number, number, number], number, number][]) {
      const out = sharedU8(n * 3);
      const input = {
        width: w, height: h, base: sharedU8(n * 3), paint, diffuse, specular, shadow, coverage: null, runs: null,
        shadowedBase: null, arena: null, color, neutral: [0.5, 0.5, 0.5] as [number, number, number], gain, floor,
        backdrop: null, plate: null, out,
      };
      new WasmKernel().compositeRows(input, 0, h);
      let wrong = 0;
      let shouldered = 0;
      let full = 0;
      for (let i = 0; i < n; i++) {
        if (paint[i] !== 255) continue;
        full++;
        const D = f(diffuse[i]! * INV16);
        const S = f(specular[i]! * INV16);
        const Sc = Math.max(f(S - f(floor)), 0);
        const Dc = f(f(gain) * D);
        let c = color.map((t) => f(f(f(t) * Dc) + Sc));
        const mx = Math.max(c[0]!, c[1]!, c[2]!);
        if (mx > K) {
          shouldered++;
          const x = f(f(mx - K) * INV_1K);
          const k = f(f(K + f(f(ONE_K * x) / f(1 + x))) / mx);
          c = c.map((v) => f(v * k));
        }
        if (shadow[i]) {
          const k = f(1 - f(shadow[i]! * INV8));
          c = c.map((v) => f(v * k));
        }
        for (let ch = 0; ch < 3; ch++) if (out[i * 3 + ch] !== encodeSrgb8(c[ch]!)) wrong++;
      }
      expect(wrong, `colour ${color}`).to.equal(0);
      expect(full).to.be.above(n * 0.8);
      if (color[0] > 0.9) expect(shouldered, 'the white goes over the shoulder').to.be.above(1000);
    }
  });

  it('makes runs that cover every painted pixel, and the shadowed ones too when the layers have no shadowed base; both give the formula\'s bytes', () => {
    const w = 97;
    const h = 13;
    const n = w * h;
    const paint = sharedU8(n);
    const shadow = sharedU8(n);
    const base = sharedU8(n * 3);
    const diffuse = sharedU16(n);
    const specular = sharedU16(n);
    let seed = 7;
    for (let i = 0; i < n; i++) {
      seed = (seed * 69069 + 1) >>> 0;
      if (seed % 17 === 0) paint[i] = 1 + (seed % 255);
      else if (seed % 23 === 0) shadow[i] = 1 + (seed % 200);
      base[i * 3] = seed & 255;
      base[i * 3 + 1] = (seed >> 8) & 255;
      base[i * 3 + 2] = (seed >> 16) & 255;
      diffuse[i] = seed & 0xffff;
      specular[i] = (seed >> 16) & 0x3fff;
    }
    const planes = { width: w, height: h, base, paint, diffuse, specular, shadow, coverage: null };
    for (const withShadowedBase of [true, false]) {
      const layers = makeLayers('runs', planes, cpuLevelExtras({ shadowedBase: withShadowedBase }));
      expect(layers.shadowedBase !== undefined, 'shadowed base made').to.equal(withShadowedBase);
      const { rowStart, xs } = layers.runs!;
      let shadowOnlyOutside = 0;
      for (let y = 0; y < h; y++) {
        const inRun = new Uint8Array(w);
        for (let r = rowStart[y]!; r < rowStart[y + 1]!; r++) {
          expect(xs[2 * r]!).to.be.below(xs[2 * r + 1]!);
          if (r > rowStart[y]!) expect(xs[2 * r]!, 'runs sorted and apart').to.be.above(xs[2 * r - 1]!);
          for (let x = xs[2 * r]!; x < xs[2 * r + 1]!; x++) inRun[x] = 1;
        }
        for (let x = 0; x < w; x++) {
          const i = y * w + x;
          if (paint[i] || (!withShadowedBase && shadow[i])) expect(inRun[x], `pixel ${x},${y}`).to.equal(1);
          if (!paint[i] && shadow[i] && !inRun[x]) shadowOnlyOutside++;
        }
      }
      // with a shadowed base the runs leave shadow-only pixels out (that is the point of it)
      if (withShadowedBase) expect(shadowOnlyOutside).to.be.above(0);
      const job = { layers, color: hexToLinear('#C41E3A'), neutral: [0.7, 0.7, 0.72] as [number, number, number], calibration: { diffuseGain: 1.8, specularFloor: 0.03 }, shadow: true, plate: null, transparent: null };
      const reference = new Uint8Array(n * 3);
      compositeKernel({ ...kernelInput(job, reference), runs: null, shadowedBase: null });
      const viaRuns = new Uint8Array(n * 3).fill(9);
      compositeKernel(kernelInput(job, viaRuns));
      expect(Buffer.compare(Buffer.from(viaRuns), Buffer.from(reference)), `JavaScript kernel, shadowed base ${withShadowedBase}`).to.equal(0);
      const wasmOut = new Uint8Array(n * 3).fill(9);
      new WasmKernel().compositeRows(kernelInput(job, wasmOut), 0, h);
      expectKernelMatch(wasmOut, reference, paint, 3, `wasm kernel, shadowed base ${withShadowedBase}`);
    }
  });

  it('gives the same bytes with runs, bands and the shadowed base as the formula over every pixel, in WebAssembly, and as the worker pool', async () => {
    const wasm = new WasmKernel();
    const store = new AssetStore({ dir: await testAssets(), cacheBytes: 128 * 1024 * 1024, logger: quietLogger, levelExtras: CPU_LEVEL_EXTRAS });
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
          const job = await compositeJob(store, pool, set, { view, color, shadow, plate, transparent, width: 480 });
          const ch = transparent && job.layers.coverage ? 4 : 3 as 3 | 4;
          const n = job.layers.width * job.layers.height * ch;
          const plain = new Uint8Array(n);
          // the reference: every pixel through the formula, the shadow applied per pixel (no shadowed base)
          compositeKernel({ ...kernelInput(job, plain), runs: null, shadowedBase: null });
          const banded = new Uint8Array(n);
          const input = kernelInput(job, banded);
          const H = job.layers.height;
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
          expect(job.layers.arena, 'the store allocates layers in an arena').to.not.equal(undefined);
          for (const [runs, arena, slot, preShadowed] of [
            [true, true, 0, true],
            [false, true, 3, true],
            [true, false, 0, true],
            [false, false, 0, true],
            [false, true, 0, false],
            [false, false, 0, false],
          ] as const) {
            const w = new Uint8Array(n).fill(77);
            const wi = {
              ...kernelInput(job, w),
              ...(runs ? {} : { runs: null }),
              ...(arena ? {} : { arena: null }),
              ...(preShadowed ? {} : { shadowedBase: null }),
            };
            wasm.compositeRows(wi, 0, 5, slot);
            wasm.compositeRows(wi, 5, H, slot);
            expectKernelMatch(w, plain, job.layers.paint, ch, `${view} ${color} wasm, runs ${runs}, arena ${arena}, shadowed base ${preShadowed}`);
          }
          const pooled = await pool.composite(job);
          expectKernelMatch(pooled.data, plain, job.layers.paint, ch, `${view} ${color} pool`);
          pool.release(pooled);
          compared++;
        }
      }
      expect(compared).to.equal(36);
    } finally {
      await pool.close();
    }
  });

  it('reuses output pictures from render to render and gives the same bytes: plate moved or gone, shadow on and off, in workers and inline', async () => {
    const store = new AssetStore({ dir: await testAssets(), cacheBytes: 128 * 1024 * 1024, logger: quietLogger, levelExtras: CPU_LEVEL_EXTRAS });
    const set = await store.getSet(TEST_SET);
    for (const inlineMaxPixels of [0, 1 << 30]) {
      const pool = await CpuCompositor.create({ workers: 2, logger: quietLogger, inlineMaxPixels });
      try {
        const view = VIEW_IDS.find((v) => set.views[v]!.plateQuad && set.views[v]!.shadow)!;
        expect(view, 'the test set has a view with a plate quad and a shadow').to.be.a('string');
        const jobOf = (color: string, shadow: boolean, plate: string | null) => compositeJob(store, pool, set, { view, color, shadow, plate, transparent: false, width: 480 });
        // in order: a plate, then none (its box must be put back), a long plate, shadow off (another start), on again
        const renders: [string, boolean, string | null][] = [
          ['#C41E3A', true, 'AB 1234'],
          ['#1E4B8C', true, null],
          ['#F5F5F5', true, 'WWWWWWWW 88'],
          ['#2E7D32', false, 'K 1'],
          ['#FFD400', true, null],
          ['#1A1A1A', true, 'XY-98 ÄÖ'],
        ];
        // the JavaScript kernel on one buffer, reused without clearing, as the compositor reuses its pictures
        let js: Uint8Array | null = null;
        for (const [color, shadow, plate] of renders) {
          const job = await jobOf(color, shadow, plate);
          const reference = new Uint8Array(job.layers.width * job.layers.height * 3);
          compositeKernel({ ...kernelInput(job, reference), runs: null, shadowedBase: null });
          js ??= new Uint8Array(reference.length);
          compositeKernel(kernelInput(job, js));
          expect(Buffer.compare(Buffer.from(js), Buffer.from(reference)), `JavaScript kernel: ${color} shadow ${shadow} plate ${plate}`).to.equal(0);
          const got = await pool.composite(job);
          expectKernelMatch(got.data, reference, job.layers.paint, 3, `${color} shadow ${shadow} plate ${plate}, inline ${inlineMaxPixels > 0}`);
          pool.release(got);
        }
      } finally {
        await pool.close();
      }
    }
  });
});
