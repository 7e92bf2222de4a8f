import { Router } from 'express';
import { ServiceError } from '../../../shared/errors.ts';
import { singleParam } from '../../../shared/query-param.ts';
import { parseImageOptions } from '../../../shared/render-options.ts';
import { VIEW_IDS, isViewId, type ViewId } from '../../../shared/views.ts';
import type { CatalogService } from '../../catalog/catalog-service.ts';
import { vehicleDto } from '../../catalog/catalog-service.ts';
import type { ImageSigner } from '../../signing/image-token.ts';
import { ID_RE, validateParams } from '../path-params.ts';
import type { SetGeometry } from '../../render/set-geometry.ts';
import { checkBackground, checkFormat, checkFraming, signedImageAnswer } from '../image-answer.ts';

/**
 * `views=front,rear`: view ids separated by commas. An id that is not one of the nine is the
 * caller's mistake (400); a repeated id is answered once, where it first appears.
 */
export function parseViewList(raw: unknown): ViewId[] | null {
  const text = singleParam('views', raw);
  if (text === undefined) return null;
  const parts = text.split(',').map((s) => s.trim());
  if (parts.some((s) => s.length === 0)) {
    throw new ServiceError('bad_request', 'Invalid views: use view ids separated by commas, none empty');
  }
  const out: ViewId[] = [];
  for (const part of parts) {
    if (!isViewId(part)) {
      const shown = /^[\w-]{1,32}$/.test(part) ? ` "${part}"` : '';
      throw new ServiceError('bad_request', `Invalid views: unknown view id${shown}; use ${VIEW_IDS.join(', ')}`);
    }
    if (!out.includes(part)) out.push(part);
  }
  return out;
}

/**
 * GET /v1/vehicles/{vehicle_id}/images: the signed images of a vehicle's published views (or the
 * listed ones) with one set of options, in one counted call. Every rule of the single image call
 * (spec section 4) applies to each view, in the same order: options and view ids (400), format in
 * the contract (403), vehicle published (404), category in the contract (403), each listed view
 * published (404 for the whole call), transparent background and fit framing available (400 for
 * the whole call).
 * Warnings are per view.
 */
export function vehicleImagesRoutes(deps: { catalog: CatalogService; signer: ImageSigner; publicBaseUrl: () => string; geometry: SetGeometry }): Router {
  const r = Router();
  validateParams(r, { vehicle_id: ID_RE });
  r.get('/vehicles/:vehicle_id/images', async (req, res) => {
    const principal = res.locals.principal;
    const query = req.query as Record<string, unknown>;
    const opts = parseImageOptions(query);
    const listed = parseViewList(query.views);
    checkFormat(principal, opts);
    const { vehicle, views } = await deps.catalog.resolveVehicleViews(principal, String(req.params.vehicle_id), listed);
    for (const view of views) checkBackground(opts, view, `view ${view.view}`);
    for (const view of views) checkFraming(opts, view, `view ${view.view}`);
    const geometry = await Promise.all(views.map((v) => deps.geometry.view(v.asset_set, v.asset_revision, v.asset_view)));
    res.json({
      vehicle_id: vehicle.id,
      vehicle: vehicleDto(vehicle),
      images: views.map((view, i) => signedImageAnswer(deps, principal, opts, query, vehicle, view, geometry[i] ?? null)),
    });
  });
  return r;
}
