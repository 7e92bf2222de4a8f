import fs from 'node:fs';
import { SRGB8_TO_LINEAR } from '../../color/srgb.ts';
import { generalRow, transparentRange, type KernelInput } from './kernel.ts';
import { SHADED, encodeTables } from './srgb8.ts';

/** The compiled kernel (wasm/kernel.ts, `npm run build:kernel`), beside this module in the source tree and in dist/. */
export const KERNEL_WASM_URL = new URL('./wasm/kernel.wasm', import.meta.url);

/** The project's lib (ES2023, no DOM) has no WebAssembly types: the little used here. */
interface WasmGlobal {
  value: number;
}
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: object };
};

interface Exports {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  LO: WasmGlobal;
  THR: WasmGlobal;
  LIN: WasmGlobal;
  SHADED: WasmGlobal;
  SCRATCH: WasmGlobal;
  setup(tr: number, tg: number, tb: number, nr: number, ng: number, nb: number, gain: number, floor: number): void;
  opaqueSpan(n: number, pm: number, ps: number, pd: number, pq: number, rgb: number): void;
  transparentSpan(n: number, pc: number, pm: number, ps: number, pd: number, pq: number, rgb: number, out: number, gr: number, gg: number, gb: number): void;
}

/**
 * The cpu backend's kernel: ./kernel.ts `compositeRows` with the opaque rows' runs (the hot part:
 * paint and shadow on the studio backdrop) computed by WebAssembly. The layers stay in their
 * SharedArrayBuffers; per row, the span from its first run's start to its last run's end is copied
 * into this instance's own memory (one memcpy a plane, cache-hot afterwards), composited there, and
 * its RGB copied back into the output. With the transparent background every pixel of the row is
 * computed (the same way, whole rows). Rows the plate crosses get the plate's box again in JavaScript
 * (kernel.ts, the whole formula with the plate), which is a few thousand pixels.
 * One instance per thread; loading it throws, loudly, if the module is missing or broken.
 */
export class WasmKernel {
  private readonly x: Exports;
  private readonly scratch: number;
  private cap = 0;
  private mem8!: Uint8Array;
  private mem16!: Uint16Array;
  private pm = 0;
  private ps = 0;
  private pd = 0;
  private pq = 0;
  private rgb = 0;
  private pc = 0;
  private rgba = 0;

