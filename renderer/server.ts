import * as grpc from '@grpc/grpc-js';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation } from 'grpc-health-check';
import type { RendererConfig } from './config.ts';
import type { Logger } from '../shared/logger.ts';
import { RENDER_SERVICE_NAME, loadRenderPackageDefinition, renderGrpcObject } from '../shared/render-contract.ts';
import { AssetStore } from './assets/asset-store.ts';
import { LevelFiles } from './assets/level-files.ts';
import type { Compositor } from './backends/backend.ts';
import { levelExtrasFor } from './backends/cpu/level-extras.ts';
import { ALL_CPU_MECHANISMS, type CpuMechanisms } from './backends/cpu/mechanisms.ts';
import { createCompositor, type BackendReport } from './backends/select.ts';
import { probePictures } from './backend-probe.ts';
import { renderHandlers } from './grpc/handlers.ts';
import { RenderQueue } from './render-queue.ts';
import { RenderService } from './render-service.ts';
import { instrumentRenderer } from './metrics.ts';
import { SpinFrameBaker } from './spin/frame-baker.ts';
import { SpinGeometry } from './spin/spin-geometry.ts';
import { warmUp, warmUpGrpc } from './warm-up.ts';
import type { Registry } from 'prom-client';

/** Share of RENDER_CACHE_MB for decoded layers; the rest holds encoded renders. */
export const LAYER_CACHE_SHARE = 0.75;

export interface RendererServer {
  port: number;
  /** Prometheus registry (renderer/metrics.ts); renderer/main.ts serves it on RENDERER_METRICS_PORT. */
  metrics: Registry;
  close(graceMs?: number): Promise<void>;
}

/** Handles for tests and the bench (not part of the contract the gateway uses). */
export interface RendererInternals {
  service: RenderService;
  store: AssetStore;
  backend: Compositor;
  backendReport: BackendReport;
  queue: RenderQueue;
  levelFiles: LevelFiles | null;
  spin: SpinFrameBaker;
}

/**
 * The renderer's composition root: asset store, compositor (gl | cpu), bounded queue, render service,
 * and the gRPC server with the render service, grpc.health.v1 and reflection. Port 0 picks a free port.
 */
