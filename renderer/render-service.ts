import crypto from 'node:crypto';
import type { Logger } from '../shared/logger.ts';
import { ServiceError, toServiceError } from '../shared/errors.ts';
import { normaliseRenderRequest, type RenderRequest, type RenderWarningCode } from '../shared/render-request.ts';
import type { AssetStore, ShotSet } from './assets/asset-store.ts';
import type { AssetSetMeta, Quad, ViewMeta } from '../shared/asset-format/read-set.ts';
import { spinBakeHeight, spinBakeWidth, SPIN_GEOMETRY_HEIGHT, SPIN_GEOMETRY_WIDTH } from '../shared/spin.ts';
import { frameYaw, isFrameId, type FrameId } from '../shared/shot-id.ts';
import type { SpinFrameBaker } from './spin/frame-baker.ts';
import type { SpinGeometry } from './spin/spin-geometry.ts';
import { VehicleBoxes, type VehicleGeometry } from './assets/vehicle-boxes.ts';
import { frameGeometry, isDefaultFraming, type Box, type FrameGeometry, type FramingOptions } from '../shared/framing.ts';
import type { Compositor } from './backends/backend.ts';
import { SingleFlightCache } from './cache/render-cache.ts';
import { ENCODER_TAG, type Encoded } from './encode/encode.ts';
import { runPipeline } from './pipeline/pipeline.ts';
import type { RenderContext } from './pipeline/context.ts';
import { RenderQueue } from './render-queue.ts';
import { CONTENT_TYPES } from '../shared/render-options.ts';

export interface RenderWarning {
  code: RenderWarningCode;
  message: string;
}

export interface RenderResult {
  contentType: string;
  width: number;
  height: number;
  etag: string;
  warnings: RenderWarning[];
  bytes: Buffer;
  cacheHit: boolean;
  backend: string;
}

interface CachedRender {
  encoded: Encoded;
  etag: string;
}

/**
 * The transport-free core: validates a request against the asset set, answers from the encoded-render
 * cache or runs the pipeline once per distinct request (single flight) inside the bounded queue.
 */
