import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { isServiceError } from '../shared/errors.ts';
import type { Compositor } from './backends/backend.ts';
import type { BackendReport } from './backends/select.ts';
import type { RenderQueue } from './render-queue.ts';
import type { RenderService } from './render-service.ts';
import type { LevelFiles } from './assets/level-files.ts';
import type { SpinFrameBaker } from './spin/frame-baker.ts';

/** Frame bake buckets in seconds: a GPU's tens of ms up to lavapipe's tens of seconds at 1600 px. */
export const BAKE_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120];

/** Render latency buckets in seconds: a cache hit (~1 ms) up to the gateway's default deadline (15 s) and beyond. */
export const RENDER_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30];

export interface RendererMetrics {
  registry: Registry;
}

/**
 * The renderer's Prometheus metrics (served on RENDERER_METRICS_PORT by renderer/main.ts):
 * render latency by backend/format/cache, queue depth, renders in flight, cache hit ratio,
 * RESOURCE_EXHAUSTED refusals, and the backend in use as an info metric (gl/cpu, GL renderer string).
 * It wraps `service.render` once; the render path itself knows nothing of metrics.
 */
export function instrumentRenderer(deps: { service: RenderService; queue: RenderQueue; backend: Compositor; backendReport: BackendReport; levelFiles?: LevelFiles | null; spin: SpinFrameBaker }): RendererMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const backendName = deps.backend.name;

  const latency = new Histogram({
    name: 'renderer_render_duration_seconds',
    help: 'Render calls from request to encoded bytes, by backend, format and cache outcome',
    labelNames: ['backend', 'format', 'cache', 'outcome'],
    buckets: RENDER_BUCKETS,
    registers: [registry],
  });
  const lookups = new Counter({
    name: 'renderer_render_cache_lookups_total',
    help: 'Encoded-render cache lookups by result (hit, miss)',
    labelNames: ['result'],
    registers: [registry],
  });
  const exhausted = new Counter({
    name: 'renderer_resource_exhausted_total',
    help: 'Renders refused with RESOURCE_EXHAUSTED (queue full)',
    registers: [registry],
  });
  const cancelled = new Counter({
    name: 'renderer_renders_cancelled_total',
    help: 'Render calls whose caller went away (cancelled, or its deadline passed) before the picture was sent; not errors',
    registers: [registry],
  });
  const errors = new Counter({
    name: 'renderer_render_errors_total',
    help: 'Failed renders by error code',
    labelNames: ['code'],
    registers: [registry],
  });
  let hits = 0;
  let misses = 0;
  new Gauge({
    name: 'renderer_render_cache_hit_ratio',
    help: 'Share of successful renders answered from the encoded-render cache since start',
    registers: [registry],
    collect() {
      this.set(hits + misses === 0 ? 0 : hits / (hits + misses));
    },
  });
  new Gauge({
    name: 'renderer_queue_depth',
    help: 'Renders waiting for a worker',
    registers: [registry],
    collect() {
      this.set(deps.queue.queued);
    },
  });
  new Gauge({
    name: 'renderer_queue_capacity',
    help: 'RENDER_QUEUE_MAX: renders that may wait before RESOURCE_EXHAUSTED',
    registers: [registry],
    collect() {
      this.set(deps.queue.queueMax);
    },
  });
  new Gauge({
    name: 'renderer_renders_in_flight',
    help: 'Render calls in progress (queued, running or waiting on an identical render)',
    registers: [registry],
    collect() {
      this.set(deps.service.active);
    },
  });
  new Gauge({
    name: 'renderer_renders_running',
    help: 'Renders holding a worker slot',
    registers: [registry],
    collect() {
      this.set(deps.queue.running);
    },
  });
  new Gauge({
    name: 'renderer_workers',
    help: 'RENDER_WORKERS: renders that run at once',
    registers: [registry],
    collect() {
      this.set(deps.queue.concurrency);
    },
  });
  new Gauge({
    name: 'renderer_cache_bytes',
    help: 'Bytes held by the renderer caches (renders: encoded pictures, layers: decoded layers)',
    labelNames: ['cache'],
    registers: [registry],
    collect() {
      const s = deps.service.cacheStats() as { renders: { bytes: number }; layers: { bytes?: number } };
      this.set({ cache: 'renders' }, s.renders.bytes);
      if (typeof s.layers?.bytes === 'number') this.set({ cache: 'layers' }, s.layers.bytes);
    },
  });
  const levelFiles = deps.levelFiles;
  if (levelFiles) {
    // counters kept by LevelFiles itself, read at scrape time (it knows nothing of metrics)
    new Counter({
      name: 'renderer_level_files_total',
      help: 'Levels looked for in LEVEL_CACHE_DIR and what became of them (hit: read, miss: built, written, skipped: the level left memory before its turn to be written, or too many waited, evicted, failed: a file refused or a write that failed)',
      labelNames: ['result'],
      registers: [registry],
      collect() {
        const s = levelFiles.stats();
        this.reset();
        const results = { hit: s.hits, miss: s.misses, written: s.written, skipped: s.skipped, evicted: s.evicted, failed: s.failed };
        for (const [result, n] of Object.entries(results)) this.inc({ result }, n);
      },
    });
    new Gauge({
      name: 'renderer_level_files_pending',
      help: 'Levels built and waiting to be written to LEVEL_CACHE_DIR, or being written',
      registers: [registry],
      collect() {
        this.set(levelFiles.stats().pending);
      },
    });
    new Gauge({
      name: 'renderer_level_files_bytes',
      help: 'Bytes of level files in LEVEL_CACHE_DIR, and its budget (LEVEL_CACHE_MB)',
      labelNames: ['kind'],
      registers: [registry],
      collect() {
        const s = levelFiles.stats();
        this.set({ kind: 'used' }, s.bytes);
        this.set({ kind: 'budget' }, s.budget);
      },
    });
  }
  const spin = deps.spin;
  const bakes = new Histogram({
    name: 'renderer_spin_frame_bake_seconds',
    help: 'Spin frame bakes (frame-baker child: shot and written into SPIN_FRAMES_DIR) by outcome (ok, failed)',
    labelNames: ['outcome'],
    buckets: BAKE_BUCKETS,
    registers: [registry],
  });
  spin.onBake((e) => bakes.observe({ outcome: e.outcome }, e.seconds));
  new Counter({
    name: 'renderer_spin_frames_total',
    help: 'Spin frames a render needed that were not in memory, by source (disk: found in SPIN_FRAMES_DIR, baked: shot here, failed: the bake failed)',
    labelNames: ['source'],
    registers: [registry],
    collect() {
      const s = spin.stats();
      this.reset();
      this.inc({ source: 'disk' }, s.disk);
      this.inc({ source: 'baked' }, s.baked);
      this.inc({ source: 'failed' }, s.failed);
    },
  });
  new Gauge({
    name: 'renderer_spin_bake_queue_depth',
    help: 'Spin frame bakes waiting for the frame baker (SPIN_QUEUE_MAX at most)',
    registers: [registry],
    collect() {
      this.set(spin.stats().queued);
    },
  });
  const framePending = new Counter({
    name: 'renderer_spin_frame_pending_total',
    help: 'Renders of a spin frame answered UNAVAILABLE with a retry hint: the bake outlasted their deadline and goes on (not errors)',
    registers: [registry],
  });
  const info = new Gauge({
    name: 'renderer_backend_info',
    help: 'The compositing backend in use (always 1): backend gl or cpu, the GL renderer string or cpu description, RENDER_BACKEND (choice) and whether auto measured',
    labelNames: ['backend', 'renderer', 'choice', 'measured'],
    registers: [registry],
  });
  const r = deps.backendReport;
  info.set({ backend: backendName, renderer: deps.backend.description.slice(0, 200), choice: r.choice, measured: r.measured.length ? 'true' : 'false' }, 1);
  const probe = new Gauge({
    name: 'renderer_backend_composite_ms',
    help: "RENDER_BACKEND=auto's start-up measurement: median composite time per candidate backend and picture, ms (refused: the candidate may not be chosen)",
    labelNames: ['backend', 'picture', 'refused'],
    registers: [registry],
  });
  for (const m of r.measured) for (const [picture, ms] of Object.entries(m.ms)) probe.set({ backend: m.backend, picture, refused: m.refused ? 'true' : 'false' }, ms);

  const original = deps.service.render.bind(deps.service);
  deps.service.render = async (raw, opts) => {
    const end = latency.startTimer();
    const format = typeof (raw as { format?: unknown })?.format === 'string' ? String((raw as { format: string }).format).slice(0, 8) : 'unknown';
    try {
      const r = await original(raw, opts);
      if (r.cacheHit) hits++;
      else misses++;
      lookups.inc({ result: r.cacheHit ? 'hit' : 'miss' });
      end({ backend: backendName, format: knownFormat(format), cache: r.cacheHit ? 'hit' : 'miss', outcome: 'ok' });
      return r;
    } catch (e) {
      // the caller went away (cancelled, or its deadline passed): not a failure of the renderer, so not
      // in the error counter an UNAVAILABLE alert would watch; its own outcome in the latency histogram
      if (opts?.signal?.aborted) {
        cancelled.inc();
        end({ backend: backendName, format: knownFormat(format), cache: 'none', outcome: 'cancelled' });
        throw e;
      }
      const code = isServiceError(e) ? e.code : 'internal';
      if (code === 'unavailable' && isServiceError(e) && e.headers?.['Retry-After']) {
        // a frame still being baked: the caller is told when to come back, nothing failed
        framePending.inc();
        end({ backend: backendName, format: knownFormat(format), cache: 'none', outcome: 'frame_pending' });
        throw e;
      }
      if (code === 'resource_exhausted') exhausted.inc();
      errors.inc({ code });
      end({ backend: backendName, format: knownFormat(format), cache: 'none', outcome: code });
      throw e;
    }
  };
  return { registry };
}

function knownFormat(f: string): string {
  return f === 'webp' || f === 'png' || f === 'jpeg' ? f : 'other';
}
