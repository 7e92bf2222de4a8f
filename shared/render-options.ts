import { DEFAULT_COLOR, NAMED_COLORS, resolveColor, type ColorName } from './colors.ts';
import { ServiceError } from './errors.ts';
import { parseFramingOptions, type FramingOptions } from './framing.ts';
import { singleParam } from './query-param.ts';

export const FORMATS = ['webp', 'png', 'jpeg'] as const;
export type ImageFormat = (typeof FORMATS)[number];

export const CONTENT_TYPES: Record<ImageFormat, string> = {
  webp: 'image/webp',
  png: 'image/png',
  jpeg: 'image/jpeg',
};

/** Where the car stands: the studio's backdrop, or nothing (an alpha channel; webp and png only). */
export const BACKGROUNDS = ['studio', 'transparent'] as const;
export type Background = (typeof BACKGROUNDS)[number];
export const ALPHA_FORMATS: readonly ImageFormat[] = ['webp', 'png'];

export function transparentFormatError(): ServiceError {
  return new ServiceError('bad_request', 'Invalid background: transparent needs format webp or png (jpeg has no alpha channel)');
}

export const WIDTH_MIN = 200;
export const WIDTH_MAX = 2400;
export const WIDTH_DEFAULT = 1600;
export const DEFAULT_FORMAT: ImageFormat = 'webp';

/** Plate text: EU registrations use Latin capitals, digits, spaces and hyphens; see docs/api.md. */
export const PLATE_MAX_LENGTH = 12;
export const PLATE_RE = /^[A-Z0-9ÄÖÜ][A-Z0-9ÄÖÜ -]*$/;
/** PLATE_RE before upper-casing: lower-case letters are the same letters. */
const PLATE_INPUT_RE = /^[A-Za-z0-9ÄÖÜäöü][A-Za-z0-9ÄÖÜäöü -]*$/;

export function isFormat(s: string): s is ImageFormat {
  return (FORMATS as readonly string[]).includes(s);
}

/** What a client asked for, validated and normalised (the gateway's view of an image request). */
export interface ImageOptions {
  color: string; // '#RRGGBB'
  colorName: ColorName | null;
  shadow: boolean;
  plate: string | null;
  format: ImageFormat;
  width: number;
  background: Background;
  /** framing, margin, aspect (shared/framing.ts) */
  frame: FramingOptions;
}


export function parseShadow(raw: string | undefined): boolean {
  if (raw === undefined) return true;
  switch (raw.toLowerCase()) {
    case 'true':
    case '1':
      return true;
    case 'false':
    case '0':
      return false;
    default:
      throw new ServiceError('bad_request', 'Invalid shadow: use true, 1, false or 0');
  }
}

export function clampWidth(n: number): number {
  return Math.min(WIDTH_MAX, Math.max(WIDTH_MIN, n));
}

export function parseWidth(raw: string | undefined): number {
  if (raw === undefined) return WIDTH_DEFAULT;
  // any integer is clamped, however many digits (spec rule 6: clamped, not rejected); the URL's
  // length limit bounds them, and a number past 2^53 or Infinity clamps like any other. Nothing
  // around it: padding is refused here as it is in every other option
  if (!/^[+-]?\d+$/.test(raw)) {
    throw new ServiceError('bad_request', 'Invalid width: must be an integer number of pixels');
  }
  return clampWidth(Number(raw));
}

/** Upper-cases, collapses runs of spaces, and checks the plate alphabet and length. */
export function normalisePlate(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  // spaces only: a tab, a line break or another Unicode space is not a plate character; and the
  // alphabet is checked before upper-casing, so ß ("SS"), ı or ſ are refused rather than turned into Latin letters
  // NFC first: an Ä typed as A and a combining diaeresis is the same letter
  const text = raw.normalize('NFC').replace(/^ +| +$/g, '').replace(/ {2,}/g, ' ');
  if (text.length === 0) {
    throw new ServiceError('bad_request', 'Invalid plate: must not be empty');
  }
  if (text.length > PLATE_MAX_LENGTH) {
    throw new ServiceError('bad_request', `Invalid plate: at most ${PLATE_MAX_LENGTH} characters`);
  }
  if (!PLATE_INPUT_RE.test(text)) {
    throw new ServiceError(
      'bad_request',
      'Invalid plate: use letters A-Z, Ä, Ö, Ü, digits, spaces and hyphens',
    );
  }
  return text.toUpperCase();
}

/** Parses the image query of spec section 4. Contract checks (format allowed) are the caller's. */
export function parseImageOptions(query: Record<string, unknown>): ImageOptions {
  const colorRaw = singleParam('color', query.color);
  let color: string = NAMED_COLORS[DEFAULT_COLOR];
  let colorName: ColorName | null = DEFAULT_COLOR;
  if (colorRaw !== undefined) {
    const resolved = resolveColor(colorRaw);
    if (!resolved) {
      throw new ServiceError(
        'bad_request',
        'Invalid color: use a named color or a hex value of 3 or 6 digits',
      );
    }
    color = resolved.hex;
    colorName = resolved.name;
  }
  const formatRaw = singleParam('format', query.format);
  const format = formatRaw === undefined ? DEFAULT_FORMAT : formatRaw.toLowerCase();
  if (!isFormat(format)) {
    throw new ServiceError('bad_request', 'Invalid format: use webp, png or jpeg');
  }
  const shadow = parseShadow(singleParam('shadow', query.shadow));
  const plate = normalisePlate(singleParam('plate', query.plate));
  const width = parseWidth(singleParam('width', query.width));
  const backgroundRaw = singleParam('background', query.background);
  const background = backgroundRaw === undefined ? 'studio' : backgroundRaw.toLowerCase();
  if (!(BACKGROUNDS as readonly string[]).includes(background)) {
    throw new ServiceError('bad_request', 'Invalid background: use studio or transparent');
  }
  if (background === 'transparent' && !ALPHA_FORMATS.includes(format)) throw transparentFormatError();
  const frame = parseFramingOptions(query);
  return { color, colorName, shadow, plate, format, width, background: background as Background, frame };
}
