/**
 * A small typed client of the vehicle image service, over openapi-fetch and the types generated
 * from docs/openapi.json (schema.d.ts). It adds what every caller needs: the key on every /v1
 * call (never on image downloads, which may be served by a CDN), retries of 429 answers after the
 * wait the gateway names, typed errors, and picture downloads. See client/README.md.
 */
import fs from 'node:fs/promises';
import createFetchClient from 'openapi-fetch';
import type { components, operations, paths } from './schema.d.ts';

export type { components, operations, paths };
export type Schemas = components['schemas'];
export type ErrorCode = Schemas['Error']['error'];
/** The image options every image call takes (spec section 4), typed from the OpenAPI document. */
export type ImageQuery = NonNullable<operations['getVehicleImages']['parameters']['query']>;
/** The spin call's options: `frames` (8, 12, 24, 36, 72), `width` (200..1600) and the image options. */
export type SpinQuery = NonNullable<operations['getVehicleSpin']['parameters']['query']>;
/** A spin answer: the vehicle, the options, the frames in order of yaw (each a signed URL and its layout), warnings. */
export type Spin = Schemas['Spin'];

/** An error answer of the service, or an answer the client could not read as one. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    /** HTTP status. */
    readonly status: number,
    /** The service's error code; `unexpected_response` when the body was not `{error, message}`. */
    readonly code: ErrorCode | 'unexpected_response',
    message: string,
    /** The answer's X-Request-Id, for support requests. */
    readonly requestId: string | null,
    /** Seconds to wait before the same call can succeed (429, 503), when the service said so. */
    readonly retryAfterSeconds: number | null,
  ) {
    super(message);
  }
}

export interface ClientOptions {
  /** The gateway, e.g. `https://images.example.com` (no trailing `/v1`). */
  baseUrl: string;
  /** `svc_live_…`: sent as `x-api-key` on /v1 calls only. */
  apiKey: string;
  /** Another fetch (tests, proxies); default the global one. */
  fetch?: typeof fetch;
  /** How many times a 429 is retried (default 3; 0: never). */
  maxRetries?: number;
  /** A 429 whose wait is longer is not retried (default 60 s): a spent monthly quota waits for the next month. */
  maxRetryDelayMs?: number;
  /** Called before each retry (logging, metrics). */
  onRetry?: (info: { attempt: number; delayMs: number; status: number; url: string }) => void;
  /**
   * How the wait before a retry is spent (default: a timer, ended early by the request's abort
   * signal). A scheduler with a clock of its own, or a test that moves the server's clock instead of
   * waiting a minute, passes its own.
   */
  sleep?: (ms: number, signal: AbortSignal | null) => Promise<void>;
}

export interface DownloadedImage {
  bytes: Uint8Array;
  contentType: string;
  etag: string | null;
}

/** Seconds from `Retry-After` (delta-seconds or an HTTP date). */
export function parseRetryAfter(value: string | null, nowMs = Date.now()): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - nowMs) / 1000));
}

/**
 * Seconds until an exhausted rate-limit policy resets: the structured `RateLimit` header the
 * gateway sends (`"minute";r=0;t=12, …`: the longest `t` among policies with `r=0`), or the older
 * `RateLimit-Reset` (seconds).
 */
export function parseRateLimitReset(headers: Headers): number | null {
  const structured = headers.get('ratelimit');
  if (structured) {
    let wait: number | null = null;
    for (const item of structured.split(',')) {
      const r = /;\s*r=(\d+)/.exec(item);
      const t = /;\s*t=(\d+)/.exec(item);
      if (r && t && Number(r[1]) === 0) wait = Math.max(wait ?? 0, Number(t[1]));
    }
    if (wait !== null) return wait;
  }
  const legacy = headers.get('ratelimit-reset');
  return legacy !== null && /^\d+$/.test(legacy.trim()) ? Number(legacy.trim()) : null;
}

/** How long to wait before retrying a 429: Retry-After first, then the rate-limit reset, else 1 s. */
export function retryDelayMs(headers: Headers): number {
  const seconds = parseRetryAfter(headers.get('retry-after')) ?? parseRateLimitReset(headers) ?? 1;
  return seconds * 1000;
}

const timerSleep = (ms: number, signal: AbortSignal | null) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

/** A fetch that retries 429 answers (GET and HEAD only: the service's calls are all reads). */
export function retryingFetch(opts: Pick<ClientOptions, 'fetch' | 'maxRetries' | 'maxRetryDelayMs' | 'onRetry' | 'sleep'> = {}): (input: Request) => Promise<Response> {
  const inner = opts.fetch ?? globalThis.fetch;
  const sleep = opts.sleep ?? timerSleep;
  const maxRetries = opts.maxRetries ?? 3;
  const maxDelay = opts.maxRetryDelayMs ?? 60_000;
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      const res = await inner(request.clone());
      if (res.status !== 429 || attempt >= maxRetries || !['GET', 'HEAD'].includes(request.method)) return res;
      const delay = retryDelayMs(res.headers);
      if (delay > maxDelay) return res;
      // a little jitter so that clients refused together do not all come back in the same instant
      const delayMs = delay + Math.floor(Math.random() * Math.min(250, delay / 10 + 1));
      await res.body?.cancel();
      opts.onRetry?.({ attempt: attempt + 1, delayMs, status: res.status, url: request.url });
      await sleep(delayMs, request.signal ?? null);
    }
  };
}

