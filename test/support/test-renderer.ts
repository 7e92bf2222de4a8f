import { loadRendererConfig } from '../../renderer/config.ts';
import { createLogger, type Logger } from '../../shared/logger.ts';
import { createGrpcImageRenderer } from '../../gateway/render/grpc-image-renderer.ts';
import { startRendererServer, type RendererInternals } from '../../renderer/server.ts';

export interface TestRenderer {
  port: number;
  /** The gateway's gRPC client of this renderer (pass it as the gateway's renderer). */
  client: ReturnType<typeof createGrpcImageRenderer>;
  /** The renderer's store, backend and queue, for tests that slow or count steps. */
  internals: RendererInternals;
  /** Closes the client, then the server. */
  close(): Promise<void>;
}

/**
 * An in-process renderer (cpu backend) on a free loopback port and a gRPC client of it.
 * `env`: renderer settings (RENDER_WORKERS, RENDER_QUEUE_MAX, …); `logger` and `clientLogger`: where the
 * renderer and the client log (silent by default).
 */
export async function startTestRenderer(
  opts: { env?: Record<string, string>; logger?: Logger; clientLogger?: Logger } = {},
): Promise<TestRenderer> {
  const logger = opts.logger ?? createLogger('test-renderer', 'silent');
  let internals!: RendererInternals;
  const server = await startRendererServer({
    // no warm-up unless asked: it would build a committed set's levels (up to a second) for every gateway test's renderer
    config: loadRendererConfig({ RENDER_BACKEND: 'cpu', RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', RENDER_WARMUP: 'false', ...opts.env }),
    logger,
    onInternals: (i) => (internals = i),
  });
  const client = createGrpcImageRenderer({ addresses: `127.0.0.1:${server.port}`, logger: opts.clientLogger ?? createLogger('test-renderer-client', 'silent') });
  return {
    port: server.port,
    client,
    internals,
    async close() {
      client.close();
      await server.close();
    },
  };
}
