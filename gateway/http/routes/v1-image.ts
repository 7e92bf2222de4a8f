import type { Request, Response } from 'express';
import { parseImageOptions } from '../../../shared/render-options.ts';
import type { CatalogService } from '../../catalog/catalog-service.ts';
import { vehicleDto } from '../../catalog/catalog-service.ts';
import type { ImageSigner } from '../../signing/image-token.ts';
import type { SetGeometry } from '../../render/set-geometry.ts';
import { checkBackground, checkFormat, checkFraming, signedImageAnswer } from '../image-answer.ts';

export type ImageJsonHandler = (req: Request, res: Response, target: { variant: string | null; view: string }) => Promise<void>;

/**
 * The image JSON call (spec section 4). Rule order: options (400), format in contract (403),
 * vehicle path (404), category in contract (403), view published (404), background and framing
 * available for the view (400).
 */
export function imageJsonHandler(deps: {
  catalog: CatalogService;
  signer: ImageSigner;
  publicBaseUrl: () => string;
  geometry: SetGeometry;
}): ImageJsonHandler {
  return async (req, res, target) => {
    const principal = res.locals.principal;
    const opts = parseImageOptions(req.query as Record<string, unknown>);
    checkFormat(principal, opts);
    const { vehicle, view } = await deps.catalog.resolveImageTarget(
      principal,
      String(req.params.make),
      String(req.params.model),
      String(req.params.year),
      target.variant,
      target.view,
    );
    checkBackground(opts, view);
    checkFraming(opts, view);
    const geometry = await deps.geometry.view(view.asset_set, view.asset_revision, view.asset_view);
    const { view: viewId, ...answer } = signedImageAnswer(deps, principal, opts, req.query as Record<string, unknown>, vehicle, view, geometry);
    res.json({ vehicle: vehicleDto(vehicle), view: viewId, ...answer });
  };
}
