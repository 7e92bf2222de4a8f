import type { Request, Response } from 'express';
import { MESSAGES, ServiceError } from '../../../shared/errors.ts';
import { parseImageOptions } from '../../../shared/render-options.ts';
import type { CatalogService } from '../../catalog/catalog-service.ts';
import { vehicleDto } from '../../catalog/catalog-service.ts';
import type { ImageSigner } from '../../signing/image-token.ts';

export type ImageJsonHandler = (req: Request, res: Response, target: { variant: string | null; view: string }) => Promise<void>;

const WARNINGS = {
  SHADOW_UNAVAILABLE: 'This view has no studio shadow; the image is rendered without one',
  PLATE_UNMAPPED: 'This view shows no licence plate; the plate text is not drawn',
} as const;

/**
 * The image JSON call (spec section 4). Rule order: options (400), format in contract (403),
 * vehicle path (404), category in contract (403), view published (404).
 */
export function imageJsonHandler(deps: {
  catalog: CatalogService;
  signer: ImageSigner;
  publicBaseUrl: () => string;
}): ImageJsonHandler {
  return async (req, res, target) => {
    const principal = res.locals.principal;
    const opts = parseImageOptions(req.query as Record<string, unknown>);
    if (!principal.contract!.allowedFormats.includes(opts.format)) {
      throw new ServiceError('forbidden', MESSAGES.formatNotInContract(opts.format));
    }
    const { vehicle, view } = await deps.catalog.resolveImageTarget(
      principal,
      String(req.params.make),
      String(req.params.model),
      String(req.params.year),
      target.variant,
      target.view,
    );
    if (opts.background === 'transparent' && !view.transparent) {
      throw new ServiceError('bad_request', 'Invalid background: transparent is not available for this view');
    }
    const warnings: Array<{ code: keyof typeof WARNINGS; message: string }> = [];
    if (opts.shadow && !view.shadow) warnings.push({ code: 'SHADOW_UNAVAILABLE', message: WARNINGS.SHADOW_UNAVAILABLE });
    if (opts.plate !== null && !view.plate_quad) warnings.push({ code: 'PLATE_UNMAPPED', message: WARNINGS.PLATE_UNMAPPED });
    // The token carries what will actually be drawn, so requests that give the same picture share a URL.
    const { token, expiresAt } = deps.signer.sign({
      set: view.asset_set,
      revision: view.asset_revision,
      view: view.asset_view as typeof view.view,
      color: opts.color,
      shadow: opts.shadow && view.shadow,
      plate: view.plate_quad ? opts.plate : null,
      format: opts.format,
      width: opts.width,
      background: opts.background,
      vehicle: vehicle.id,
      catalogView: view.view,
      org: principal.orgId,
      key: principal.keyId,
    });
    const rawPlate = typeof req.query.plate === 'string' ? req.query.plate : undefined;
    res.json({
      vehicle: vehicleDto(vehicle),
      view: view.view,
      options: {
        color: opts.color,
        color_name: opts.colorName,
        shadow: opts.shadow,
        ...(rawPlate !== undefined ? { plate: rawPlate } : {}),
        format: opts.format,
        width: opts.width,
        // an extension of the spec's options: present only when the caller asked for a background
        ...(req.query.background !== undefined ? { background: opts.background } : {}),
      },
      image_url: `${deps.publicBaseUrl()}/images/${token}.${opts.format}`,
      expires_at: expiresAt.toISOString(),
      warnings,
    });
  };
}
