import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { Logger } from './logger.ts';
import { ServiceError, codeFromGrpcStatus } from './errors.ts';
import { BACKGROUND_TO_PROTO, FORMAT_TO_PROTO, type RenderRequest } from './render-request.ts';
import type { ViewId } from './views.ts';
import { isViewId } from './views.ts';

export type { RenderRequest } from './render-request.ts';

/** The renderer's contract, vehicle.render.v1 (proto/vehicle/render/v1/render.proto). */
export const RENDER_PROTO_PATH = fileURLToPath(new URL('../proto/vehicle/render/v1/render.proto', import.meta.url));
export const HEALTH_PROTO_PATH: string = createRequire(import.meta.url)('grpc-health-check').protoPath;
export const RENDER_SERVICE_NAME = 'vehicle.render.v1.RenderService';
/** The largest chunk the renderer sends. */
export const RENDER_CHUNK_BYTES = 64 * 1024;

export const PROTO_LOADER_OPTIONS: protoLoader.Options = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
};

let pkgDef: protoLoader.PackageDefinition | null = null;
/** The render and health protos in one package definition (the renderer also serves it by reflection). */
export function loadRenderPackageDefinition(): protoLoader.PackageDefinition {
  pkgDef ??= protoLoader.loadSync([RENDER_PROTO_PATH, HEALTH_PROTO_PATH], PROTO_LOADER_OPTIONS);
  return pkgDef;
}

type Unary = (req: unknown, meta: { deadline: Date }, cb: (err: unknown, res: never) => void) => grpc.ClientUnaryCall;
type RenderStub = grpc.Client & {
  Render(req: unknown, metadata: grpc.Metadata, opts: { deadline: Date }): grpc.ClientReadableStream<unknown>;
  DescribeSet: Unary;
};
type HealthStub = grpc.Client & { Check: Unary };
type AnyClientCtor = new (address: string, creds: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => grpc.Client;

export function renderGrpcObject(): {
  RenderService: grpc.ServiceClientConstructor;
  Health: grpc.ServiceClientConstructor;
} {
  const obj = grpc.loadPackageDefinition(loadRenderPackageDefinition()) as unknown as {
    vehicle: { render: { v1: { RenderService: grpc.ServiceClientConstructor } } };
    grpc: { health: { v1: { Health: grpc.ServiceClientConstructor } } };
  };
  return { RenderService: obj.vehicle.render.v1.RenderService, Health: obj.grpc.health.v1.Health };
}

export interface RenderHeader {
  contentType: string;
  width: number;
  height: number;
  byteLength: number;
  etag: string;
  warnings: string[];
  /** The renderer answered from its encoded-render cache. */
  cacheHit: boolean;
}

/** gRPC metadata naming the organisation a render is for (the renderer's queue is fair between them). */
export const ORG_METADATA_KEY = 'x-org-id';

export interface RenderCallOptions {
  deadlineMs: number;
  /** Aborting cancels the call; the renderer stops a render nobody waits for. */
  signal?: AbortSignal;
  /** Sent as `x-org-id` metadata, not in the request message. */
  org?: string;
}

export interface RenderStream {
  header: RenderHeader;
  body: AsyncIterable<Buffer>;
}

export interface ViewDescription {
  width: number;
  height: number;
  plateQuad: [number, number][] | null;
  shadow: boolean;
  /** A coverage layer exists: the view can be rendered on a transparent background. */
  coverage: boolean;
}

export interface SetDescription {
  id: string;
  revision: string;
  views: Record<ViewId, ViewDescription>;
}

export interface RendererClient {
  render(req: RenderRequest, opts: RenderCallOptions): Promise<RenderStream>;
  describeSet(id: string, opts?: { deadlineMs?: number }): Promise<SetDescription>;
  health(opts?: { deadlineMs?: number }): Promise<boolean>;
  close(): void;
}

interface WireHeader {
  content_type: string;
  width: number;
  height: number;
  byte_length: number;
  etag: string;
  warnings: { code: string; message: string }[];
  backend: string;
  cache_hit: boolean;
}
interface WireMessage {
  part?: 'header' | 'chunk';
  header?: WireHeader;
  chunk?: Buffer;
}

function toServiceError(e: unknown): ServiceError {
  if (e instanceof ServiceError) return e;
  const err = e as Partial<grpc.ServiceError>;
  if (typeof err.code === 'number') {
    const code = codeFromGrpcStatus(err.code);
    // the renderer's messages are public (they never carry internals); transport ones are replaced
    const message = code === 'bad_request' || code === 'not_found' ? err.details || undefined : undefined;
    return new ServiceError(code, message, { cause: e, detail: err.details });
  }
  return new ServiceError('internal', undefined, { cause: e });
}

/**
 * Parses RENDERER_ADDR: `host:port[,host:port…]` (one channel per address; a call that meets
 * UNAVAILABLE is retried on the next address) or `dns:///name:port` (one channel, round robin over
 * every address the name resolves to; a retry picks the next).
 */
export function parseAddresses(addresses: string): string[] {
  const list = addresses
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.length === 0) throw new Error('renderer client: no address given');
  return list;
}

