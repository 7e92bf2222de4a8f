/** Named paint colours of the spec, hex upper-case with a leading '#'. */
export const NAMED_COLORS = {
  red: '#C41E3A',
  blue: '#1E4B8C',
  green: '#2E7D32',
  white: '#F5F5F5',
  black: '#1A1A1A',
  silver: '#C0C0C0',
  yellow: '#F5C518',
  orange: '#E85D04',
} as const;

export type ColorName = keyof typeof NAMED_COLORS;

export const DEFAULT_COLOR: ColorName = 'white';

export interface ResolvedColor {
  hex: string; // '#RRGGBB', upper-case
  name: ColorName | null;
}

const HEX_RE = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/**
 * Resolves a colour parameter: a named colour (case-insensitive) or 3/6 hex digits with or without '#'.
 * Returns null when the value is neither.
 */
export function resolveColor(input: string): ResolvedColor | null {
  const lower = input.toLowerCase();
  if (Object.prototype.hasOwnProperty.call(NAMED_COLORS, lower)) {
    const name = lower as ColorName;
    return { hex: NAMED_COLORS[name], name };
  }
  const m = HEX_RE.exec(input);
  if (!m) return null;
  let digits = m[1]!.toUpperCase();
  if (digits.length === 3) digits = [...digits].map((c) => c + c).join('');
  return { hex: `#${digits}`, name: null };
}

/** '#RRGGBB' → [r, g, b] in 0..255. */
export function hexToRgb(hex: string): [number, number, number] {
  const n = parseInt(hex.replace('#', ''), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}
