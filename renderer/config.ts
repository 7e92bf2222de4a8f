import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { emptyAsUndefined, optionalString, port, metricsPort, positiveInt, GRACE_MAX_MS, logLevel, RENDER_BACKENDS, parseConfig, spinFramesDir } from '../shared/config-fields.ts';
import { SPIN_FRAME_SUPERSAMPLE_DEFAULT } from '../shared/spin.ts';

export { RENDER_BACKENDS, type RenderBackendChoice } from '../shared/config-fields.ts';

/** The renderer's environment, validated and turned into settings; ASSETS_DIR defaults to `projectRoot`'s assets/. */
function rendererSchema(projectRoot: string) {
  return z.object({
    RENDERER_PORT: port(50051),
    RENDERER_HOST: z.preprocess(emptyAsUndefined, z.string().default('0.0.0.0')),
    RENDER_BACKEND: z.preprocess(emptyAsUndefined, z.enum(RENDER_BACKENDS).default('auto')),
    ASSETS_DIR: optionalString,
    RENDER_CACHE_MB: positiveInt(512),
    RENDER_WORKERS: z.preprocess(emptyAsUndefined, z.coerce.number().int().positive().max(64).optional()),
    RENDER_QUEUE_MAX: positiveInt(64),
    LEVEL_CACHE_DIR: optionalString,
    LEVEL_CACHE_MB: positiveInt(4096),
    SPIN_FRAMES_DIR: optionalString,
    SPIN_FRAME_SUPERSAMPLE: positiveInt(SPIN_FRAME_SUPERSAMPLE_DEFAULT, 16),
    SPIN_QUEUE_MAX: positiveInt(256),
    RENDERER_GRACE_MS: positiveInt(10_000, GRACE_MAX_MS),
    RENDER_WARMUP: z.preprocess(emptyAsUndefined, z.enum(['true', 'false']).default('true')),
    RENDERER_METRICS_PORT: metricsPort(9465),
    RENDERER_METRICS_HOST: z.preprocess(emptyAsUndefined, z.string().default('0.0.0.0')),
    LOG_LEVEL: logLevel,
  }).transform((e) => {
    return {
      port: e.RENDERER_PORT,
      host: e.RENDERER_HOST,
      backend: e.RENDER_BACKEND,
      assetsDir: path.resolve(e.ASSETS_DIR ?? path.join(projectRoot, 'assets')),
      cacheBytes: e.RENDER_CACHE_MB * 1024 * 1024,
      // at most 64: every layers arena keeps one scratch row per compositing thread (renderer/backends/cpu/arena.ts ARENA_SLOTS)
      workers: e.RENDER_WORKERS ?? Math.min(64, Math.max(1, os.availableParallelism())),
      queueMax: e.RENDER_QUEUE_MAX,
      /**
       * Built levels kept on local disk (renderer/assets/level-files.ts): the directory and its byte
       * budget; null (LEVEL_CACHE_DIR unset or empty): none, every cold level is decoded and reduced.
       */
      levelFiles: e.LEVEL_CACHE_DIR ? { dir: path.resolve(e.LEVEL_CACHE_DIR), bytes: e.LEVEL_CACHE_MB * 1024 * 1024 } : null,
      /**
       * Spin frames (docs/spins.md): where baked frames are kept on disk (SPIN_FRAMES_DIR; default
       * beside the level files, else in the temporary directory), the jittered renders per pass of a
       * frame bake (4 with 4x MSAA: the 16 samples a pixel the asset format asks), and how many frame
       * bakes may wait (beyond that RESOURCE_EXHAUSTED).
       */
      spin: {
        framesDir: spinFramesDir(e),
        supersample: e.SPIN_FRAME_SUPERSAMPLE,
        queueMax: e.SPIN_QUEUE_MAX,
      },
      /** On SIGTERM: how long renders in flight may take to finish. */
      graceMs: e.RENDERER_GRACE_MS,
      /** Render one view in every format before taking calls (renderer/warm-up.ts). */
      warmUp: e.RENDER_WARMUP === 'true',
      logLevel: e.LOG_LEVEL,
      /** Internal Prometheus port (GET /metrics) beside the gRPC port; null: off. */
      metricsPort: e.RENDERER_METRICS_PORT,
      metricsHost: e.RENDERER_METRICS_HOST,
    };
  });
}

export type RendererConfig = z.output<ReturnType<typeof rendererSchema>>;

export function loadRendererConfig(env: NodeJS.ProcessEnv = process.env, projectRoot = process.cwd()): RendererConfig {
  return parseConfig(rendererSchema(projectRoot), env);
}
