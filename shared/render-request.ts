import { ServiceError } from './errors.ts';
import { BACKGROUNDS, FORMATS, WIDTH_MAX, WIDTH_MIN, normalisePlate, transparentFormatError, type Background, type ImageFormat } from './render-options.ts';
import { DEFAULT_FRAMING_OPTIONS, MARGIN_MAX, canonicalFraming, framingError, isAspect, isFraming, type FramingOptions } from './framing.ts';
import { isShotId, type ShotId } from './shot-id.ts';

/** One render as the gateway (or any internal service) asks the renderer for it. */
export interface RenderRequest {
  assetSet: string;
  /** One of the nine views, or a spin frame (`yaw-000` … `yaw-355`) of a set with a 3D source. */
  view: ShotId;
  color: string; // '#RRGGBB'
  shadow: boolean;
  plate: string | null;
  format: ImageFormat;
  width: number;
  /** 'studio' (the backdrop of the shot; the default) or 'transparent' (the car and its shadow on an empty canvas). */
  background?: Background;
  /** framing, margin, aspect (shared/framing.ts); absent: studio at 16:9, the shot as it was made. */
  frame?: FramingOptions;
}

export const RENDER_WARNING_CODES = ['SHADOW_UNAVAILABLE', 'PLATE_UNMAPPED'] as const;
export type RenderWarningCode = (typeof RENDER_WARNING_CODES)[number];

/** proto enum names of vehicle.render.v1.Background */
export const BACKGROUND_TO_PROTO: Record<Background, string> = {
  studio: 'BACKGROUND_STUDIO',
  transparent: 'BACKGROUND_TRANSPARENT',
};

export function backgroundFromProto(name: string | number | undefined): Background | null {
  if (name === undefined || name === 0 || name === 'BACKGROUND_STUDIO') return 'studio';
  if (name === 1 || name === 'BACKGROUND_TRANSPARENT') return 'transparent';
  return null;
}

/** proto enum names of vehicle.render.v1.ImageFormat */
export const FORMAT_TO_PROTO: Record<ImageFormat, string> = {
  webp: 'IMAGE_FORMAT_WEBP',
  png: 'IMAGE_FORMAT_PNG',
  jpeg: 'IMAGE_FORMAT_JPEG',
};

/** proto enum names of vehicle.render.v1.Framing */
export const FRAMING_TO_PROTO = { studio: 'FRAMING_STUDIO', fit: 'FRAMING_FIT' } as const;

export function framingFromProto(name: string | number | undefined): string {
  if (name === undefined || name === 0 || name === 'FRAMING_STUDIO') return 'studio';
  if (name === 1 || name === 'FRAMING_FIT') return 'fit';
  return String(name);
}

export function formatFromProto(name: string | number | undefined): ImageFormat | null {
  for (const f of FORMATS) if (FORMAT_TO_PROTO[f] === name) return f;
  return null;
}

const COLOR_RE = /^#[0-9A-Fa-f]{6}$/;

/**
 * Checks and normalises a render request as the renderer accepts it: colour '#RRGGBB' (upper-cased),
 * width an integer in 200..2400 (not clamped: clamping is the public API's rule, the renderer renders
 * exactly what it is asked), plate in the plate alphabet (upper-cased, spaces collapsed).
 * Throws ServiceError bad_request (INVALID_ARGUMENT) or not_found (unknown view id).
 */
export function normaliseRenderRequest(r: {
  assetSet: string;
  view: string;
  color: string;
  shadow: boolean;
  plate: string | null;
  format: string | null;
  width: number;
  background?: string;
  frame?: { framing?: string; margin?: number; aspect?: string };
}): RenderRequest {
  if (!r.assetSet) throw new ServiceError('bad_request', 'asset_set is required');
  if (!isShotId(r.view)) throw new ServiceError('not_found', `Unknown view ${JSON.stringify(r.view).slice(0, 40)}`);
  if (!COLOR_RE.test(r.color)) throw new ServiceError('bad_request', 'Invalid color: use #RRGGBB');
  if (r.format === null || !(FORMATS as readonly string[]).includes(r.format)) {
    throw new ServiceError('bad_request', 'Invalid format: use webp, png or jpeg');
  }
  if (!Number.isInteger(r.width) || r.width < WIDTH_MIN || r.width > WIDTH_MAX) {
    throw new ServiceError('bad_request', `Invalid width: an integer from ${WIDTH_MIN} to ${WIDTH_MAX}`);
  }
  const background = (r.background ?? 'studio') as Background;
  if (!(BACKGROUNDS as readonly string[]).includes(background)) {
    throw new ServiceError('bad_request', 'Invalid background: use studio or transparent');
  }
  if (background === 'transparent' && r.format === 'jpeg') throw transparentFormatError();
  const framing = r.frame?.framing ?? DEFAULT_FRAMING_OPTIONS.framing;
  if (!isFraming(framing)) throw framingError('framing');
  const margin = r.frame?.margin ?? DEFAULT_FRAMING_OPTIONS.margin;
  if (!Number.isInteger(margin) || margin < 0 || margin > MARGIN_MAX) throw framingError('margin');
  const aspect = r.frame?.aspect || DEFAULT_FRAMING_OPTIONS.aspect;
  if (!isAspect(aspect)) throw framingError('aspect');
  return {
    assetSet: r.assetSet,
    view: r.view,
    color: r.color.toUpperCase(),
    shadow: Boolean(r.shadow),
    plate: r.plate === null ? null : normalisePlate(r.plate),
    format: r.format as ImageFormat,
    width: r.width,
    background,
    frame: canonicalFraming({ framing, margin, aspect }),
  };
}
