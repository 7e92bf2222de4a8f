import { Worker } from 'node:worker_threads';
import type { Logger } from '../../../shared/logger.ts';
import { sharedU8 } from '../../assets/layers.ts';
import type { CompositeJob, Compositor, RgbImage } from '../backend.ts';
import { compositeKernel, type KernelInput } from './kernel.ts';

interface Slot {
  worker: Worker;
  busy: boolean;
}
interface Pending {
  input: KernelInput;
  resolve: () => void;
  reject: (e: Error) => void;
}

export function kernelInput(job: CompositeJob, out: Uint8Array): KernelInput {
  const l = job.layers;
  return {
    width: l.width,
    height: l.height,
    base: l.base,
    paint: l.paint,
    diffuse: l.diffuse,
    specular: l.specular,
    shadow: job.shadow ? l.shadow : null,
    coverage: job.transparent ? l.coverage : null,
    color: job.color,
    neutral: job.neutral,
    gain: job.calibration.diffuseGain,
    floor: job.calibration.specularFloor,
    backdrop: job.transparent && l.coverage ? job.transparent : null,
    plate: job.plate
      ? {
          data: job.plate.tex.data,
          tw: job.plate.tex.tw,
          th: job.plate.tex.th,
          pw: job.plate.tex.pw,
          ph: job.plate.tex.ph,
          pad: job.plate.tex.pad,
          hinv: [...job.plate.hinv],
          bbox: job.plate.bbox,
        }
      : null,
    out,
  };
}

/**
 * The cpu backend: the kernel runs in a pool of worker threads (one per core by default) on
 * SharedArrayBuffers, so the event loop stays free and nothing is copied. `workers: 0` runs inline.
 */
export class CpuCompositor implements Compositor {
  readonly name = 'cpu' as const;
  readonly description: string;
  private readonly slots: Slot[] = [];
  private readonly waiting: Pending[] = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  private constructor(
    private readonly size: number,
    private readonly logger: Logger,
  ) {
    this.description = size > 0 ? `cpu kernel in ${size} worker thread(s)` : 'cpu kernel inline';
  }

  static async create(opts: { workers: number; logger: Logger }): Promise<CpuCompositor> {
    const c = new CpuCompositor(Math.max(0, opts.workers), opts.logger);
    await Promise.all(Array.from({ length: c.size }, () => c.spawn()));
    return c;
  }

  private spawn(): Promise<void> {
    return new Promise((resolve, reject) => {
      // compiled (container image): the worker's .js directly; from source: boot.mjs registers tsx first
      const worker = import.meta.url.endsWith('.js')
        ? new Worker(new URL('./worker.js', import.meta.url))
        : new Worker(new URL('./boot.mjs', import.meta.url), { workerData: { entry: new URL('./worker.ts', import.meta.url).href } });
      const slot: Slot = { worker, busy: false };
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
          this.spawn().catch(() => undefined);
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
      slot.worker.postMessage({ id, input: job.input });
    }
  }

  async composite(job: CompositeJob): Promise<RgbImage> {
    const { width, height } = job.layers;
    const alpha = Boolean(job.transparent && job.layers.coverage);
    const channels = alpha ? 4 : 3;
    const out = sharedU8(width * height * channels);
    const input = kernelInput(job, out);
    if (this.size === 0) {
      compositeKernel(input);
    } else {
      if (this.closed) throw new Error('cpu compositor closed');
      await new Promise<void>((resolve, reject) => {
        this.waiting.push({ input, resolve, reject });
        this.pump();
      });
    }
    return { width, height, data: out, channels, alpha };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.waiting.splice(0)) p.reject(new Error('cpu compositor closed'));
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }
}
