import sharp from 'sharp';

/**
 * The version of the code that makes a level's planes: decode-layers.ts (and the 8-bit light table,
 * light-encoding.ts), reduce-layers.ts, and what layers.ts adds (runs) with the cpu backend's level extras (the
 * shadowed base: backends/cpu/level-extras.ts). Bump it with any
 * change to what they produce; `test/renderer/level-code.test.ts` fails until it is bumped (it keeps
 * the digest of a small view made and reduced by the running code, per version).
 */
export const LEVEL_CODE_VERSION = 1;

/**
 * What level files carry as the code that made them (level-files.ts): the version above and the sharp
 * and libvips versions that decode the sets' files. Files of other code are other files.
 */
export function levelCode(): string {
  return `levels-${LEVEL_CODE_VERSION} sharp-${sharp.versions.sharp} vips-${sharp.versions.vips}`;
}