export async function startRendererServer(opts: {
  config: RendererConfig;
  logger: Logger;
  /** Receives the internals once started (tests, bench). */
  onInternals?: (i: RendererInternals) => void;
  /** The cpu backend's mechanisms; all on unless a benchmark turns some off (backends/cpu/mechanisms.ts). */
  cpuMechanisms?: CpuMechanisms;
}): Promise<RendererServer> {
  const { config, logger } = opts;
  const layerBytes = Math.floor(config.cacheBytes * LAYER_CACHE_SHARE);
  const queue = new RenderQueue(config.workers, config.queueMax);
  // a directory that cannot be used is logged and leaves the renderer without level files, never without renders
  const levelFiles = config.levelFiles ? await LevelFiles.open({ dir: config.levelFiles.dir, budgetBytes: config.levelFiles.bytes, logger }) : null;
  // levels carry the cpu backend's extras while auto may still measure it (with this store's levels,
  // so the store comes first); then the chosen backend's
  const cpuMechanisms = opts.cpuMechanisms ?? ALL_CPU_MECHANISMS;
  const store = new AssetStore({ dir: config.assetsDir, cacheBytes: layerBytes, logger, levelExtras: levelExtrasFor(cpuMechanisms), levelFiles });
  const { loaded } = await store.init();
  const { compositor: backend, report: backendReport } = await createCompositor({
    choice: config.backend,
    workers: config.workers,
    logger,
    // the composite runs inside the queue: alone means nobody else running or waiting
    alone: () => queue.running <= 1 && queue.queued === 0,
    cpuMechanisms,
    probe: (reference) => probePictures({ store, sets: loaded, reference }),
  });
  store.useLevelExtras(backend.levelExtras);
  store.onEvict = (key) => backend.forget?.(key);
  // the frame-baker child is forked with the first frame to bake, not here
  const spin = new SpinFrameBaker({ framesDir: config.spin.framesDir, supersample: config.spin.supersample, queueMax: config.spin.queueMax, logger });
  const service = new RenderService({
    store,
    backend,
    queue,
    renderCacheBytes: config.cacheBytes - layerBytes,
    logger,
    spin: { baker: spin, geometry: new SpinGeometry() },
  });
  // before the port opens (the gateway's embedded mode waits for it; a readiness probe waits for SERVING
  // below), and before the metrics wrap the service, so the warm-up's renders are not counted as customers'
  const warm = config.warmUp ? await warmUp({ service, store, sets: loaded, logger }) : null;
  opts.onInternals?.({ service, store, backend, backendReport, queue, levelFiles, spin });

  let draining = false;
  const server = new grpc.Server({
    'grpc.max_send_message_length': 1024 * 1024,
    'grpc.max_receive_message_length': 64 * 1024,
    // connections are recycled every few minutes (GOAWAY, calls in flight may finish within the grace),
    // so gateways dialling dns:/// re-resolve and spread onto renderers added since
    'grpc.max_connection_age_ms': 5 * 60_000,
    'grpc.max_connection_age_grace_ms': 60_000,
  });
  const { RenderService: svc } = renderGrpcObject();
  server.addService(svc.service, renderHandlers({ service, logger, isDraining: () => draining, backendReport }) as unknown as grpc.UntypedServiceImplementation);
  // NOT_SERVING until the gRPC warm-up below is done: a readiness probe waits for it
  const initial = warm?.request ? 'NOT_SERVING' : 'SERVING';
  const health = new HealthImplementation({ '': initial, [RENDER_SERVICE_NAME]: initial });
  health.addToServer(server);
  new ReflectionService(loadRenderPackageDefinition()).addToServer(server);

  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${config.host}:${config.port}`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  if (warm?.request) await warmUpGrpc({ host: config.host, port, request: warm.request, logger });
  // after the warm-up, whose renders are not customers'
  const metrics = instrumentRenderer({ service, queue, backend, backendReport, levelFiles, spin });
  health.setStatus('', 'SERVING');
  health.setStatus(RENDER_SERVICE_NAME, 'SERVING');
  logger.info(
    { port, host: config.host, backend: backend.name, workers: config.workers, queueMax: config.queueMax, assets: config.assetsDir, spinFrames: config.spin.framesDir },
    'renderer listening',
  );

  let closing: Promise<void> | null = null;
  return {
    port,
    metrics: metrics.registry,
    close(graceMs = 10_000) {
      closing ??= (async () => {
        draining = true;
        health.setStatus('', 'NOT_SERVING');
        health.setStatus(RENDER_SERVICE_NAME, 'NOT_SERVING');
        // frame bakes are abandoned, not drained (seconds each on lavapipe): renders waiting for one fail
        // with unavailable and are retried on another renderer; the frame cache holds whole frames only
        const bakerClosed = spin.close();
        // finish the renders in flight, then stop accepting calls and let open streams end
        const idle = service.whenIdle();
        const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), graceMs).unref());
        const shut = new Promise<void>((r) => server.tryShutdown(() => r()));
        const outcome = await Promise.race([Promise.all([idle, shut]).then(() => 'done' as const), timer]);
        if (outcome === 'timeout') {
          logger.warn({ active: service.active }, 'grace period over, closing open calls');
          server.forceShutdown();
        }
        await bakerClosed;
        await backend.close();
        // level files being written are finished (a few ms each), not left as temporary files
        const written = levelFiles?.idle();
        if (written) await Promise.race([written, new Promise((r) => setTimeout(r, 2000).unref())]);
        logger.info('renderer stopped');
      })();
      return closing;
    },
  };
}
