import { Router } from 'express';
import { MESSAGES, ServiceError } from '../../../shared/errors.ts';
import { parseImageOptions } from '../../../shared/render-options.ts';
import { parseSpinOptions } from '../../../shared/spin.ts';
import type { CatalogService } from '../../catalog/catalog-service.ts';
import { vehicleDto } from '../../catalog/catalog-service.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { SetGeometry } from '../../render/set-geometry.ts';
import type { ImageSigner } from '../../signing/image-token.ts';
import { checkFormat } from '../image-answer.ts';
import { ID_RE, validateParams } from '../path-params.ts';
import { signedSpinAnswer } from '../spin-answer.ts';

/**
 * GET /v1/vehicles/{vehicle_id}/spin: the signed frames of a turntable around a vehicle, in one counted
 * call (docs/api.md, "Spins"). The rules of the image calls, in their order, then the spin's own:
 * options (400: frames and width by shared/spin.ts, the rest by the image call's parser), format in the
 * contract (403), the contract's `spin` feature (403), vehicle published (404), category in the contract
 * (403), the vehicle's set has a spin (404; 503 while no renderer can tell).
 */
export function spinRoutes(deps: { catalog: CatalogService; signer: ImageSigner; publicBaseUrl: () => string; geometry: SetGeometry; logger: Logger }): Router {
  const r = Router();
  validateParams(r, { vehicle_id: ID_RE });
  r.get('/vehicles/:vehicle_id/spin', async (req, res) => {
    const principal = res.locals.principal;
    const query = req.query as Record<string, unknown>;
    const spinOpts = parseSpinOptions(query);
    // the image call's options and messages; the width is the spin's (its own range and default)
    const opts = { ...parseImageOptions({ ...query, width: undefined }), width: spinOpts.width };
    checkFormat(principal, opts);
    if (!principal.contract!.features.includes('spin')) throw new ServiceError('forbidden', MESSAGES.spinNotInContract);
    const { vehicle, revision } = await deps.catalog.resolveSpinTarget(principal, String(req.params.vehicle_id));
    if (revision === null) throw new ServiceError('not_found', MESSAGES.noSpin);
    const lookup = await deps.geometry.spin(vehicle.asset_set, revision);
    if (!lookup.known) {
      deps.logger.warn({ set: vehicle.asset_set, vehicle: vehicle.id }, 'spin call: the renderer could not describe the set; answered 503');
      throw new ServiceError('unavailable', MESSAGES.unavailable, { headers: { 'Retry-After': '5' } });
    }
    if (!lookup.spin) throw new ServiceError('not_found', MESSAGES.noSpin);
    const answer = signedSpinAnswer(deps, principal, opts, spinOpts, query, vehicle, revision, lookup.spin);
    res.json({ vehicle: vehicleDto(vehicle), ...answer });
  });
  return r;
}
