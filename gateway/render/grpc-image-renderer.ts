import type { Logger } from '../../shared/logger.ts';
import { createRendererClient } from './renderer-pool.ts';
import type { ImageRenderer } from './image-renderer.ts';

/** The gateway's renderer: the shared gRPC client (deadline, retry to another address, round robin). */
export function createGrpcImageRenderer(opts: { addresses: string; logger: Logger; outageWaitMs?: number }): ImageRenderer & { close(): void } {
  const client = createRendererClient({ addresses: opts.addresses, logger: opts.logger, outageWaitMs: opts.outageWaitMs });
  return {
    render: (req, o) => client.render(req, { deadlineMs: o.deadlineMs, signal: o.signal, org: o.org, requestId: o.requestId }),
    describeSet: (id, o) => client.describeSet(id, o),
    unreachable: () => client.unreachable(),
    close: () => client.close(),
  };
}
