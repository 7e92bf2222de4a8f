import type { RgbImage } from './backend.ts';

/**
 * The contract between the gl and cpu compositors (docs/renderer.md, "Parity"): for the same job their
 * pictures differ by at most PARITY_MAX_CODE_DIFF codes in any channel of any pixel, and by at least
 * PARITY_MIN_PSNR_DB over a corpus. Drivers round pow() and the float → 8-bit store differently (the
 * H200 differed from the cpu kernel by up to 2 codes where lavapipe agreed to 90 dB), so the bound is
 * what every driver must meet, not what one driver happens to reach.
 */
export const PARITY_MAX_CODE_DIFF = 2;
export const PARITY_MIN_PSNR_DB = 60;

export interface ImageDifference {
  /** Largest absolute difference of one channel of one pixel, in 8-bit codes. */
  maxDiff: number;
  /** PSNR over every compared value (Infinity when identical). */
  psnr: number;
  /** Values compared, and how many of them differ at all. */
  values: number;
  differing: number;
  /** Where maxDiff is (first such value): pixel, channel (0..3) and both values; null when identical. */
  worst: { x: number; y: number; channel: number; a: number; b: number } | null;
}

/**
 * Compares two compositor pictures of the same size channel by channel: RGB always, alpha where both
 * carry a real alpha channel. A 4-channel picture without alpha (the gl readback) is read as RGB.
 */
export function compareImages(a: RgbImage, b: RgbImage): ImageDifference {
  if (a.width !== b.width || a.height !== b.height) throw new Error(`pictures differ in size: ${a.width}x${a.height} and ${b.width}x${b.height}`);
  const n = a.width * a.height;
  const channels = a.alpha && b.alpha ? 4 : 3;
  let sq = 0;
  let maxDiff = 0;
  let differing = 0;
  let worstAt = -1;
  let worstChannel = 0;
  for (let p = 0; p < n; p++) {
    const ia = p * a.channels;
    const ib = p * b.channels;
    for (let c = 0; c < channels; c++) {
      const d = a.data[ia + c]! - b.data[ib + c]!;
      if (d === 0) continue;
      differing++;
      sq += d * d;
      const ad = d < 0 ? -d : d;
      if (ad > maxDiff) {
        maxDiff = ad;
        worstAt = p;
        worstChannel = c;
      }
    }
  }
  const values = n * channels;
  const psnr = sq === 0 ? Infinity : 10 * Math.log10((255 * 255) / (sq / values));
  const worst =
    worstAt < 0
      ? null
      : {
          x: worstAt % a.width,
          y: Math.floor(worstAt / a.width),
          channel: worstChannel,
          a: a.data[worstAt * a.channels + worstChannel]!,
          b: b.data[worstAt * b.channels + worstChannel]!,
        };
  return { maxDiff, psnr, values, differing, worst };
}

/** Whether a difference meets the parity contract. */
export function withinParity(d: Pick<ImageDifference, 'maxDiff' | 'psnr'>): boolean {
  return d.maxDiff <= PARITY_MAX_CODE_DIFF && d.psnr >= PARITY_MIN_PSNR_DB;
}

/** Folds several comparisons into the corpus figure: the largest difference, the PSNR over all values. */
export function combineDifferences(list: readonly ImageDifference[]): ImageDifference {
  let values = 0;
  let differing = 0;
  let sq = 0;
  let worst: ImageDifference | null = null;
  for (const d of list) {
    values += d.values;
    differing += d.differing;
    if (Number.isFinite(d.psnr)) sq += d.values * ((255 * 255) / 10 ** (d.psnr / 10));
    if (!worst || d.maxDiff > worst.maxDiff) worst = d;
  }
  return {
    maxDiff: worst?.maxDiff ?? 0,
    psnr: sq === 0 ? Infinity : 10 * Math.log10((255 * 255) / (sq / values)),
    values,
    differing,
    worst: worst?.worst ?? null,
  };
}

/** `maxDiff 2 (at 812,440 G: 131 vs 133), 71.4 dB, 1.52 % of values differ` */
export function describeDifference(d: ImageDifference): string {
  const where = d.worst ? ` (at ${d.worst.x},${d.worst.y} ${'RGBA'[d.worst.channel]}: ${d.worst.a} vs ${d.worst.b})` : '';
  const psnr = Number.isFinite(d.psnr) ? `${d.psnr.toFixed(1)} dB` : 'identical';
  const share = d.values ? ((100 * d.differing) / d.values).toFixed(2) : '0';
  return `max difference ${d.maxDiff}${where}, ${psnr}, ${share} % of values differ`;
}
