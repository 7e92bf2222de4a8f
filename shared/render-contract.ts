import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
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
/**
 * Trailing metadata of an UNAVAILABLE that is not an outage: seconds after which to ask again (a spin
 * frame still being baked). The client turns it into the error's Retry-After; the gateway's pool does
 * not fail over on it, and the gateway answers 503 with that Retry-After.
 */
export const RETRY_AFTER_METADATA_KEY = 'x-retry-after-s';

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

export interface SpinFrameDescription {
  yawDegrees: number;
  /** Pixels of a frame spin.width × spin.height. */
  vehicleBox: Box;
  groundY: number;
  plateQuad: [number, number][] | null;
}

/** render.proto SpinInfo: a set's spin frames' geometry (shared/spin.ts). */
export interface SpinDescription {
  width: number;
  height: number;
  /** Keyed by yaw in degrees (0, 5, … 355). */
  frames: Map<number, SpinFrameDescription>;
}

export interface SetDescription {
  id: string;
  revision: string;
  views: Record<ViewId, ViewDescription>;
  /** null: the set has no 3D source, so no spin. */
  spin: SpinDescription | null;
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

export function bufferedBody(chunks: Buffer[]): AsyncIterable<Buffer> {
  return {
    async *[Symbol.asyncIterator]() {
      yield* chunks;
    },
  };
}

export function toServiceError(e: unknown): ServiceError {
  if (e instanceof ServiceError) return e;
  const err = e as Partial<grpc.ServiceError>;
  if (typeof err.code === 'number') {
    const code = codeFromGrpcStatus(err.code);
    // the renderer's messages are public (they never carry internals); transport ones are replaced
    const message = code === 'bad_request' || code === 'not_found' ? err.details || undefined : undefined;
    const retry = code === 'unavailable' ? retryAfterOf(err.metadata) : null;
    return new ServiceError(code, message, { cause: e, detail: err.details, ...(retry ? { headers: { 'Retry-After': retry } } : {}) });
  }
  return new ServiceError('internal', undefined, { cause: e });
}

/** The renderer's retry hint (RETRY_AFTER_METADATA_KEY), whole seconds 1..3600; null when absent or not one. */
function retryAfterOf(md: grpc.Metadata | undefined): string | null {
  const v = md?.get(RETRY_AFTER_METADATA_KEY)[0];
  return typeof v === 'string' && /^[1-9]\d{0,3}$/.test(v) && Number(v) <= 3600 ? v : null;
}

/** The channel options of every connection to a renderer. */
export const RENDER_CHANNEL_OPTIONS: grpc.ChannelOptions = {
  'grpc.service_config': JSON.stringify({ loadBalancingConfig: [{ round_robin: {} }] }),
  'grpc.keepalive_time_ms': 30_000,
  'grpc.max_receive_message_length': 1024 * 1024,
  // the renderer may send a whole picture without waiting for this side to ask for more: with HTTP/2's
  // default 64 KiB window every 64 KiB of a picture waited for a WINDOW_UPDATE round trip (a 1 MiB png
  // took 10 ms from header to last chunk on loopback; docs/performance.md, "Download overhead"). The
  // gateway reads each picture whole anyway (its renderer pool), so this holds no more memory than that.
  'grpc-node.flow_control_window': RENDER_FLOW_CONTROL_WINDOW,
  'grpc.enable_retries': 0,
  // a restarting renderer is reconnected to within a second, not after grpc's 1 s..120 s backoff
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 1000,
  'grpc.dns_min_time_between_resolutions_ms': 5000,
};

/**
 * One renderer address, each call made once: what every client of the renderer is built on (the
 * gateway's pool fails over between several of these, gateway/render/renderer-pool.ts; the renderer's
 * own warm-up, the health check and the studio use one directly).
 */
export interface RendererConnection {
  readonly address: string;
  /** The header once the renderer has finished the picture; the body streams its chunks (read it once). */
  render(req: RenderRequest, deadline: Date, opts: RenderCallOptions): Promise<RenderStream>;
  describeSet(id: string, deadline: Date): Promise<SetDescription>;
  describeRenderer(deadline: Date): Promise<RendererDescription>;
  /** The grpc.health.v1 status of the whole server ('SERVING', 'NOT_SERVING', …). */
  health(deadline: Date): Promise<string>;
  /** Calls back once the channel is connected, or at `until`. */
  waitForReady(until: Date, done: () => void): void;
  close(): void;
}

export function connectRenderer(address: string): RendererConnection {
  const { RenderService, Health } = renderGrpcObject();
  const creds = grpc.credentials.createInsecure();
  const render = new (RenderService as unknown as AnyClientCtor)(address, creds, RENDER_CHANNEL_OPTIONS) as RenderStub;
  const health = new (Health as unknown as AnyClientCtor)(address, creds, RENDER_CHANNEL_OPTIONS) as HealthStub;
  return {
    address,
    render: (req, deadline, o) => renderCall(render, toWireRequest(req), deadline, o),
    describeSet: (id, deadline) => describeSetCall(render, id, deadline),
    describeRenderer: (deadline) =>
      new Promise<RendererDescription>((resolve, reject) => render.DescribeRenderer({}, { deadline }, (err: unknown, r: never) => (err ? reject(err) : resolve(r)))),
    health: (deadline) =>
      new Promise<string>((resolve, reject) => health.Check({ service: '' }, { deadline }, (err: unknown, r: never) => (err ? reject(err) : resolve((r as { status: string }).status)))),
    waitForReady: (until, done) => render.waitForReady(until, () => done()),
    close() {
      render.close();
      health.close();
    },
  };
}

export function toWireRequest(req: RenderRequest): Record<string, unknown> {
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
  return wire;
}

async function renderCall(
  stub: RenderStub,
  wire: Record<string, unknown>,
  deadline: Date,
  o: RenderCallOptions,
): Promise<RenderStream> {
  if (o.signal?.aborted) throw new ServiceError('unavailable', 'The render was cancelled');
  const md = new grpc.Metadata();
  if (o.org) md.set(ORG_METADATA_KEY, o.org);
  if (o.requestId) md.set(REQUEST_ID_METADATA_KEY, o.requestId);
  const timing: RenderTiming = { callAt: performance.now(), headerAt: 0 };
  const call = stub.Render(wire, md, { deadline }) as grpc.ClientReadableStream<WireMessage>;
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


async function describeSetCall(stub: RenderStub, id: string, deadline: Date): Promise<SetDescription> {
  const res = await new Promise<{
    id: string;
    revision: string;
    views: Record<string, { width: number; height: number; plate_quad: { x: number; y: number }[]; shadow: boolean; coverage?: boolean; vehicle_box?: Box | null; ground_y?: number }>;
    spin?: WireSpin | null;
  }>((resolve, reject) => stub.DescribeSet({ id }, { deadline }, (err: unknown, r: never) => (err ? reject(err) : resolve(r))));
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
  return { id: res.id, revision: res.revision, views, spin: spinFromWire(res.spin) };
}

interface WireSpin {
  width: number;
  height: number;
  frames: { yaw_degrees: number; vehicle_box?: Box | null; ground_y: number; plate_quad: { x: number; y: number }[] }[];
}

function spinFromWire(w: WireSpin | null | undefined): SpinDescription | null {
  if (!w || !w.frames?.length) return null;
  const frames = new Map<number, SpinFrameDescription>();
  for (const f of w.frames) {
    if (!f.vehicle_box) continue;
    frames.set(f.yaw_degrees, {
      yawDegrees: f.yaw_degrees,
      vehicleBox: { x: f.vehicle_box.x, y: f.vehicle_box.y, width: f.vehicle_box.width, height: f.vehicle_box.height },
      groundY: Number(f.ground_y),
      plateQuad: f.plate_quad.length === 4 ? f.plate_quad.map((p) => [p.x, p.y] as [number, number]) : null,
    });
  }
  return { width: w.width, height: w.height, frames };
}
