import { loadRendererConfig } from '../shared/config.ts';
import { createLogger } from '../shared/logger.ts';
import { startRendererServer } from './server.ts';

/**
 * `npm run renderer`: the renderer alone on RENDERER_PORT (default 50051). Started by the gateway's
 * embedded mode through child_process.fork with RENDERER_PORT=0, it reports `{ type: 'ready', port }`.
 */
process.env.ANGLE_DEFAULT_PLATFORM ??= 'vulkan';

const config = loadRendererConfig();
const logger = createLogger('renderer', config.logLevel);

try {
  const server = await startRendererServer({ config, logger });
  process.send?.({ type: 'ready', port: server.port });
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    server.close(config.graceMs).then(
      () => process.exit(0),
      (e) => {
        logger.error({ err: e }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // a forked renderer goes when its parent does
  process.on('disconnect', () => stop('disconnect'));
} catch (e) {
  logger.fatal({ err: e }, 'renderer failed to start');
  process.exit(1);
}
