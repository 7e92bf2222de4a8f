import { Worker } from 'node:worker_threads';
import type { Logger } from '../../../shared/logger.ts';
import type { CompositeJob, Compositor, RgbImage } from '../backend.ts';
import type { PlateTexture } from '../../plate/plate-raster.ts';
import { ForcedGc } from '../../cache/forced-gc.ts';
import { ARENA_SLOTS } from './arena.ts';
import { levelExtrasFor } from './level-extras.ts';
import { ALL_CPU_MECHANISMS, type CpuMechanisms } from './mechanisms.ts';
import type { LevelExtras } from '../../assets/level-extras.ts';
import { BufferPool } from './buffer-pool.ts';
import { plateOverlay } from './plate-overlay.ts';
import { rowBands } from './bands.ts';

/** Bytes of pictures dropped from the pool after which the workers are asked to collect. */
const COLLECT_AFTER_DROPPED = 64 * 1024 * 1024;
import type { KernelInput } from './kernel.ts';
import { WasmKernel } from './wasm-kernel.ts';

/** Encoded-and-released output pictures kept for reuse (BufferPool): a few 2400 px pictures. */
export const OUTPUT_POOL_BYTES = 48 * 1024 * 1024;

interface Slot {
  worker: Worker;
  busy: boolean;
  /** The worker's scratch row in the layers' arenas (arena.ts ARENA_SLOTS; 0 is the main thread's). */
  index: number;
}
interface Pending {
  input: KernelInput;
  /** The band of rows [y0, y1) this job composites. */
  y0: number;
  y1: number;
  resolve: () => void;
  reject: (e: Error) => void;
}

/** Plate rasters copied once into shared memory, so every band's message carries a reference, not a copy. */
const sharedPlates = new WeakMap<PlateTexture, Float32Array>();
function sharedPlate(tex: PlateTexture): Float32Array {
  if (tex.data.buffer instanceof SharedArrayBuffer) return tex.data;
  let d = sharedPlates.get(tex);
  if (!d) {
    d = new Float32Array(new SharedArrayBuffer(tex.data.byteLength));
    d.set(tex.data);
    sharedPlates.set(tex, d);
  }
  return d;
}

/** Rows of picture a band has, at least, when deciding how many bands: below this the message round trip costs more than the rows. */
const MIN_BAND_ROWS = 48;

/**
 * Pictures up to this many pixels (a 600 × 338 level and smaller, such as the 400 px level of a
 * 400 px render) are composited on the calling thread: about a millisecond in the wasm kernel, less CPU than
 * handing two bands to the workers and back (messages, a wake-up each side). Measured with the bench
 * at 400 px, side by side: CPU per miss over CPU per encode 1.42–1.45 inline against 1.54–1.67 in
 * the workers (png), 1.61–1.62 against 1.80–1.82 (jpeg) (docs/performance-renderer.md).
 */
const INLINE_MAX_PIXELS = 256 * 1024;

/**
 * Opaque pictures up to this many pixels (a 2400 × 1350 level and a little more: about 5 ms of the
 * main thread at most) are composited on the calling thread too when the render is alone (`alone`: no
 * other render running or waiting). Measured on the development machine (2 vCPU) with two workers
 * against inline, the same levels alternately (docs/performance-renderer.md, "Sixth pass"): a
 * 2400 px composite took as long in wall time either way (4.46 against 4.43 ms) and 40 % more CPU
 * in the workers (6.61 against 4.65 ms; two threads at once run slower there), a 1600 px one 2.50
 * against 1.70 ms wall. With other renders about, the workers take the composites, so that the main
 * thread (gRPC, cache hits, level building) never becomes what limits a busy renderer. Transparent
 * pictures compute every pixel (30–90 ms at 2400 px) and always go to the workers above
 * INLINE_MAX_PIXELS.
 */
const ALONE_INLINE_MAX_PIXELS = 4 * 1024 * 1024;

export function kernelInput(job: CompositeJob, out: Uint8Array): KernelInput {
  const l = job.layers;
  const transparent = Boolean(job.transparent && l.coverage);
  const plate = job.plate
    ? {
        data: sharedPlate(job.plate.tex),
        tw: job.plate.tex.tw,
        th: job.plate.tex.th,
        pw: job.plate.tex.pw,
        ph: job.plate.tex.ph,
        pad: job.plate.tex.pad,
        hinv: [...job.plate.hinv],
        bbox: job.plate.bbox,
      }
    : null;
  return {
    runs: l.runs ?? null,
    arena: l.arena ?? null,
    width: l.width,
    height: l.height,
    base: l.base,
    paint: l.paint,
    diffuse: l.diffuse,
    specular: l.specular,
    shadow: job.shadow ? l.shadow : null,
    shadowedBase: job.shadow && l.shadow ? (l.shadowedBase ?? null) : null,
    coverage: job.transparent ? l.coverage : null,
    color: job.color,
    neutral: job.neutral,
    gain: job.calibration.diffuseGain,
    floor: job.calibration.specularFloor,
    backdrop: transparent ? job.transparent : null,
    // the opaque rows take the plate from its overlay (the wasm kernel; kernel.ts samples it per pixel)
    plate: plate && !transparent ? { ...plate, overlay: plateOverlay(l.base, l.width, plate) } : plate,
    out,
    outInArena: !transparent && out === l.arena?.output,
    edges: transparent ? null : (l.arena?.edges ?? null),
  };
}

