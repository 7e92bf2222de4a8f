import { MESSAGES, ServiceError } from '../../shared/errors.ts';
import type { ImageOptions } from '../../shared/render-options.ts';
import type { Principal } from '../auth/principal.ts';
import type { VehicleRow, ViewRow } from '../catalog/catalog-repo.ts';
import type { ImageSigner } from '../signing/image-token.ts';
import type { ViewGeometry } from '../render/set-geometry.ts';
import { canonicalFraming, frameGeometry, layoutOf, type Layout } from '../../shared/framing.ts';

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
  /** Where the vehicle, its ground line and its plate are in the picture; null when the renderer could not be asked. */
  layout: Layout | null;
}

/** The format must be one the contract allows (403): the image, batch and spin calls' one check. */
export function checkFormat(principal: Principal, opts: ImageOptions): void {
  if (!principal.contract!.allowedFormats.includes(opts.format)) {
    throw new ServiceError('forbidden', MESSAGES.formatNotInContract(opts.format));
  }
}

/** The one place a view's transparency is checked against background=transparent (400). */
export function checkBackground(opts: ImageOptions, view: ViewRow, which = 'this view'): void {
  if (opts.background === 'transparent' && !view.transparent) {
    throw new ServiceError('bad_request', `Invalid background: transparent is not available for ${which}`);
  }
}

/** `framing=fit` needs the view's vehicle box, which comes from its coverage layer (400 without one). */
export function checkFraming(opts: ImageOptions, view: ViewRow, which = 'this view'): void {
  if (opts.frame.framing === 'fit' && !view.transparent) {
    throw new ServiceError('bad_request', `Invalid framing: fit is not available for ${which}`);
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
  geometry: ViewGeometry | null,
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
    frame: canonicalFraming(opts.frame),
    vehicle: vehicle.id,
    catalogView: view.view,
    org: principal.orgId,
    key: principal.keyId,
  });
  return {
    view: view.view,
    options: answerOptions(opts, query),
    image_url: `${deps.publicBaseUrl()}/images/${token}.${opts.format}`,
    expires_at: expiresAt.toISOString(),
    warnings,
    layout: geometry ? layoutFor(opts, view, geometry) : null,
  };
}

/** The options as an image answer gives them back (spec section 2, plus the extensions each when it was asked). */
export function answerOptions(opts: ImageOptions, query: Record<string, unknown>): Record<string, unknown> {
  const rawPlate = typeof query.plate === 'string' ? query.plate : undefined;
  return {
    color: opts.color,
    color_name: opts.colorName,
    shadow: opts.shadow,
    ...(rawPlate !== undefined ? { plate: rawPlate } : {}),
    format: opts.format,
    width: opts.width,
    // an extension of the spec's options: present only when the caller asked for a background
    ...(query.background !== undefined ? { background: opts.background } : {}),
    // likewise the framing options, each when it was given
    ...(query.framing !== undefined ? { framing: opts.frame.framing } : {}),
    ...(query.margin !== undefined ? { margin: opts.frame.margin } : {}),
    ...(query.aspect !== undefined ? { aspect: opts.frame.aspect } : {}),
  };
}

/** The layout of the picture the URL draws: the renderer's framing geometry (shared/framing.ts) on the view's box. */
function layoutFor(opts: ImageOptions, view: ViewRow, g: ViewGeometry): Layout {
  const assetView = view.asset_view as ViewRow['view'];
  const frame = frameGeometry(view, assetView, g.box, opts.width, opts.frame);
  const plateDrawn = opts.plate !== null && view.plate_quad !== null;
  return layoutOf(frame, assetView, g.box, g.groundY, plateDrawn ? view.plate_quad : null);
}
