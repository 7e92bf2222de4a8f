import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { Logger } from './logger.ts';
import { ServiceError, codeFromGrpcStatus } from './errors.ts';
import { BACKGROUND_TO_PROTO, FORMAT_TO_PROTO, FRAMING_TO_PROTO, type RenderRequest } from './render-request.ts';
import type { Box } from './framing.ts';
import type { ViewId } from './views.ts';
import { isViewId } from './views.ts';

export type { RenderRequest } from './render-request.ts';

/** The renderer's contract, vehicle.render.v1 (proto/vehicle/render/v1/render.proto). */
export const RENDER_PROTO_PATH = fileURLToPath(new URL('../proto/vehicle/render/v1/render.proto', import.meta.url));
export const HEALTH_PROTO_PATH: string = createRequire(import.meta.url)('grpc-health-check').protoPath;
export const RENDER_SERVICE_NAME = 'vehicle.render.v1.RenderService';
/** The largest chunk the renderer sends. */
export const RENDER_CHUNK_BYTES = 64 * 1024;
/** The HTTP/2 flow-control window of the render client's connections and streams: above any picture. */
export const RENDER_FLOW_CONTROL_WINDOW = 16 * 1024 * 1024;

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
  DescribeRenderer: Unary;
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
  /** The renderer's own time for the picture (ms, from the call's arrival to its header; 0 from an older renderer). */
  renderMs: number;
}

/** gRPC metadata naming the organisation a render is for (the renderer's queue is fair between them). */
export const ORG_METADATA_KEY = 'x-org-id';
/** gRPC metadata carrying the gateway's request id into the renderer's log. */
export const REQUEST_ID_METADATA_KEY = 'x-request-id';

export interface RenderCallOptions {
  deadlineMs: number;
  /** Aborting cancels the call; the renderer stops a render nobody waits for. */
  signal?: AbortSignal;
  /** Sent as `x-org-id` metadata, not in the request message. */
  org?: string;
  /** Sent as `x-request-id` metadata: the renderer logs it with the render. */
  requestId?: string;
}

/** When the call that answered ran, as this process saw it (performance.now(), ms). */
export interface RenderTiming {
  /** The call was made (after any failed attempts on other addresses). */
  callAt: number;
  /** Its header arrived: the renderer had finished the picture. */
  headerAt: number;
  /** Its last chunk arrived (set once the body has been read to its end). */
  endAt?: number;
}

export interface RenderStream {
  header: RenderHeader;
  body: AsyncIterable<Buffer>;
  timing?: RenderTiming;
}

export interface ViewDescription {
  width: number;
  height: number;
  plateQuad: [number, number][] | null;
  shadow: boolean;
  /** A coverage layer exists: the view can be rendered on a transparent background. */
  coverage: boolean;
  /** The vehicle's bounding box (full-size pixels) from the coverage layer; null (or absent) without one. */
  vehicleBox?: Box | null;
  /** The ground line, the vehicle box's bottom (full-size pixels); null (or absent) without a coverage layer. */
  groundY?: number | null;
}

export interface SetDescription {
  id: string;
  revision: string;
  views: Record<ViewId, ViewDescription>;
}

/** render.proto RendererInfo, as the renderer answers DescribeRenderer. */
export interface RendererDescription {
  backend: string;
  description: string;
  choice: string;
  reason: string;
  measured: {
    backend: string;
    description: string;
    composite_ms: Record<string, number>;
    total_ms: number;
    refused: boolean;
    refused_reason: string;
    parity_max_diff: number;
    parity_psnr_db: number;
  }[];
  measure_ms: number;
  probe_set: string;
  probe_view: string;
}

export interface RendererClient {
  render(req: RenderRequest, opts: RenderCallOptions): Promise<RenderStream>;
  describeSet(id: string, opts?: { deadlineMs?: number }): Promise<SetDescription>;
  health(opts?: { deadlineMs?: number }): Promise<boolean>;
  /** Which compositor a renderer runs and why (the first address that answers). */
  describeRenderer(opts?: { deadlineMs?: number }): Promise<RendererDescription>;
  /** Every address has failed since it last answered (a restart, an outage): renders wait or fail now. */
  unreachable(): boolean;
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
  render_ms?: number;
}
interface WireMessage {
  part?: 'header' | 'chunk';
  header?: WireHeader;
  chunk?: Buffer;
}

