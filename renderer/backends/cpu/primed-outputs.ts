import type { BufferPool } from './buffer-pool.ts';

export type PlateBox = [number, number, number, number];

export interface Taken {
  out: Uint8Array;
  start: number;
  primed: { box: PlateBox | null } | null;
}

/**
 * Output pictures that still hold what their last opaque render started from (the base or the shadowed
 * base, kernel.ts `opaqueRows`) outside its runs, and where that render's plate went. A render of the
 * same start takes such a buffer from the pool first and skips copying its start (about 2/3 of a
 * 2400 px picture's 9.7 MB); only the old plate box is put back (kernel.ts `restoreBox`).
 */
export class PrimedOutputs {
  /** What a pooled buffer holds: the start's id and the last plate box. */
  private readonly held = new WeakMap<Uint8Array, { start: number; box: PlateBox | null }>();
  /** An id per start plane, weakly held, so no evicted layers are pinned by a pooled buffer. */
  private readonly startIds = new WeakMap<Uint8Array, number>();
  private nextStartId = 1;
  private primedCount = 0;

  /** `enabled` false: every buffer is handed out as holding nothing known (mechanisms.ts `primed`). */
  constructor(
    private readonly pool: BufferPool,
    private readonly enabled = true,
  ) {}

  /**
   * A buffer of `bytes` for a render starting from `startPlane` (null: nothing to reuse, a transparent
   * picture or an unknown start). `primed`: it holds that start outside the runs, except in `box`.
   * Until `done`, the buffer counts as holding nothing known (a failed composite is never trusted).
   */
  take(bytes: number, startPlane: Uint8Array | null): Taken {
    const start = this.startId(startPlane);
    return this.claim(this.pool.take(bytes, start ? (b) => this.held.get(b)?.start === start : undefined), start);
  }

  /** `take`, but of a given buffer (the layers' own output picture, LayerArena.output), primed when it holds that start. */
  adopt(out: Uint8Array, startPlane: Uint8Array | null): Taken {
    return this.claim(out, this.startId(startPlane));
  }

  private startId(startPlane: Uint8Array | null): number {
    if (startPlane === null || !this.enabled) return 0;
    const start = this.startIds.get(startPlane) ?? this.nextStartId++;
    this.startIds.set(startPlane, start);
    return start;
  }

  private claim(out: Uint8Array, start: number): Taken {
    const last = this.held.get(out);
    this.held.delete(out);
    if (start && last?.start === start) {
      this.primedCount++;
      return { out, start, primed: { box: last.box } };
    }
    return { out, start, primed: null };
  }

  /** The composite into `out` finished: it holds `start` outside the runs and the plate in `box`. */
  done(out: Uint8Array, start: number, box: PlateBox | null): void {
    if (start) this.held.set(out, { start, box: box ? [...box] : null });
  }

  /** Buffers handed out primed (tests). */
  get primedTakes(): number {
    return this.primedCount;
  }
}