  constructor(bytes: Uint8Array = fs.readFileSync(KERNEL_WASM_URL)) {
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { abort: wasmAbort } });
    this.x = instance.exports as unknown as Exports;
    this.scratch = this.x.SCRATCH.value;
    this.ensure(4096);
    const { lo, thr } = encodeTables();
    const u8 = new Uint8Array(this.x.memory.buffer);
    const f64 = new Float64Array(this.x.memory.buffer);
    u8.set(lo, this.x.LO.value);
    f64.set(thr, this.x.THR.value / 8);
    f64.set(SRGB8_TO_LINEAR, this.x.LIN.value / 8);
    u8.set(SHADED, this.x.SHADED.value);
  }

  /** Room in the scratch for a span of `n` pixels: paint, shadow, coverage (u8), diffuse, specular (u16), RGB, RGBA. */
  private ensure(n: number): void {
    if (n <= this.cap) return;
    const cap = Math.ceil(n / 64) * 64;
    const need = this.scratch + cap * 14;
    const mem = this.x.memory;
    if (need > mem.buffer.byteLength) mem.grow(Math.ceil((need - mem.buffer.byteLength) / 65536));
    this.cap = cap;
    this.pd = this.scratch;
    this.pq = this.pd + cap * 2;
    this.pm = this.pq + cap * 2;
    this.ps = this.pm + cap;
    this.rgb = this.ps + cap;
    this.pc = this.rgb + cap * 3;
    this.rgba = this.pc + cap;
    this.mem8 = new Uint8Array(mem.buffer);
    this.mem16 = new Uint16Array(mem.buffer);
  }

  /** Rows [y0, y1) of the picture, the same bytes as kernel.ts `compositeRows`. */
  compositeRows(k: KernelInput, y0: number, y1: number): void {
    this.x.setup(k.color[0], k.color[1], k.color[2], k.neutral[0], k.neutral[1], k.neutral[2], k.gain, k.floor);
    if (k.backdrop !== null && k.coverage !== null) this.transparentRows(k, y0, y1);
    else this.opaqueRows(k, y0, y1);
  }

  /** Every pixel of each row (coverage has no runs); the plate's pixels again in JavaScript. */
  private transparentRows(k: KernelInput, y0: number, y1: number): void {
    const { width, height, base, paint, diffuse, specular, shadow, out } = k;
    const coverage = k.coverage!;
    const bd = k.backdrop!;
    this.ensure(width);
    const { mem8, mem16, pm, pd, pq, rgb, pc, rgba } = this;
    const ps = shadow === null ? 0 : this.ps;
    const pb = k.plate ? k.plate.bbox : null;
    for (let y = y0; y < y1; y++) {
      const i0 = y * width;
      const i1 = i0 + width;
      mem8.set(coverage.subarray(i0, i1), pc);
      mem8.set(paint.subarray(i0, i1), pm);
      if (shadow !== null) mem8.set(shadow.subarray(i0, i1), ps);
      mem16.set(diffuse.subarray(i0, i1), pd >> 1);
      mem16.set(specular.subarray(i0, i1), pq >> 1);
      mem8.set(base.subarray(i0 * 3, i1 * 3), rgb);
      // the backdrop at this row, as kernel.ts transparentRange computes it
      const t = height > 1 ? y / (height - 1) : 0;
      const gr = bd.top[0] + (bd.bottom[0] - bd.top[0]) * t;
      const gg = bd.top[1] + (bd.bottom[1] - bd.top[1]) * t;
      const gb = bd.top[2] + (bd.bottom[2] - bd.top[2]) * t;
      this.x.transparentSpan(width, pc, pm, ps, pd, pq, rgb, rgba, gr, gg, gb);
      out.set(mem8.subarray(rgba, rgba + width * 4), i0 * 4);
      if (pb !== null && y >= pb[1] && y < pb[3] && pb[0] < pb[2]) transparentRange(k, y, pb[0], pb[2]);
    }
  }

  private opaqueRows(k: KernelInput, y0: number, y1: number): void {
    const { width, base, paint, diffuse, specular, shadow, out } = k;
    this.ensure(width);
    const x = this.x;
    const { mem8, mem16, pm, pd, pq, rgb } = this;
    const ps = shadow === null ? 0 : this.ps;
    const pb = k.plate ? k.plate.bbox : null;
    const rowStart = k.runs ? k.runs.rowStart : null;
    const xs = k.runs ? k.runs.xs : null;
    // out is the base outside the spans: copied between one span's end and the next one's start
    // (contiguous across rows), so the spans' pixels are read and written once
    let done = y0 * width;
    const copyBase = (to: number) => {
      if (to > done) out.set(base.subarray(done * 3, to * 3), done * 3);
      done = to;
    };
    for (let y = y0; y < y1; y++) {
      const row = y * width;
      let a = 0;
      let b = width;
      if (rowStart !== null && xs !== null) {
        const r0 = rowStart[y]!;
        const r1 = rowStart[y + 1]!;
        a = r0 < r1 ? xs[2 * r0]! : 0;
        b = r0 < r1 ? xs[2 * r1 - 1]! : 0;
      }
      if (a < b) {
        const i0 = row + a;
        const i1 = row + b;
        const n = b - a;
        copyBase(i0);
        mem8.set(paint.subarray(i0, i1), pm);
        if (shadow !== null) mem8.set(shadow.subarray(i0, i1), ps);
        mem16.set(diffuse.subarray(i0, i1), pd >> 1);
        mem16.set(specular.subarray(i0, i1), pq >> 1);
        mem8.set(base.subarray(i0 * 3, i1 * 3), rgb);
        x.opaqueSpan(n, pm, ps, pd, pq, rgb);
        out.set(mem8.subarray(rgb, rgb + n * 3), i0 * 3);
        done = i1;
      }
      if (pb !== null && y >= pb[1] && y < pb[3] && pb[0] < pb[2]) {
        copyBase(row + width); // the plate's box may reach beyond the span
        generalRow(k, y, pb[0], pb[2]);
      }
    }
    copyBase(y1 * width);
  }
}

function wasmAbort(): never {
  throw new Error('cpu kernel (wasm) aborted');
}
