import type { Request, RequestHandler, Response } from 'express';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { DownloadGuard, DownloadRefusal } from '../limits/download-guard.ts';

export interface HttpMetrics {
  registry: Registry;
  /**
   * Records a finished response that took `seconds`; the app's request hook (request-log.ts,
   * requestLog) calls it once per response, on 'finish'.
   */
  record(req: Request, res: Response, seconds: number): void;
  /** Marks the mount prefix of a router (`/v1`, `/admin/v1`) for the route label. */
  mount(prefix: string): RequestHandler;
}

/**
 * Latency buckets in seconds, up to the render deadline (image downloads wait on a render that may
 * take RENDER_TIMEOUT_MS) and one step beyond it.
 */
export function durationBuckets(renderTimeoutMs: number): number[] {
  const deadline = renderTimeoutMs / 1000;
  const base = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 20, 30, 60];
  const below = base.filter((b) => b < deadline);
  return [...below, deadline, Math.ceil(deadline * 1.5)];
}

/**
 * Prometheus metrics per route template. The label is the matched route's template with its mount
 * prefix (`/v1/makes/:make`), never the raw path, so neither ids, nor letter case (`/V1/colors` is
 * matched by the `/v1/colors` route), nor unknown paths (`unmatched`) add series.
 */
export function createHttpMetrics(opts: { renderTimeoutMs?: number } = {}): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by method, route template and status',
    labelNames: ['method', 'route', 'status'],
    buckets: durationBuckets(opts.renderTimeoutMs ?? 15_000),
    registers: [registry],
  });
  const errors = new Counter({
    name: 'http_errors_total',
    help: 'Error answers by status',
    labelNames: ['status'],
    registers: [registry],
  });
  const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
  const record = (req: Request, res: Response, seconds: number) => {
    const template = req.route?.path;
    const mount = (res.locals.routeMount as string | undefined) ?? '';
    const route = typeof template === 'string' ? `${mount}${template}` : 'unmatched';
    const method = KNOWN_METHODS.has(req.method) ? req.method : 'other';
    const status = String(res.statusCode);
    duration.observe({ method, route, status }, seconds);
    if (res.statusCode >= 400) errors.inc({ status });
  };
  const mount = (prefix: string): RequestHandler => (_req, res, next) => {
    res.locals.routeMount = prefix;
    next();
  };
  return { registry, record, mount };
}

/**
 * The download guard's state on this gateway, all organisations together (an organisation label
 * would add a series per customer): renders in flight, downloads waiting for a slot, and refusals by
 * reason. `refused` is what the guard calls on each refusal; `watch` gives the gauges their guard.
 */
export function downloadGuardMetrics(registry: Registry): { refused: (reason: DownloadRefusal) => void; watch: (guard: DownloadGuard) => void } {
  let guard: DownloadGuard | null = null;
  new Gauge({
    name: 'gateway_image_download_renders_in_flight',
    help: 'Image-download renders in flight on this gateway (all organisations)',
    registers: [registry],
    collect() {
      this.set(guard?.totals().inFlight ?? 0);
    },
  });
  new Gauge({
    name: 'gateway_image_downloads_waiting',
    help: "Image downloads waiting for one of their organisation's render slots on this gateway",
    registers: [registry],
    collect() {
      this.set(guard?.totals().waiting ?? 0);
    },
  });
  const refusals = new Counter({
    name: 'gateway_image_downloads_refused_total',
    help: 'Image downloads refused by the download guard (429), by reason: minute (the per-minute render budget), queue_full, wait_timeout',
    labelNames: ['reason'],
    registers: [registry],
  });
  return {
    refused: (reason) => refusals.inc({ reason }),
    watch: (g) => {
      guard = g;
    },
  };
}