/** The typed gRPC client of the renderer, as the gateway uses it. */
export function createRendererClient(opts: { addresses: string; logger?: Logger }): RendererClient {
  const { RenderService, Health } = renderGrpcObject();
  const addrs = parseAddresses(opts.addresses);
  const channelOptions: grpc.ChannelOptions = {
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
    'grpc.keepalive_time_ms': 30_000,
    'grpc.max_receive_message_length': 1024 * 1024,
    'grpc.enable_retries': 0,
  };
  const creds = grpc.credentials.createInsecure();
  const clients = addrs.map((a) => ({
    address: a,
    render: new (RenderService as unknown as AnyClientCtor)(a, creds, channelOptions) as RenderStub,
    health: new (Health as unknown as AnyClientCtor)(a, creds, channelOptions) as HealthStub,
  }));
  let next = 0;
  // with dns:/// a single channel balances by itself; retries go to it again
  const attempts = Math.max(2, clients.length);
  const pick = () => clients[next++ % clients.length]!;

  async function renderOnce(
    c: (typeof clients)[number],
    wire: Record<string, unknown>,
    deadline: Date,
    o: RenderCallOptions,
  ): Promise<RenderStream> {
    if (o.signal?.aborted) throw new ServiceError('unavailable', 'The render was cancelled');
    const md = new grpc.Metadata();
    if (o.org) md.set(ORG_METADATA_KEY, o.org);
    const call = c.render.Render(wire, md, { deadline }) as grpc.ClientReadableStream<WireMessage>;
    const onAbort = () => call.cancel();
    o.signal?.addEventListener('abort', onAbort, { once: true });
    const detach = () => o.signal?.removeEventListener('abort', onAbort);
    call.on('close', detach);
    call.on('status', detach);
    const it = call[Symbol.asyncIterator]() as AsyncIterator<WireMessage>;
    let first: IteratorResult<WireMessage>;
    try {
      first = await it.next();
    } catch (e) {
      detach();
      call.cancel();
      throw e;
    }
    if (first.done || !first.value.header) {
      detach();
      call.cancel();
      throw new ServiceError('internal', undefined, { detail: 'renderer stream did not start with a header' });
    }
    const h = first.value.header;
    const header: RenderHeader = {
      contentType: h.content_type,
      width: h.width,
      height: h.height,
      byteLength: Number(h.byte_length),
      etag: h.etag,
      warnings: (h.warnings ?? []).map((w) => w.code),
      cacheHit: Boolean(h.cache_hit),
    };
    let consumed = false;
    const body: AsyncIterable<Buffer> = {
      [Symbol.asyncIterator]() {
        if (consumed) throw new Error('render body can be read once');
        consumed = true;
        let received = 0;
        let finished = false;
        return {
          async next(): Promise<IteratorResult<Buffer>> {
            try {
              for (;;) {
                const r = await it.next();
                if (r.done) {
                  finished = true;
                  if (received !== header.byteLength) {
                    throw new ServiceError('internal', undefined, {
                      detail: `renderer sent ${received} of ${header.byteLength} bytes`,
                    });
                  }
                  return { done: true, value: undefined };
                }
                if (r.value.chunk && r.value.chunk.length > 0) {
                  received += r.value.chunk.length;
                  return { done: false, value: Buffer.from(r.value.chunk) };
                }
              }
            } catch (e) {
              finished = true;
              throw toServiceError(e);
            }
          },
          async return(): Promise<IteratorResult<Buffer>> {
            if (!finished) call.cancel();
            finished = true;
            return { done: true, value: undefined };
          },
        };
      },
    };
    return { header, body };
  }

  return {
    async render(req, callOpts) {
      const { deadlineMs } = callOpts;
      const wire: Record<string, unknown> = {
        asset_set: req.assetSet,
        view: req.view,
        color: req.color,
        shadow: req.shadow,
        format: FORMAT_TO_PROTO[req.format],
        width: req.width,
      };
      if (req.plate !== null) wire.plate = req.plate;
      if (req.background && req.background !== 'studio') wire.background = BACKGROUND_TO_PROTO[req.background];
      const deadline = new Date(Date.now() + deadlineMs);
      let lastErr: unknown;
      for (let i = 0; i < attempts; i++) {
        const c = pick();
        try {
          return await renderOnce(c, wire, deadline, callOpts);
        } catch (e) {
          lastErr = e;
          const se = toServiceError(e);
          if (se.code !== 'unavailable' || Date.now() >= deadline.getTime() || callOpts.signal?.aborted) throw se;
          opts.logger?.warn({ address: c.address, attempt: i + 1 }, 'renderer unavailable, trying the next address');
        }
      }
      throw toServiceError(lastErr);
    },

    async describeSet(id, o = {}) {
      const deadline = new Date(Date.now() + (o.deadlineMs ?? 5000));
      let lastErr: unknown;
      for (let i = 0; i < attempts; i++) {
        const c = pick();
        try {
          const res = await new Promise<{
            id: string;
            revision: string;
            views: Record<string, { width: number; height: number; plate_quad: { x: number; y: number }[]; shadow: boolean; coverage?: boolean }>;
          }>((resolve, reject) => c.render.DescribeSet({ id }, { deadline }, (err: unknown, r: never) => (err ? reject(err) : resolve(r))));
          const views = {} as Record<ViewId, ViewDescription>;
          for (const [v, d] of Object.entries(res.views)) {
            if (!isViewId(v)) continue;
            views[v] = {
              width: d.width,
              height: d.height,
              plateQuad: d.plate_quad.length === 4 ? d.plate_quad.map((p) => [p.x, p.y] as [number, number]) : null,
              shadow: d.shadow,
              coverage: Boolean(d.coverage),
            };
          }
          return { id: res.id, revision: res.revision, views };
        } catch (e) {
          lastErr = e;
          const se = toServiceError(e);
          if (se.code !== 'unavailable' || Date.now() >= deadline.getTime()) throw se;
        }
      }
      throw toServiceError(lastErr);
    },

    async health(o = {}) {
      const deadline = new Date(Date.now() + (o.deadlineMs ?? 2000));
      for (let i = 0; i < clients.length; i++) {
        const c = pick();
        try {
          const res = await new Promise<{ status: string }>((resolve, reject) =>
            c.health.Check({ service: '' }, { deadline }, (err: unknown, r: never) => (err ? reject(err) : resolve(r))),
          );
          if (res.status === 'SERVING') return true;
        } catch {
          // try the next address
        }
      }
      return false;
    },

    close() {
      for (const c of clients) {
        c.render.close();
        c.health.close();
      }
    },
  };
}
