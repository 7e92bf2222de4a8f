import { linearToSrgb, srgbToLinear } from '../color/srgb.ts';

/**
 * How the light layers (D, S) are stored (docs/asset-format.md): 16-bit PNGs hold linear light,
 * 8-bit PNGs hold it through the sRGB transfer curve, so that the dark end, where dark paint lives,
 * gets steps a person cannot see.
 */
export function encodeLight8(v: number): number {
  return Math.round(linearToSrgb(v) * 255);
}

export function encodeLight16(v: number): number {
  return v <= 0 ? 0 : v >= 1 ? 65535 : Math.round(v * 65535);
}

/** 8-bit stored code → linear light. */
export const LIGHT8_TO_LINEAR: Float32Array = (() => {
  const t = new Float32Array(256);
  for (let i = 0; i < 256; i++) t[i] = srgbToLinear(i / 255);
  return t;
})();
