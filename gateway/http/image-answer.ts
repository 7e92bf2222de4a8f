import { ServiceError } from '../../shared/errors.ts';
import type { ImageOptions } from '../../shared/render-options.ts';
import type { Principal } from '../auth/principal.ts';
import type { VehicleRow, ViewRow } from '../catalog/catalog-repo.ts';
import type { ImageSigner } from '../signing/image-token.ts';

export const WARNINGS = {
  SHADOW_UNAVAILABLE: 'This view has no studio shadow; the image is rendered without one',
  PLATE_UNMAPPED: 'This view shows no licence plate; the plate text is not drawn',
} as const;

export interface ImageAnswer {
  view: string;
  options: Record<string, unknown>;
  image_url: string;
  expires_at: string;
  warnings: Array<{ code: keyof typeof WARNINGS; message: string }>;
}

/** The one place a view's transparency is checked against background=transparent (400). */
export function checkBackground(opts: ImageOptions, view: ViewRow, which = 'this view'): void {
  if (opts.background === 'transparent' && !view.transparent) {
    throw new ServiceError('bad_request', `Invalid background: transparent is not available for ${which}`);
  }
}

/**
 * The signed image of one published view with validated options: the spec's warnings, the URL and
 * the options as answered (spec section 2, "Image render response"). Shared by the single image
 * call and the batch call so both apply the same rules.
 */
export function signedImageAnswer(
  deps: { signer: ImageSigner; publicBaseUrl: () => string },
  principal: Principal,
  opts: ImageOptions,
  query: Record<string, unknown>,
  vehicle: VehicleRow,
  view: ViewRow,
): ImageAnswer {
  const warnings: ImageAnswer['warnings'] = [];
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
  const rawPlate = typeof query.plate === 'string' ? query.plate : undefined;
  return {
    view: view.view,
    options: {
      color: opts.color,
      color_name: opts.colorName,
      shadow: opts.shadow,
      ...(rawPlate !== undefined ? { plate: rawPlate } : {}),
      format: opts.format,
      width: opts.width,
      // an extension of the spec's options: present only when the caller asked for a background
      ...(query.background !== undefined ? { background: opts.background } : {}),
    },
    image_url: `${deps.publicBaseUrl()}/images/${token}.${opts.format}`,
    expires_at: expiresAt.toISOString(),
    warnings,
  };
}