function bufferedBody(chunks: Buffer[]): AsyncIterable<Buffer> {
  return {
    async *[Symbol.asyncIterator]() {
      yield* chunks;
    },
  };
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

/** Per-address state of the pool. */
interface Member {
  address: string;
  render: RenderStub;
  health: HealthStub;
  /** Not picked before this time (ms) unless every address is down: set by a failed call or health check. */
  downUntil: number;
  failures: number;
  /** When this address went down (its first failure since it last answered); null while up. */
  downSince: number | null;
}

/** Renders are retried on another address (or, all being down, waited for) until this close to the deadline. */
const RETRY_MARGIN_MS = 50;
/**
 * How long every address may have been down and a call still waits for one to come back: a restart
 * (a few seconds) is ridden through, an outage answers at once instead of holding every caller (and
 * its download slot) until its deadline.
 */
export const OUTAGE_WAIT_MS = 6000;
const HEALTH_INTERVAL_MS = 2000;

/**
 * The typed gRPC client of the renderer, as the gateway uses it: a pool over every address of
 * RENDERER_ADDR (one channel per listed address; `dns:///` is one round-robin channel that re-resolves
 * the name). A call that meets UNAVAILABLE before the header (renderer gone, draining, restarting)
 * marks that address down at once and is retried on another; RESOURCE_EXHAUSTED is retried once on
 * each other address; when every address is down the call waits for one to come back (a restarting
 * renderer), all within the request's deadline, for up to `outageWaitMs` (OUTAGE_WAIT_MS) after the
 * last of them went down; past that a call fails at once with UNAVAILABLE until one answers again.
 * A listed address is also health-checked every 2 s.
 */
export function createRendererClient(opts: { addresses: string; logger?: Logger; healthIntervalMs?: number; outageWaitMs?: number }): RendererClient {
  const outageWaitMs = opts.outageWaitMs ?? OUTAGE_WAIT_MS;
  const { RenderService, Health } = renderGrpcObject();
  const addrs = parseAddresses(opts.addresses);
  const channelOptions: grpc.ChannelOptions = {
    'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
    'grpc.keepalive_time_ms': 30_000,
    'grpc.max_receive_message_length': 1024 * 1024,
    // the renderer may send a whole picture without waiting for this side to ask for more: with HTTP/2's
    // default 64 KiB window every 64 KiB of a picture waited for a WINDOW_UPDATE round trip (a 1 MiB png
    // took 10 ms from header to last chunk on loopback; docs/performance.md, "Download overhead"). The
    // gateway reads each picture whole anyway (render(), below), so this holds no more memory than that.
    'grpc-node.flow_control_window': RENDER_FLOW_CONTROL_WINDOW,
    'grpc.enable_retries': 0,
    // a restarting renderer is reconnected to within a second, not after grpc's 1 s..120 s backoff
    'grpc.initial_reconnect_backoff_ms': 200,
    'grpc.max_reconnect_backoff_ms': 1000,
    'grpc.dns_min_time_between_resolutions_ms': 5000,
  };
  const creds = grpc.credentials.createInsecure();
  const clients: Member[] = addrs.map((a) => ({
    address: a,
    render: new (RenderService as unknown as AnyClientCtor)(a, creds, channelOptions) as RenderStub,
    health: new (Health as unknown as AnyClientCtor)(a, creds, channelOptions) as HealthStub,
    downUntil: 0,
    failures: 0,
    downSince: null,
  }));
  let next = 0;
  const isUp = (c: Member) => c.downUntil <= Date.now();
  /** Round robin over the addresses that are up and not yet tried by this call; else the one back first. */
  const pick = (tried: Set<Member>): Member => {
    for (let i = 0; i < clients.length; i++) {
      const c = clients[next++ % clients.length]!;
      if (isUp(c) && !tried.has(c)) return c;
    }
    for (let i = 0; i < clients.length; i++) {
      const c = clients[next++ % clients.length]!;
      if (!tried.has(c)) return c;
    }
    return clients.reduce((a, b) => (a.downUntil <= b.downUntil ? a : b));
  };
  const markDown = (c: Member, why: string) => {
    c.failures++;
    c.downSince ??= Date.now();
    const wasUp = isUp(c);
    c.downUntil = Date.now() + Math.min(2000, 250 * 2 ** Math.min(c.failures - 1, 4));
    if (wasUp) opts.logger?.warn({ address: c.address, why }, 'renderer marked down');
  };
  const markUp = (c: Member) => {
    if (c.failures > 0) opts.logger?.info({ address: c.address }, 'renderer back');
    c.failures = 0;
    c.downUntil = 0;
    c.downSince = null;
  };
  /** Resolves once the channel is connected, or at `until` (whichever first), or on abort. */
  const waitForReady = (c: Member, until: number, signal?: AbortSignal) =>
    new Promise<void>((resolve) => {
      const done = () => {
        signal?.removeEventListener('abort', done);
        resolve();
      };
      signal?.addEventListener('abort', done, { once: true });
      c.render.waitForReady(new Date(until), () => done());
    });

  /**
   * Runs `once` on a member, failing over as described above, until `deadline`. `retryable` decides
   * which errors move on to the next address.
   */
  async function withFailover<T>(deadline: number, signal: AbortSignal | undefined, once: (c: Member) => Promise<T>): Promise<T> {
    const tried = new Set<Member>();
    const exhausted = new Set<Member>();
    let lastErr: ServiceError | null = null;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw new ServiceError('unavailable', 'The render was cancelled');
      if (Date.now() >= deadline - RETRY_MARGIN_MS) {
        throw lastErr ?? new ServiceError('deadline_exceeded');
      }
      const c = pick(tried);
      if (!isUp(c) || tried.has(c)) {
        // every address is down or already failed this call: wait (briefly) for one to come back,
        // unless all of them have been down for longer than a restart takes
        const since = Math.max(...clients.map((m) => m.downSince ?? Date.now()));
        const waitUntil = since + outageWaitMs;
        if (Date.now() >= waitUntil) throw lastErr ?? new ServiceError('unavailable');
        await waitForReady(c, Math.min(deadline - RETRY_MARGIN_MS, Date.now() + 1000, waitUntil), signal);
        tried.clear();
        if (signal?.aborted) continue;
      }
      try {
        const r = await once(c);
        markUp(c);
        return r;
      } catch (e) {
        const se = toServiceError(e);
        lastErr = se;
        if (se.code === 'unavailable' && !signal?.aborted) {
          markDown(c, se.message);
          tried.add(c);
          // the address going down is logged once (markDown); each retry only at debug level
          opts.logger?.debug({ address: c.address, attempt }, 'renderer unavailable, trying again on the pool');
          continue;
        }
        if (se.code === 'resource_exhausted' && clients.length > 1 && !exhausted.has(c)) {
          exhausted.add(c);
          tried.add(c);
          if (exhausted.size < clients.length) continue; // another renderer may have room
        }
        throw se;
      }
    }
  }

  // background health checks of listed addresses (a dns:/// channel balances over healthy pods by itself)
  let healthTimer: NodeJS.Timeout | null = null;
  if (clients.length > 1 && (opts.healthIntervalMs ?? HEALTH_INTERVAL_MS) > 0) {
    healthTimer = setInterval(() => {
      for (const c of clients) {
        c.health.Check({ service: '' }, { deadline: new Date(Date.now() + 1000) }, (err: unknown, r: never) => {
          const status = (r as { status?: string } | undefined)?.status;
          if (err || status !== 'SERVING') markDown(c, err ? 'health check failed' : `health ${status}`);
          else if (!isUp(c) || c.downSince !== null) markUp(c); // an outage's start must not outlive it
        });
      }
    }, opts.healthIntervalMs ?? HEALTH_INTERVAL_MS);
    healthTimer.unref();
  }

  async function renderOnce(
    c: Member,
    wire: Record<string, unknown>,
    deadline: Date,
    o: RenderCallOptions,
  ): Promise<RenderStream> {
    if (o.signal?.aborted) throw new ServiceError('unavailable', 'The render was cancelled');
    const md = new grpc.Metadata();
    if (o.org) md.set(ORG_METADATA_KEY, o.org);
    if (o.requestId) md.set(REQUEST_ID_METADATA_KEY, o.requestId);
    const timing: RenderTiming = { callAt: performance.now(), headerAt: 0 };
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
    timing.headerAt = performance.now();
    const h = first.value.header;
    const header: RenderHeader = {
      contentType: h.content_type,
      width: h.width,
      height: h.height,
      byteLength: Number(h.byte_length),
      etag: h.etag,
      warnings: (h.warnings ?? []).map((w) => w.code),
      cacheHit: Boolean(h.cache_hit),
      renderMs: Number(h.render_ms ?? 0),
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
            if (finished) return { done: true, value: undefined };
            if (received === header.byteLength) {
              // every byte the header announced has come: the picture is whole, so the body ends here
              // without waiting for the call's status (the trailers follow the last chunk only once the
              // renderer's writes have drained); the call finishes by itself
              finished = true;
              timing.endAt = performance.now();
              return { done: true, value: undefined };
            }
            try {
              for (;;) {
                const r = await it.next();
                if (r.done) {
                  finished = true;
                  timing.endAt = performance.now();
                  if (received !== header.byteLength) {
                    // a stream cut short is the transport's failure: another renderer may answer
                    throw new ServiceError('unavailable', undefined, {
                      detail: `renderer sent ${received} of ${header.byteLength} bytes`,
                    });
                  }
                  return { done: true, value: undefined };
                }
                if (r.value.chunk && r.value.chunk.length > 0) {
                  received += r.value.chunk.length;
                  if (received > header.byteLength) {
                    throw new ServiceError('unavailable', undefined, { detail: `renderer sent more than the ${header.byteLength} bytes it announced` });
                  }
                  return { done: false, value: Buffer.from(r.value.chunk) };
                }
              }
            } catch (e) {
              if (!finished) call.cancel();
              finished = true;
              const se = toServiceError(e);
              // after its header a renderer only sends bytes: any break now is the connection's
              if (se.code === 'internal') throw new ServiceError('unavailable', undefined, { cause: e, detail: 'renderer stream broke after its header' });
              throw se;
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
    return { header, body, timing };
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
      if (req.frame) {
        wire.framing = FRAMING_TO_PROTO[req.frame.framing];
        wire.margin = req.frame.margin;
        wire.aspect = req.frame.aspect;
      }
      const deadline = new Date(Date.now() + deadlineMs);
      return withFailover(deadline.getTime(), callOpts.signal, async (c) => {
        // The whole picture is read inside the failover: a renderer that dies after its header (a
        // SIGKILLed pod mid-stream) is retried on another like one that died before it. The renderer
        // has finished the picture before it sends the header, so this delays the first byte only by
        // the transfer of a few MB at most over the internal network; the chunks are passed on as they came.
        const stream = await renderOnce(c, wire, deadline, callOpts);
        const chunks: Buffer[] = [];
        for await (const b of stream.body) chunks.push(b);
        return { header: stream.header, body: bufferedBody(chunks), timing: stream.timing };
      });
    },

    async describeSet(id, o = {}) {
      const deadline = new Date(Date.now() + (o.deadlineMs ?? 5000));
      return withFailover(deadline.getTime(), undefined, async (c) => {
        const res = await new Promise<{
          id: string;
          revision: string;
          views: Record<string, { width: number; height: number; plate_quad: { x: number; y: number }[]; shadow: boolean; coverage?: boolean; vehicle_box?: Box | null; ground_y?: number }>;
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
            // an older renderer sends no box: no layout can be computed from it
            vehicleBox: d.vehicle_box && d.vehicle_box.width > 0 ? { x: d.vehicle_box.x, y: d.vehicle_box.y, width: d.vehicle_box.width, height: d.vehicle_box.height } : null,
            groundY: d.vehicle_box && d.vehicle_box.width > 0 ? Number(d.ground_y) : null,
          };
        }
        return { id: res.id, revision: res.revision, views };
      });
    },

    async health(o = {}) {
      const deadline = new Date(Date.now() + (o.deadlineMs ?? 2000));
      for (let i = 0; i < clients.length; i++) {
        const c = pick(new Set());
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

    async describeRenderer(o = {}) {
      const deadline = new Date(Date.now() + (o.deadlineMs ?? 2000));
      return withFailover(deadline.getTime(), undefined, (c) =>
        new Promise<RendererDescription>((resolve, reject) => c.render.DescribeRenderer({}, { deadline }, (err: unknown, r: never) => (err ? reject(err) : resolve(r)))),
      );
    },

    unreachable() {
      return clients.every((c) => c.downSince !== null);
    },

    close() {
      if (healthTimer) clearInterval(healthTimer);
      for (const c of clients) {
        c.render.close();
        c.health.close();
      }
    },
  };
}
