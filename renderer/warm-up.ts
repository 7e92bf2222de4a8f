import type { Logger } from '../shared/logger.ts';
import { FORMATS, WIDTH_MIN, type ImageFormat } from '../shared/render-options.ts';
import { toServiceError } from '../shared/errors.ts';
import { VIEW_IDS, type ViewId } from '../shared/views.ts';
import type { AssetStore } from './assets/asset-store.ts';
import type { RenderService } from './render-service.ts';
import { connectRenderer } from '../shared/render-contract.ts';
import type { RenderRequest } from '../shared/render-request.ts';

/** Width of the warm-up renders: small (about a millisecond of composite), and a reduced level, so the level chain's code runs too. */
export const WARM_UP_WIDTH = 400;
/** How long the renderer may spend warming up before it starts serving anyway. */
export const WARM_UP_BUDGET_MS = 10_000;
const WARM_UP_COLOR = '#7A8B9C';
const WARM_UP_PLATE = 'AB 123';

export interface WarmUpResult {
  /** The set and view rendered; null when no set had a view to render (nothing was done). */
  set: string | null;
  view: ViewId | null;
  /** Milliseconds per render, in order (format, and `png-transparent` for the transparent one). */
  renders: Record<string, number>;
  ms: number;
  /** The last picture made, as asked (a later identical call is a cache hit); null when none was. */
  request: RenderRequest | null;
  /** Why it stopped early: the first failure's code (deadline_exceeded, internal…), or null when every render was made. */
  failed: string | null;
}

/**
 * Before the renderer takes calls, one view of the first loaded set is rendered once in every format
 * (shadow and plate on, and on a transparent background where the view has one) through the service
 * itself, so that a new renderer's first customer does not pay for V8 compiling the render path, the
 * encoders' first use and the plate font (40–70 ms measured on the first render after a restart:
 * docs/performance-renderer.md, "Eleventh pass"). The pictures stay in the render cache like any
 * other; the levels stay in the layer cache until evicted. A failure is logged and never stops the
 * start: a warm-up is worth milliseconds, a renderer that does not start is an outage.
 */
export async function warmUp(
  deps: { service: RenderService; store: AssetStore; sets: readonly string[]; logger: Logger },
  opts: { budgetMs?: number } = {},
): Promise<WarmUpResult> {
  const t0 = performance.now();
  const deadline = Date.now() + (opts.budgetMs ?? WARM_UP_BUDGET_MS);
  const result: WarmUpResult = { set: null, view: null, renders: {}, ms: 0, failed: null, request: null };
  const target = await pickView(deps.store, deps.sets);
  if (!target) {
    deps.logger.info('renderer warm-up skipped: no asset set with a view to render');
    return result;
  }
  result.set = target.set;
  result.view = target.view;
  const jobs: { name: string; format: ImageFormat; background: 'studio' | 'transparent' }[] = FORMATS.map((format) => ({ name: format, format, background: 'studio' }));
  if (target.coverage) jobs.push({ name: 'png-transparent', format: 'png', background: 'transparent' });
  for (const job of jobs) {
    const t = performance.now();
    const request: RenderRequest = {
      assetSet: target.set,
      view: target.view,
      color: WARM_UP_COLOR,
      shadow: true,
      plate: WARM_UP_PLATE,
      format: job.format,
      width: target.width,
      background: job.background,
    };
    try {
      await deps.service.render(request, { deadline });
      result.request = request;
    } catch (e) {
      result.failed = toServiceError(e).code;
      deps.logger.warn({ set: target.set, view: target.view, render: job.name, err: e }, 'renderer warm-up stopped early; serving anyway');
      break;
    }
    result.renders[job.name] = Math.round((performance.now() - t) * 10) / 10;
  }
  result.ms = Math.round(performance.now() - t0);
  if (result.failed === null) deps.logger.info({ set: result.set, view: result.view, width: target.width, renders: result.renders, ms: result.ms }, 'renderer warmed up');
  return result;
}

/**
 * The gRPC side of the warm-up, once the port is open: the warm-up's last picture asked again over a
 * loopback connection (a cache hit), so the first customer's call does not pay for grpc-js' server
 * path running for the first time either. Never throws: it is worth milliseconds.
 */
export async function warmUpGrpc(deps: { host: string; port: number; request: RenderRequest; logger: Logger }, opts: { budgetMs?: number } = {}): Promise<boolean> {
  const host = deps.host === '0.0.0.0' || deps.host === '::' || deps.host === '' ? '127.0.0.1' : deps.host;
  const client = connectRenderer(host.includes(':') ? `[${host}]:${deps.port}` : `${host}:${deps.port}`);
  const t0 = performance.now();
  try {
    const budgetMs = opts.budgetMs ?? 2000;
    const stream = await client.render(deps.request, new Date(Date.now() + budgetMs), { deadlineMs: budgetMs });
    for await (const _ of stream.body) void _;
    deps.logger.info({ ms: Math.round((performance.now() - t0) * 10) / 10, cacheHit: stream.header.cacheHit }, 'renderer warmed up over gRPC');
    return true;
  } catch (e) {
    deps.logger.warn({ err: e }, 'renderer warm-up over gRPC failed; serving anyway');
    return false;
  } finally {
    client.close();
  }
}

/** The first set (in the order given) with a view; among its views the first with a plate and a shadow, else its first. */
export async function pickView(store: AssetStore, sets: readonly string[]): Promise<{ set: string; view: ViewId; width: number; coverage: boolean } | null> {
  for (const id of sets) {
    const meta = await store.getSet(id).catch(() => null);
    if (!meta) continue;
    const views = VIEW_IDS.filter((v) => meta.views[v]);
    const view = views.find((v) => meta.views[v]!.plateQuad && meta.views[v]!.shadow) ?? views[0];
    if (!view) continue;
    const v = meta.views[view]!;
    return { set: id, view, width: Math.max(WIDTH_MIN, Math.min(WARM_UP_WIDTH, v.width)), coverage: v.coverage };
  }
  return null;
}