/**
 * The cpu backend: the kernel runs in a pool of worker threads (one per core by default) on
 * SharedArrayBuffers, so the event loop stays free and nothing is copied; each picture is split into
 * one band of rows per worker, written straight into the buffer sharp encodes. `workers: 0` runs inline.
 */
export class CpuCompositor implements Compositor {
  readonly name = 'cpu' as const;
  readonly levelExtras: LevelExtras;
  readonly description: string;
  private readonly slots: Slot[] = [];
  private readonly waiting: Pending[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;
  private readonly pool = new BufferPool(OUTPUT_POOL_BYTES);
  /** Pictures dropped from the pool are shared memory the main thread lets go of too. */
  private readonly forcedGc = new ForcedGc();
  private droppedSinceCollect = 0;
  private collectScheduled = false;
  /** The main thread's own kernel (inline compositing); loaded at create, so a broken module fails the start. */
  private readonly inline = new WasmKernel();

  private constructor(
    private readonly size: number,
    private readonly logger: Logger,
    private readonly inlineMaxPixels: number,
    private readonly alone: () => boolean,
    private readonly mechanisms: CpuMechanisms,
  ) {
    this.levelExtras = levelExtrasFor(mechanisms);
    this.description = size > 0 ? `cpu kernel (wasm) in ${size} worker thread(s)` : 'cpu kernel (wasm) inline';
  }

  /**
   * `inlineMaxPixels`: pictures up to this size are composited on the calling thread (default
   * INLINE_MAX_PIXELS; tests pass 0 to use the workers). `alone`: whether the render at hand is the
   * only one running or waiting (the renderer's queue); then pictures up to ALONE_INLINE_MAX_PIXELS
   * are composited inline too. Without it, never. `mechanisms`: all on unless a benchmark turns
   * some off (mechanisms.ts).
   */
  static async create(opts: { workers: number; logger: Logger; inlineMaxPixels?: number; alone?: () => boolean; mechanisms?: CpuMechanisms }): Promise<CpuCompositor> {
    // each worker has its own scratch row in every layers arena (slot 0 is the main thread's)
    const workers = Math.min(Math.max(0, opts.workers), ARENA_SLOTS - 1);
    if (workers < opts.workers) opts.logger.warn({ asked: opts.workers, workers }, 'cpu workers capped by the layers arenas\' scratch rows');
    const m = opts.mechanisms ?? ALL_CPU_MECHANISMS;
    const c = new CpuCompositor(workers, opts.logger, m.inline ? (opts.inlineMaxPixels ?? INLINE_MAX_PIXELS) : 0, m.inline && opts.alone ? opts.alone : () => false, m);
    await Promise.all(Array.from({ length: c.size }, (_, i) => c.spawn(i + 1)));
    return c;
  }

  private spawn(index: number): Promise<void> {
    return new Promise((resolve, reject) => {
      // compiled (container image): the worker's .js directly; from source: boot.mjs registers tsx first
      const worker = import.meta.url.endsWith('.js')
        ? new Worker(new URL('./worker.js', import.meta.url))
        : new Worker(new URL('./boot.mjs', import.meta.url), { workerData: { entry: new URL('./worker.ts', import.meta.url).href } });
      const slot: Slot = { worker, busy: false, index };
      let ready = false;
      worker.on('message', (m: { ready?: boolean; id?: number; ok?: boolean; error?: string }) => {
        if (m.ready) {
          ready = true;
          this.slots.push(slot);
          resolve();
          this.pump();
          return;
        }
        const p = this.pending.get(m.id!);
        this.pending.delete(m.id!);
        slot.busy = false;
        if (p) {
          if (m.ok) p.resolve();
          else p.reject(new Error(m.error));
        }
        this.pump();
      });
      worker.on('error', (e) => {
        this.logger.error({ err: e }, 'cpu worker failed');
        if (!ready) reject(e);
      });
      worker.on('exit', (code) => {
        const i = this.slots.indexOf(slot);
        if (i >= 0) this.slots.splice(i, 1);
        if (!this.closed) {
          this.logger.error({ code }, 'cpu worker exited, replacing it');
          for (const [id, p] of this.pending) {
            if ((p as Pending & { slot?: Slot }).slot === slot) {
              this.pending.delete(id);
              p.reject(new Error('cpu worker exited'));
            }
          }
          this.spawn(index).catch(() => undefined);
        }
      });
    });
  }

  private pump(): void {
    for (const slot of this.slots) {
      if (slot.busy) continue;
      const job = this.waiting.shift();
      if (!job) return;
      const id = this.nextId++;
      slot.busy = true;
      this.pending.set(id, Object.assign(job, { slot }));
      slot.worker.postMessage({ id, input: job.input, y0: job.y0, y1: job.y1, slot: slot.index });
    }
  }

  async composite(job: CompositeJob): Promise<RgbImage> {
    const { width, height } = job.layers;
    const alpha = Boolean(job.transparent && job.layers.coverage);
    const channels = alpha ? 4 : 3;
    // an opaque picture goes into its layers' own output picture when no other render holds it
    // (the wasm kernel then writes it in place), else into a pooled buffer
    const own = alpha ? null : (job.layers.arena?.output ?? null);
    const lend = own !== null && !this.lent.has(own);
    const out = lend ? own : this.pool.take(width * height * channels);
    if (lend) this.lent.set(own, null);
    try {
      const img = await this.compositeInto(job, out, alpha);
      if (lend) this.lent.set(own, img);
      return img;
    } catch (e) {
      if (lend) this.lent.delete(own);
      throw e;
    }
  }

  private async compositeInto(job: CompositeJob, out: Uint8Array, alpha: boolean): Promise<RgbImage> {
    const { width, height } = job.layers;
    const input = kernelInput(job, out);
    if (!this.mechanisms.plateOverlay && input.plate) input.plate = { ...input.plate, overlay: null };
    // the level palette's colours once, here, for every band, in a slot held until the composite ends
    const palette = alpha || !this.mechanisms.palette ? null : (job.layers.arena?.palette ?? null);
    const slot = palette === null ? null : (palette.colours.find((c) => !this.lentColours.has(c)) ?? null);
    if (slot !== null && this.inline.paletteColours(input, slot)) {
      this.lentColours.add(slot);
      this.paletteCount++;
    }
    try {
      await this.run(input, alpha);
    } finally {
      if (slot !== null) this.lentColours.delete(slot);
    }
    return { width, height, data: out, channels: alpha ? 4 : 3, alpha };
  }

  /** Palette colour slots (LevelPalette.colours) held by composites in progress. */
  private readonly lentColours = new WeakSet<Uint8Array>();

  /** The kernel over the whole picture: inline, or in bands on the workers. */
  private async run(input: KernelInput, alpha: boolean): Promise<void> {
    const { width, height } = input;
    const pixels = width * height;
    if (this.size === 0 || pixels <= this.inlineMaxPixels || (!alpha && pixels <= ALONE_INLINE_MAX_PIXELS && this.alone())) {
      this.inlineCount++;
      this.inline.compositeRows(input, 0, height);
    } else {
      if (this.closed) throw new Error('cpu compositor closed');
      // one band of rows per worker: a render uses every core, and concurrent renders interleave
      const count = Math.max(1, Math.min(this.size, Math.floor(height / MIN_BAND_ROWS)));
      const bands = await Promise.allSettled(
        rowBands(height, count).map(([y0, y1]) => {
          return new Promise<void>((resolve, reject) => {
            this.waiting.push({ input, y0, y1, resolve, reject });
            this.pump();
          });
        }),
      );
      // every band settled first: none still writes into a picture (or reads palette colours) the next render may be lent
      for (const b of bands) if (b.status === 'rejected') throw b.reason;
    }
  }

  private paletteCount = 0;
  /** Composites that took fully painted pixels from their level's palette (tests). */
  get paletteComposites(): number {
    return this.paletteCount;
  }

  private inlineCount = 0;
  /** Composites run on the calling thread (tests). */
  get inlineComposites(): number {
    return this.inlineCount;
  }

  /**
   * Layers' own output pictures (LayerArena.output) a render holds, from its composite until its
   * picture is released: the picture it holds them with (null while compositing), so that only that
   * picture's release gives them back. This state and the palette slots' are
   * this compositor's: a renderer has one cpu compositor over its asset store.
   */
  private readonly lent = new WeakMap<Uint8Array, RgbImage | null>();

  release(img: RgbImage): void {
    const holder = this.lent.get(img.data);
    if (holder !== undefined) {
      // a stale or second release of an earlier picture leaves the later holder's loan alone
      if (holder === img) this.lent.delete(img.data);
      return;
    }
    const dropped = this.pool.give(img.data);
    if (dropped > 0) {
      this.forcedGc.note(dropped);
      this.droppedSinceCollect += dropped;
      if (this.droppedSinceCollect >= COLLECT_AFTER_DROPPED) this.collectWorkersSoon();
    }
  }

  /**
   * Layers left the asset cache: every thread drops its kernel instance on their arena (which holds
   * the arena's memory), and the workers collect (worker.ts), so the memory is freed.
   */
  forget(layersKey: string): void {
    this.inline.forget(layersKey);
    for (const s of this.slots) s.worker.postMessage({ forget: layersKey });
    this.collectWorkersSoon();
  }

  private collectWorkersSoon(): void {
    if (this.collectScheduled) return;
    this.collectScheduled = true;
    this.droppedSinceCollect = 0;
    setImmediate(() => {
      this.collectScheduled = false;
      for (const s of this.slots) s.worker.postMessage({ collect: true });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.waiting.splice(0)) p.reject(new Error('cpu compositor closed'));
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
    // bands a terminated worker never finished: their composites wait for every band (run), so fail them
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.reject(new Error('cpu compositor closed'));
    }
  }
}
