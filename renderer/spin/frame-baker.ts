import type { Logger } from '../../shared/logger.ts';
import { ServiceError } from '../../shared/errors.ts';
import type { AssetSetMeta, ViewMeta } from '../../shared/asset-format/read-set.ts';
import { readSpinFrame, spinFrameSetDir } from '../../shared/asset-format/spin-frames.ts';
import { spinBakeHeight, type SpinBakeWidth } from '../../shared/spin.ts';
import { frameId, type FrameId, type ShotId } from '../../shared/shot-id.ts';
import { BAKER_VERSION } from '../../baker/bake-set.ts';
import { RenderQueue } from '../render-queue.ts';
import { BakeFailure, FrameBakerChild } from './baker-child.ts';

/**
 * The frames of one set revision at one bake width, shaped like an asset set so the asset store makes
 * its levels like a view's: `dir` is the frame cache's folder, `views` the frames known so far, keyed by
 * frame id. Its revision is the set's with the bake width, so the store's level keys of two widths differ.
 */
export type FrameSet = Omit<AssetSetMeta, 'views' | 'spin'> & { views: Partial<Record<ShotId, ViewMeta>>; spin: null };

/** A frame bake's outcome, for the metrics. */
export interface BakeEvent {
  outcome: 'ok' | 'failed';
  seconds: number;
}

/** Where a frame came from, counted (metrics, tests). */
export interface SpinFrameStats {
  /** Frames found in the frame cache on disk (the studio's pre-bake, an earlier run). */
  disk: number;
  /** Frames baked here. */
  baked: number;
  failed: number;
  queued: number;
  running: number;
  queueMax: number;
}

/** How long a bake is expected to take before any was timed (lavapipe, 800 px). */
const FIRST_GUESS_MS = 4000;

/**
 * Spin frames on demand: a frame of a set revision at a bake width comes from memory (the frame sets),
 * else the frame cache on disk (readSpinFrame), else a bake by the frame-baker child. Concurrent asks
 * for the same frame share one lookup and one bake (single flight). Bakes wait in a bounded queue that
 * serves organisations in turn (RenderQueue with one slot, the child's one job at a time); a full queue
 * refuses with resource_exhausted. A bake runs to its end whoever still waits for it: its frame lands in
 * the cache, so a caller that gave up (its deadline) finds it on its retry.
 */
export class SpinFrameBaker {
  private readonly sets = new Map<string, FrameSet>();
  private readonly flights = new Map<string, Promise<ViewMeta>>();
  private readonly queue: RenderQueue;
  private readonly child: FrameBakerChild;
  private readonly listeners: ((e: BakeEvent) => void)[] = [];
  private nextJob = 1;
  private counts = { disk: 0, baked: 0, failed: 0 };
  /** Moving average of a bake's time, ms: the retry hint a caller that cannot wait is given. */
  private bakeMs = FIRST_GUESS_MS;

  constructor(
    private readonly opts: {
      framesDir: string;
      supersample: number;
      queueMax: number;
      logger: Logger;
      /** Tests: the child's module and the hang timeout. */
      child?: { entry?: string; timeoutMs?: number };
    },
  ) {
    this.queue = new RenderQueue(1, opts.queueMax);
    this.child = new FrameBakerChild({ logger: opts.logger, ...opts.child });
  }

  get framesDir(): string {
    return this.opts.framesDir;
  }

  /** The child's process id while it runs (tests). */
  get childPid(): number | undefined {
    return this.child.pid;
  }

  onBake(listener: (e: BakeEvent) => void): void {
    this.listeners.push(listener);
  }

  stats(): SpinFrameStats {
    return { ...this.counts, queued: this.queue.queued, running: this.queue.running, queueMax: this.queue.queueMax };
  }

  /** The frames of `set` at `width` (those known so far); the store makes their levels from it. */
  frameSet(set: AssetSetMeta, width: SpinBakeWidth): FrameSet {
    const key = `${set.id}@${set.revision}/${width}`;
    let fs = this.sets.get(key);
    if (!fs) {
      // a set's earlier revisions go: their frames are never asked for again
      for (const [k, v] of this.sets) if (v.id === set.id && !k.startsWith(`${set.id}@${set.revision}/`)) this.sets.delete(k);
      fs = {
        id: set.id,
        revision: `${set.revision}~spin${width}`,
        dir: spinFrameSetDir(this.opts.framesDir, set.id, set.revision, width),
        neutral: set.neutral,
        backdrop: set.backdrop,
        views: {},
        spin: null,
      };
      this.sets.set(key, fs);
    }
    return fs;
  }

