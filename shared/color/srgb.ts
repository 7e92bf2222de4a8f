/** sRGB transfer functions and the lookup tables the cpu kernel uses. */

export function srgbToLinear(c: number): number {
  return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}

export function linearToSrgb(c: number): number {
  if (c <= 0) return 0;
  if (c >= 1) return 1;
  return c <= 0.0031308 ? c * 12.92 : 1.055 * Math.pow(c, 1 / 2.4) - 0.055;
}

/** 8-bit sRGB code → linear light. */
export const SRGB8_TO_LINEAR: Float32Array = (() => {
  const t = new Float32Array(256);
  for (let i = 0; i < 256; i++) t[i] = srgbToLinear(i / 255);
  return t;
})();

/** Resolution of LINEAR_TO_SRGB8: linear light quantised to 1/65535 before the lookup. */
export const LINEAR_LUT_SIZE = 65536;

/** Linear light in steps of 1/65535 → rounded 8-bit sRGB code (fine enough to match the exact formula to ±0 LSB almost everywhere). */
export const LINEAR_TO_SRGB8: Uint8Array = (() => {
  const t = new Uint8Array(LINEAR_LUT_SIZE);
  for (let i = 0; i < LINEAR_LUT_SIZE; i++) t[i] = Math.round(linearToSrgb(i / (LINEAR_LUT_SIZE - 1)) * 255);
  return t;
})();

/** '#RRGGBB' → linear RGB triple. */
export function hexToLinear(hex: string): [number, number, number] {
  const n = parseInt(hex.slice(1), 16);
  return [srgbToLinear(((n >> 16) & 255) / 255), srgbToLinear(((n >> 8) & 255) / 255), srgbToLinear((n & 255) / 255)];
}

/** Relative luminance weights (Rec. 709 / sRGB primaries). */
export const LUMA: readonly [number, number, number] = [0.2126, 0.7152, 0.0722];
