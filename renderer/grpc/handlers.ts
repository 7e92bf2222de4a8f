import type { BackendReport } from '../backends/select.ts';
import * as grpc from '@grpc/grpc-js';
import type { Logger } from '../../shared/logger.ts';
import { ServiceError, toServiceError } from '../../shared/errors.ts';
import { ORG_METADATA_KEY, RENDER_CHUNK_BYTES, REQUEST_ID_METADATA_KEY, RETRY_AFTER_METADATA_KEY } from '../../shared/render-contract.ts';
import { backgroundFromProto, formatFromProto, framingFromProto } from '../../shared/render-request.ts';
import type { RenderService } from '../render-service.ts';
import { SPIN_GEOMETRY_HEIGHT, SPIN_GEOMETRY_WIDTH } from '../../shared/spin.ts';

interface WireRenderRequest {
  asset_set: string;
  view: string;
  color: string;
  shadow: boolean;
  plate?: string;
  _plate?: string;
  format: string;
  width: number;
  background?: string | number;
  framing?: string | number;
  margin?: number;
  _margin?: string;
  aspect?: string;
}

function grpcError(e: ServiceError): Partial<grpc.StatusObject> {
  const retry = e.code === 'unavailable' ? e.headers?.['Retry-After'] : undefined;
  if (!retry) return { code: e.grpcStatus, details: e.message };
  // a frame still being baked: when to ask again travels as trailing metadata (render-contract.ts)
  const metadata = new grpc.Metadata();
  metadata.set(RETRY_AFTER_METADATA_KEY, retry);
  return { code: e.grpcStatus, details: e.message, metadata };
}

function deadlineOf(call: grpc.ServerWritableStream<unknown, unknown> | grpc.ServerUnaryCall<unknown, unknown>): number {
  const d = call.getDeadline();
  if (d instanceof Date) return d.getTime();
  return typeof d === 'number' && Number.isFinite(d) ? d : Infinity;
}

/** The vehicle.render.v1.RenderService handlers over the transport-free RenderService. */
/** The wire form of how the backend was chosen (render.proto RendererInfo). */
export function rendererInfo(r: BackendReport): Record<string, unknown> {
  return {
    backend: r.backend,
    description: r.description,
    choice: r.choice,
    reason: r.reason,
    measured: r.measured.map((m) => ({
      backend: m.backend,
      description: m.description,
      composite_ms: m.ms,
      total_ms: m.totalMs,
      refused: m.refused !== null,
      refused_reason: m.refused ?? '',
      parity_max_diff: m.parity?.maxDiff ?? 0,
      parity_psnr_db: m.parity && Number.isFinite(m.parity.psnr) ? m.parity.psnr : 0,
    })),
    measure_ms: r.measureMs,
    probe_set: r.probe?.set ?? '',
    probe_view: r.probe?.view ?? '',
  };
}

export function renderHandlers(deps: { service: RenderService; logger: Logger; isDraining: () => boolean; backendReport: BackendReport }) {
  const { service, logger } = deps;
  return {
    async Render(call: grpc.ServerWritableStream<WireRenderRequest, unknown>) {
      const t0 = performance.now();
      let cancelled = false;
      const ac = new AbortController();
      call.on('cancelled', () => {
        cancelled = true;
        ac.abort(); // the render stops once no other caller waits for it
      });
      const org = call.metadata.get(ORG_METADATA_KEY)[0];
      // the gateway's request id: the render's log line carries it (same alphabet the gateway accepts)
      const rid = call.metadata.get(REQUEST_ID_METADATA_KEY)[0];
      const requestId = typeof rid === 'string' && /^[\w.-]{1,64}$/.test(rid) ? rid : undefined;
      try {
        if (deps.isDraining()) throw new ServiceError('unavailable', 'The renderer is shutting down');
        const r = call.request;
        const hasPlate = r._plate === 'plate' || (r.plate !== undefined && r.plate !== '');
        const result = await service.render(
          {
            assetSet: r.asset_set,
            view: r.view,
            color: r.color,
            shadow: r.shadow,
            plate: hasPlate ? (r.plate ?? '') : null,
            format: formatFromProto(r.format),
            width: r.width,
            background: backgroundFromProto(r.background) ?? String(r.background),
            frame: {
              framing: framingFromProto(r.framing),
              // proto3 optional: unset is the default margin, 0 is a margin of 0
              margin: r._margin === 'margin' || (r.margin !== undefined && r.margin !== 0) ? r.margin : undefined,
              aspect: r.aspect || undefined,
            },
          },
          { deadline: deadlineOf(call), signal: ac.signal, tenant: typeof org === 'string' ? org.slice(0, 64) : undefined },
        );
        if (cancelled) return;
        // the renderer's own time for the picture, sent in the header (the caller's wall time is compared with it)
        const renderMs = performance.now() - t0;
        call.write({
          header: {
            content_type: result.contentType,
            width: result.width,
            height: result.height,
            byte_length: result.bytes.length,
            etag: result.etag,
            warnings: result.warnings,
            backend: result.backend,
            cache_hit: result.cacheHit,
            render_ms: renderMs,
          },
        });
        for (let off = 0; off < result.bytes.length && !cancelled; off += RENDER_CHUNK_BYTES) {
          const ok = call.write({ chunk: result.bytes.subarray(off, off + RENDER_CHUNK_BYTES) });
          if (!ok) await new Promise<void>((res) => call.once('drain', res));
        }
        call.end();
        logger.info(
          { requestId, set: r.asset_set, view: r.view, width: r.width, format: result.contentType, hit: result.cacheHit, renderMs: Math.round(renderMs * 10) / 10, ms: Math.round(performance.now() - t0) },
          'render',
        );
      } catch (e) {
        const se = toServiceError(e);
        logger.info({ requestId, set: call.request?.asset_set, code: se.code, cancelled, ms: Math.round(performance.now() - t0) }, 'render failed');
        if (!cancelled) call.emit('error', grpcError(se));
      }
    },

    DescribeRenderer(_call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) {
      callback(null, rendererInfo(deps.backendReport));
    },

    async DescribeSet(call: grpc.ServerUnaryCall<{ id: string }, unknown>, callback: grpc.sendUnaryData<unknown>) {
      try {
        if (deps.isDraining()) throw new ServiceError('unavailable', 'The renderer is shutting down');
        const set = await service.describe(call.request.id);
        const geometry = await service.vehicleGeometry(set);
        const views: Record<string, unknown> = {};
        for (const [id, v] of Object.entries(set.views)) {
          const g = geometry[id];
          views[id] = {
            width: v.width,
            height: v.height,
            plate_quad: v.plateQuad ? v.plateQuad.map(([x, y]) => ({ x, y })) : [],
            shadow: v.shadow,
            coverage: v.coverage,
            ...(g ? { vehicle_box: g.box, ground_y: g.groundY } : {}),
          };
        }
        const spin = service.spinGeometry(set);
        callback(null, {
          id: set.id,
          revision: set.revision,
          views,
          ...(spin
            ? {
                spin: {
                  width: SPIN_GEOMETRY_WIDTH,
                  height: SPIN_GEOMETRY_HEIGHT,
                  frames: [...spin.values()].map((f) => ({
                    yaw_degrees: f.yaw,
                    vehicle_box: f.box,
                    ground_y: f.groundY,
                    plate_quad: f.plateQuad ? f.plateQuad.map(([x, y]) => ({ x, y })) : [],
                  })),
                },
              }
            : {}),
        });
      } catch (e) {
        callback(grpcError(toServiceError(e)));
      }
    },
  };
}