  /** Seconds a caller should wait before asking again for a frame being baked now. */
  retryAfterSeconds(): number {
    const ahead = this.queue.queued + this.queue.running;
    return Math.min(60, Math.max(1, Math.ceil((ahead * this.bakeMs) / 1000)));
  }

  /**
   * The frame at `yaw` of `set` (which has a 3D source) at bake width `width`, once it is in the frame
   * cache; added to frameSet(set, width). `tenant`: the organisation, for the queue's turns.
   */
  frame(set: AssetSetMeta, yaw: number, width: SpinBakeWidth, opts: { tenant?: string } = {}): Promise<ViewMeta> {
    const fs = this.frameSet(set, width);
    const id = frameId(yaw);
    const known = fs.views[id];
    if (known) return Promise.resolve(known);
    const key = `${fs.revision}/${fs.id}/${id}`;
    let p = this.flights.get(key);
    if (!p) {
      p = this.lookUpOrBake(set, fs, id, yaw, width, opts.tenant).finally(() => this.flights.delete(key));
      this.flights.set(key, p);
    }
    return p;
  }

  private async lookUpOrBake(set: AssetSetMeta, fs: FrameSet, id: FrameId, yaw: number, width: SpinBakeWidth, tenant: string | undefined): Promise<ViewMeta> {
    const onDisk = await this.read(fs, id);
    if (onDisk) {
      this.counts.disk++;
      return (fs.views[id] = onDisk);
    }
    return this.queue.run(
      async () => {
        // baked meanwhile by another process sharing the frame cache (a studio pre-bake, another renderer)
        const late = await this.read(fs, id);
        if (late) {
          this.counts.disk++;
          return (fs.views[id] = late);
        }
        const t0 = performance.now();
        try {
          const r = await this.child.bake({
            id: this.nextJob++,
            setDir: set.dir,
            setId: set.id,
            revision: set.revision,
            yaw,
            width,
            height: spinBakeHeight(width),
            framesRoot: this.opts.framesDir,
            supersample: this.opts.supersample,
          });
          const meta = await this.read(fs, id);
          if (!meta) throw new BakeFailure(`the baked frame ${fs.dir}/${id} cannot be read back`, 'job');
          const ms = performance.now() - t0;
          this.bakeMs = this.counts.baked === 0 ? ms : 0.8 * this.bakeMs + 0.2 * ms;
          this.counts.baked++;
          this.emit({ outcome: 'ok', seconds: ms / 1000 });
          this.opts.logger.info({ set: set.id, revision: set.revision, yaw, width, ms: Math.round(ms), loadMs: Math.round(r.loadMs) }, 'spin frame baked');
          return (fs.views[id] = meta);
        } catch (e) {
          this.counts.failed++;
          this.emit({ outcome: 'failed', seconds: (performance.now() - t0) / 1000 });
          this.opts.logger.error({ set: set.id, revision: set.revision, yaw, width, reason: (e as Error).message }, 'spin frame bake failed');
          throw new ServiceError('unavailable', 'The spin frame could not be made, retry later', { cause: e });
        }
      },
      Infinity,
      { tenant },
    );
  }

  /** A frame's record from the cache on disk; null when absent, or unreadable (logged, then baked again). */
  private async read(fs: FrameSet, id: FrameId): Promise<ViewMeta | null> {
    try {
      // a frame of another baker version counts as absent: it is shot again
      return await readSpinFrame(fs.dir, id, { bakerVersion: BAKER_VERSION });
    } catch (e) {
      this.opts.logger.warn({ dir: fs.dir, frame: id, reason: (e as Error).message }, 'spin frame in the cache unreadable; baking it again');
      return null;
    }
  }

  private emit(e: BakeEvent): void {
    for (const l of this.listeners) l(e);
  }

  /** Ends the child: bakes in flight are abandoned, those waiting fail. */
  close(): Promise<void> {
    return this.child.close();
  }
}
