/**
 * The renderer's pre-scaled levels of a view (docs/renderer.md, "Levels"): which sizes a view is kept
 * at, widest first. The renderer builds them; the studio's level pre-bake asks for each of them so
 * that a renderer's LEVEL_CACHE_DIR holds them all before the first customer call.
 */
import { WIDTH_MIN } from './render-options.ts';

/** A level's size: the full size over the footprint, rounded like the output height, at least 1. */
export function levelSize(fullWidth: number, fullHeight: number, footprint: number): { width: number; height: number } {
  return { width: Math.max(1, Math.round(fullWidth / footprint)), height: Math.max(1, Math.round(fullHeight / footprint)) };
}

/**
 * The levels of a view of the given full size, widest first: footprints 1, 1.5, 2, 3, 4, 6, … while
 * at least WIDTH_MIN wide (the full size always). For a width that divides exactly, the height is the
 * output height at that width, so a render there needs no resize.
 */
export function levelLadder(fullWidth: number, fullHeight: number): { footprint: number; width: number; height: number }[] {
  const out = [{ footprint: 1, width: fullWidth, height: fullHeight }];
  for (let p = 1; ; p *= 2) {
    for (const f of [1.5 * p, 2 * p]) {
      const size = levelSize(fullWidth, fullHeight, f);
      if (size.width < WIDTH_MIN) return out;
      out.push({ footprint: f, ...size });
    }
  }
}
