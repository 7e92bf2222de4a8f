import crypto from 'node:crypto';
import type { Logger } from '../shared/logger.ts';
import { ServiceError, toServiceError } from '../shared/errors.ts';
import { normaliseRenderRequest, type RenderRequest, type RenderWarningCode } from '../shared/render-request.ts';
import type { AssetStore } from './assets/asset-store.ts';
import { outputHeight } from './assets/asset-store.ts';
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
}

/**
 * The transport-free core: validates a request against the asset set, answers from the encoded-render
 * cache or runs the pipeline once per distinct request (single flight) inside the bounded queue.
 */
export class RenderService {
  private readonly cache: SingleFlightCache<CachedRender>;
  private readonly deadlines = new Map<string, { at: number }>();
  private inflight = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly deps: {
      store: AssetStore;
      backend: Compositor;
      queue: RenderQueue;
      renderCacheBytes: number;
      logger: Logger;
    },
  ) {
    this.cache = new SingleFlightCache<CachedRender>(deps.renderCacheBytes, (v) => v.encoded.bytes.length + 256);
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

  etagOf(req: RenderRequest, revision: string): string {
    const h = crypto
      .createHash('sha256')
      .update(
        JSON.stringify([
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
        ]),
      )
      .digest('base64url')
      .slice(0, 32);
    return `"${h}"`;
  }

  async render(raw: Parameters<typeof normaliseRenderRequest>[0], opts: { deadline?: number } = {}): Promise<RenderResult> {
    this.inflight++;
    try {
      const req = normaliseRenderRequest(raw);
      const deadline = opts.deadline ?? Infinity;
      const set = await this.deps.store.getSet(req.assetSet);
      const view = this.deps.store.view(set, req.view);
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
      const etag = this.etagOf(req, set.revision);
      const { value, state } = this.cache.getOrCompute(etag, () => {
        const dl = { at: deadline };
        this.deadlines.set(etag, dl);
        return this.deps.queue
          .run(async () => {
            const ctx: RenderContext = { req, set, view, deadline: dl, timings: {} };
            await runPipeline(ctx, { store: this.deps.store, backend: this.deps.backend });
            this.deps.logger.debug({ etag, timings: ctx.timings }, 'rendered');
            return { encoded: ctx.encoded! };
          }, deadline)
          .finally(() => this.deadlines.delete(etag));
      });
      if (state === 'joined') {
        const dl = this.deadlines.get(etag);
        if (dl && deadline > dl.at) dl.at = deadline;
      }
      const { encoded } = await value;
      if (encoded.width !== req.width || encoded.height !== outputHeight(view, req.width)) {
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

  async describe(id: string) {
    const set = await this.deps.store.getSet(id);
    return set;
  }

  cacheStats() {
    return { renders: this.cache.stats(), layers: this.deps.store.stats() };
  }

  clearRenderCache(): void {
    this.cache.clear();
  }
}