export class RenderService {
  private readonly cache: SingleFlightCache<CachedRender>;
  /** Renders being computed, by ETag: their deadline (the latest waiter's), callers waiting, and a cancel switch. */
  private readonly flights = new Map<string, { dl: { at: number }; waiters: number; ctl: AbortController }>();
  private inflight = 0;
  /** Each view's vehicle box, once per set revision: framing and DescribeSet use it. */
  private readonly boxes = new VehicleBoxes();
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly deps: {
      store: AssetStore;
      backend: Compositor;
      queue: RenderQueue;
      renderCacheBytes: number;
      logger: Logger;
      /** Spin frames: baked on demand (renderer/spin/), their geometry by projection. */
      spin: { baker: SpinFrameBaker; geometry: SpinGeometry };
    },
  ) {
    this.cache = new SingleFlightCache<CachedRender>(deps.renderCacheBytes, (v) => v.encoded.bytes.length + 384);
  }

  get backendName(): string {
    return this.deps.backend.name;
  }

  /** Renders in progress (for graceful shutdown). */
  get active(): number {
    return this.inflight;
  }

  whenIdle(): Promise<void> {
    if (this.inflight === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /**
   * What identifies a picture: everything that changes its bytes. It keys the render cache and the
   * renders in flight; the ETag is its hash, taken once per render (a hit reads it from the cache).
   */
  renderKey(req: RenderRequest, revision: string): string {
    const frame: FramingOptions | undefined = req.frame;
    // the default framing adds nothing, so today's pictures keep their keys and ETags
    const framing = frame && !isDefaultFraming(frame) ? [[frame.framing, frame.aspect, frame.margin]] : [];
    return JSON.stringify([
      'v1',
      req.assetSet,
      revision,
      req.view,
      req.color,
      req.shadow,
      req.plate,
      req.format,
      req.width,
      req.background,
      this.deps.backend.name,
      ENCODER_TAG,
      ...framing,
    ]);
  }

  /** Renders being computed now (single flight: one per distinct picture). */
  get computing(): number {
    return this.flights.size;
  }

  /**
   * `signal`: the caller went away. A render stops (between pipeline steps, or leaves the queue) once
   * every caller waiting for it has gone. `tenant`: the organisation, for the queue's fairness.
   */
  async render(
    raw: Parameters<typeof normaliseRenderRequest>[0],
    opts: { deadline?: number; signal?: AbortSignal; tenant?: string } = {},
  ): Promise<RenderResult> {
    this.inflight++;
    try {
      const req = normaliseRenderRequest(raw);
      const deadline = opts.deadline ?? Infinity;
      const set = await this.deps.store.getSet(req.assetSet);
      const framing = req.frame!;
      // a spin frame's shot is known before it is baked: its size from the width the render needs, its
      // box and plate by projection; the frame's layers are looked up (or baked) once the picture is not cached
      const spin = isFrameId(req.view) ? this.spinShot(set, req.view, req.width, framing) : null;
      const view = spin ? spin.view : this.deps.store.view(set, req.view);
      const warnings: RenderWarning[] = [];
      if (req.shadow && !view.shadow) {
        warnings.push({ code: 'SHADOW_UNAVAILABLE', message: `View ${req.view} has no studio shadow` });
      }
      if (req.plate && !view.plateQuad) {
        warnings.push({ code: 'PLATE_UNMAPPED', message: `View ${req.view} has no plate quad` });
      }
      if (req.background === 'transparent' && !view.coverage) {
        throw new ServiceError('bad_request', `Transparent background is not available for view ${req.view} of this vehicle`);
      }
      const vehicle = spin ? { box: spin.box } : framing.framing === 'fit' ? await this.boxes.get(set, req.view) : null;
      if (framing.framing === 'fit' && !vehicle) {
        throw new ServiceError('bad_request', `Framing fit is not available for view ${req.view} of this vehicle (no coverage layer)`);
      }
      const frame = spin ? spin.frame : frameGeometry(view, req.view, vehicle?.box ?? null, req.width, framing);
      const key = this.renderKey(req, set.revision);
      const { value, state } = this.cache.getOrCompute(key, () => {
        const flight = { dl: { at: deadline }, waiters: 0, ctl: new AbortController() };
        this.flights.set(key, flight);
        const shot = spin
          ? this.frameShot(set, spin, deadline, flight.ctl.signal, opts.tenant)
          : Promise.resolve<{ set: ShotSet; view: ViewMeta }>({ set, view });
        return shot
          .then(({ set: shotSet, view: shotView }) => this.deps.queue.run(
            async () => {
              const ctx: RenderContext = { req, set: shotSet, view: shotView, frame, deadline: flight.dl, signal: flight.ctl.signal, timings: {} };
              await runPipeline(ctx, { store: this.deps.store, backend: this.deps.backend });
              const etag = etagOfKey(key);
              this.deps.logger.debug({ etag, timings: ctx.timings }, 'rendered');
              return { encoded: ctx.encoded!, etag };
            },
            deadline,
            { tenant: opts.tenant, signal: flight.ctl.signal },
          ))
          .finally(() => {
            if (this.flights.get(key) === flight) this.flights.delete(key);
          });
      });
      value.catch(() => {}); // a render every caller left fails with nobody awaiting it
      const flight = state === 'hit' ? undefined : this.flights.get(key);
      if (state === 'joined' && flight?.ctl.signal.aborted) {
        // every earlier caller left and the render is stopping: let it stop, then render anew
        await value.catch(() => {});
        return await this.render(raw, opts);
      }
      if (flight && state === 'joined' && deadline > flight.dl.at) flight.dl.at = deadline;
      let waited: Promise<CachedRender> = value;
      let leave = () => {};
      if (flight && opts.signal) {
        const signal = opts.signal;
        flight.waiters++;
        let left = false;
        const gone = new Promise<never>((_, reject) => {
          const onAbort = () => {
            if (left) return;
            left = true;
            if (--flight.waiters <= 0) flight.ctl.abort(); // nobody waits for this render any more
            reject(new ServiceError('unavailable', 'The render was cancelled'));
          };
          if (signal.aborted) onAbort();
          else signal.addEventListener('abort', onAbort, { once: true });
          leave = () => {
            signal.removeEventListener('abort', onAbort);
            if (!left) {
              left = true;
              flight.waiters--;
            }
          };
        });
        gone.catch(() => {});
        waited = Promise.race([value, gone]);
      } else if (flight) {
        flight.waiters++; // a caller that cannot cancel keeps the render alive
        leave = () => {
          flight.waiters--;
        };
      }
      let encoded: Encoded;
      let etag: string;
      try {
        ({ encoded, etag } = await waited);
      } finally {
        leave();
      }
      if (encoded.width !== frame.width || encoded.height !== frame.height) {
        throw new ServiceError('internal', undefined, { detail: 'output size mismatch' });
      }
      return {
        contentType: CONTENT_TYPES[req.format],
        width: encoded.width,
        height: encoded.height,
        etag,
        warnings,
        bytes: encoded.bytes,
        cacheHit: state === 'hit',
        backend: this.deps.backend.name,
      };
    } catch (e) {
      const se = toServiceError(e);
      if (se.code === 'internal') this.deps.logger.error({ err: e }, 'render failed');
      throw se;
    } finally {
      this.inflight--;
      if (this.inflight === 0) for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  /**
   * A spin frame's shot before it is baked: the bake width (the smallest of 400, 800, 1600 at least as
   * wide as the render needs, framing counted, as 01-layers.ts's sourceWidth asks of a view), the frame
   * geometry on the frame at that width, with `fit` on the projected vehicle box (not the coverage
   * layer, so the layout a gateway computes from DescribeSet's spin and the picture agree), and what the
   * warnings need (a baked frame always has its shadow and coverage; its plate where the plate faces the camera).
   */
  private spinShot(set: AssetSetMeta, id: FrameId, width: number, framing: FramingOptions): { yaw: number; bakeWidth: ReturnType<typeof spinBakeWidth>; view: ViewMeta; box: Box; frame: FrameGeometry } {
    const yaw = frameYaw(id);
    const full = this.deps.spin.geometry.frameAt(set, yaw, SPIN_GEOMETRY_WIDTH);
    if (!full) throw new ServiceError('not_found', `Asset set ${set.id} has no spin (no 3D source)`);
    // fit scales every frame by the box the whole turn sweeps: one size for the spin, each frame's floor on the margin
    const turn = this.deps.spin.geometry.turnBoxAt(set, SPIN_GEOMETRY_WIDTH)!;
    const nominal = frameGeometry({ width: SPIN_GEOMETRY_WIDTH, height: SPIN_GEOMETRY_HEIGHT }, id, full.box, width, framing, turn);
    const needed = nominal.wholeShot ? width : Math.ceil(SPIN_GEOMETRY_WIDTH * nominal.scaleX - 1e-6);
    const bakeWidth = spinBakeWidth(needed);
    const g = this.deps.spin.geometry.frameAt(set, yaw, bakeWidth)!;
    const view: ViewMeta = {
      width: bakeWidth,
      height: spinBakeHeight(bakeWidth),
      plateQuad: g.plateQuad as Quad | null,
      shadow: true,
      coverage: true,
      // not read before the frame is baked (its own record says)
      lightDepth: { diffuse: 8, specular: 8 },
      calibration: { diffuseGain: 1, specularFloor: 0 },
    };
    return { yaw, bakeWidth, view, box: g.box, frame: frameGeometry(view, id, g.box, width, framing, this.deps.spin.geometry.turnBoxAt(set, bakeWidth)) };
  }

  /**
   * The frame's layers' set and record once it is in the frame cache. A render waits for a bake within
   * its deadline; one that cannot (the bake would outlast it) answers unavailable with a Retry-After the
   * gateway passes on as 503, while the bake goes on and lands in the cache: the retry is a plain
   * composite (docs/spins.md, "Waiting for a bake").
   */
  private async frameShot(
    set: AssetSetMeta,
    spin: { yaw: number; bakeWidth: ReturnType<typeof spinBakeWidth> },
    deadline: number,
    signal: AbortSignal,
    tenant: string | undefined,
  ): Promise<{ set: ShotSet; view: ViewMeta }> {
    const baker = this.deps.spin.baker;
    const frame = baker.frame(set, spin.yaw, spin.bakeWidth, { tenant });
    frame.catch(() => {});
    let timer: NodeJS.Timeout | undefined;
    let onAbort = () => {};
    const giveUp = new Promise<never>((_, reject) => {
      if (Number.isFinite(deadline)) {
        // leave room to composite and answer before the caller's deadline
        timer = setTimeout(
          () => reject(new ServiceError('unavailable', 'The spin frame is being prepared, retry shortly', { headers: { 'Retry-After': String(baker.retryAfterSeconds()) } })),
          Math.max(0, deadline - Date.now() - FRAME_ANSWER_MARGIN_MS),
        );
      }
      onAbort = () => reject(new ServiceError('unavailable', 'The render was cancelled'));
      signal.addEventListener('abort', onAbort, { once: true });
    });
    giveUp.catch(() => {});
    try {
      const view = await Promise.race([frame, giveUp]);
      return { set: baker.frameSet(set, spin.bakeWidth), view };
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }

  async describe(id: string) {
    const set = await this.deps.store.getSet(id);
    return set;
  }

  /** Each view's vehicle box and ground line (full size; null without a coverage layer), for DescribeSet. */
  async vehicleGeometry(set: Awaited<ReturnType<RenderService['describe']>>): Promise<Record<string, VehicleGeometry | null>> {
    const ids = Object.keys(set.views);
    const found = await Promise.all(ids.map((v) => this.boxes.get(set, v)));
    return Object.fromEntries(ids.map((v, i) => [v, found[i]!]));
  }

  /** Every yaw's frame geometry (1600×900 pixels) of a set with a 3D source, for DescribeSet; null without one. */
  spinGeometry(set: AssetSetMeta) {
    return this.deps.spin.geometry.frames(set);
  }

  cacheStats() {
    return { renders: this.cache.stats(), layers: this.deps.store.stats() };
  }

  clearRenderCache(): void {
    this.cache.clear();
  }
}

/** What a render waiting for a frame bake keeps of its deadline to composite, encode and send the picture. */
const FRAME_ANSWER_MARGIN_MS = 1000;

/** A strong validator for the picture a render key names (sha256, 32 base64url characters, quoted). */
function etagOfKey(key: string): string {
  return `"${crypto.hash('sha256', key, 'base64url').slice(0, 32)}"`;
}
