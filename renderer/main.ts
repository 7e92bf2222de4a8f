import { ConfigError } from '../shared/config-fields.ts';
import { loadRendererConfig } from './config.ts';
import { createLogger } from '../shared/logger.ts';
import type { MetricsServer } from '../shared/metrics-server.ts';
import { exitOnStartError } from '../shared/start-error.ts';

/**
 * `npm run renderer`: the renderer alone on RENDERER_PORT (default 50051). Started by the gateway's
 * embedded mode through child_process.fork with RENDERER_PORT=0, it reports `{ type: 'ready', port }`.
 */
process.env.ANGLE_DEFAULT_PLATFORM ??= 'vulkan';

let config: ReturnType<typeof loadRendererConfig>;
try {
  config = loadRendererConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message); // names each variable and what it must be, as the gateway does
  process.exit(2);
}
const logger = createLogger('renderer', config.logLevel);

try {
  // loaded once the configuration is known good, as the gateway's main does
  const [{ startRendererServer }, { startMetricsServer }] = await Promise.all([import('./server.ts'), import('../shared/metrics-server.ts')]);
  const server = await startRendererServer({ config, logger });
  let metrics: MetricsServer | null = null;
  if (config.metricsPort !== null) {
    metrics = await startMetricsServer({ registry: server.metrics, port: config.metricsPort, host: config.metricsHost });
    logger.info({ port: metrics.port, host: config.metricsHost }, 'renderer metrics listening (GET /metrics)');
  }
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.close(config.graceMs).then(
      async () => {
        await metrics?.close();
        process.exit(0);
      },
      (e) => {
        logger.error({ err: e }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  // A renderer forked by the gateway (embedded mode) leaves Ctrl-C to its parent, which stops it in
  // order (otherwise the parent would see it die first and restart it).
  process.on('SIGINT', () => (process.send ? undefined : stop('SIGINT')));
  // a forked renderer goes when its parent does
  process.on('disconnect', () => stop('disconnect'));
  // said once the signals are handled: the parent may stop it the next instant
  process.send?.({ type: 'ready', port: server.port, metricsPort: metrics?.port ?? null });
} catch (e) {
  exitOnStartError('renderer', e, config.logLevel);
}