/** Turns a non-2xx answer into an ApiError (the body is read here). */
export async function errorFrom(res: Response, body?: unknown): Promise<ApiError> {
  let parsed = body;
  if (parsed === undefined) parsed = await res.json().catch(() => undefined);
  const requestId = res.headers.get('x-request-id');
  const retryAfter = parseRetryAfter(res.headers.get('retry-after'));
  const e = parsed as { error?: unknown; message?: unknown } | undefined;
  if (e && typeof e.error === 'string' && typeof e.message === 'string') {
    return new ApiError(res.status, e.error as ErrorCode, e.message, requestId, retryAfter);
  }
  return new ApiError(res.status, 'unexpected_response', `HTTP ${res.status} ${res.statusText}`.trim(), requestId, retryAfter);
}

type Result<D> = { data?: D; error?: unknown; response: Response };

/** The data of an openapi-fetch result, or its error as an ApiError. */
export async function unwrap<R extends Result<unknown>>(call: Promise<R>): Promise<NonNullable<R['data']>> {
  const r = await call;
  if (r.response.ok && r.data !== undefined) return r.data as NonNullable<R['data']>;
  throw await errorFrom(r.response, r.error ?? null);
}

export function createClient(opts: ClientOptions) {
  const baseUrl = opts.baseUrl.replace(/\/+$/, '');
  const fetchWithRetries = retryingFetch(opts);
  const api = createFetchClient<paths>({ baseUrl, fetch: fetchWithRetries, headers: { 'x-api-key': opts.apiKey } });
  const get = api.GET;

  return {
    /** The typed openapi-fetch client itself: `api.GET('/v1/…', { params })` for any call. */
    api,
    root: () => unwrap(get('/v1')),
    me: () => unwrap(get('/v1/me')),
    usage: (month?: string) => unwrap(get('/v1/usage', { params: { query: month ? { month } : {} } })),
    makes: () => unwrap(get('/v1/makes')),
    models: (make: string) => unwrap(get('/v1/makes/{make}/models', { params: { path: { make } } })),
    years: (make: string, model: string) => unwrap(get('/v1/makes/{make}/models/{model}', { params: { path: { make, model } } })),
    /** A year: its vehicle and views, or its variant choices. */
    year: (make: string, model: string, year: number) =>
      unwrap(get('/v1/makes/{make}/models/{model}/{year}', { params: { path: { make, model, year } } })),
    variant: (make: string, model: string, year: number, variant: string) =>
      unwrap(get('/v1/makes/{make}/models/{model}/{year}/{variantOrView}', { params: { path: { make, model, year, variantOrView: variant } } })),
    /** The signed image JSON of one view; `variant` null when the year has one vehicle. */
    image: (target: { make: string; model: string; year: number; variant: string | null; view: Schemas['ViewId'] }, query: ImageQuery = {}) =>
      target.variant === null
        ? unwrap(get('/v1/makes/{make}/models/{model}/{year}/{variantOrView}', {
            params: { path: { make: target.make, model: target.model, year: target.year, variantOrView: target.view }, query },
          }))
        : unwrap(get('/v1/makes/{make}/models/{model}/{year}/{variant}/{view}', {
            params: { path: { make: target.make, model: target.model, year: target.year, variant: target.variant, view: target.view }, query },
          })),
    /** Every published view of a vehicle (or `query.views`) in one counted call. */
    vehicleImages: (vehicleId: string, query: ImageQuery & { views?: string } = {}) =>
      unwrap(get('/v1/vehicles/{vehicle_id}/images', { params: { path: { vehicle_id: vehicleId }, query } })),
    /**
     * A turntable around a vehicle in one counted call: `frames` signed frame URLs in order of yaw (0 = the
     * front view's camera, growing towards the vehicle's left side). Needs the contract's `spin` feature.
     */
    spin: (vehicleId: string, query: SpinQuery = {}) =>
      unwrap(get('/v1/vehicles/{vehicle_id}/spin', { params: { path: { vehicle_id: vehicleId }, query } })),
    search: (q: string, limit?: number) => unwrap(get('/v1/search', { params: { query: limit === undefined ? { q } : { q, limit } } })),
    colors: () => unwrap(get('/v1/colors')),
    views: () => unwrap(get('/v1/views')),

    /** Downloads a signed `image_url` (not counted; the key is not sent), retrying 429 like the API calls. */
    async download(imageUrl: string, init: { signal?: AbortSignal } = {}): Promise<DownloadedImage> {
      const res = await fetchWithRetries(new Request(imageUrl, { signal: init.signal }));
      if (!res.ok) throw await errorFrom(res);
      return {
        bytes: new Uint8Array(await res.arrayBuffer()),
        contentType: res.headers.get('content-type') ?? 'application/octet-stream',
        etag: res.headers.get('etag'),
      };
    },
    /** Downloads a signed `image_url` into a file; answers the bytes written. */
    async downloadToFile(imageUrl: string, file: string, init: { signal?: AbortSignal } = {}): Promise<DownloadedImage> {
      const image = await this.download(imageUrl, init);
      await fs.writeFile(file, image.bytes);
      return image;
    },
  };
}

export type VehicleImageClient = ReturnType<typeof createClient>;
