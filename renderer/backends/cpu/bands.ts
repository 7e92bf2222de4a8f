import type { ActiveRuns } from '../../assets/layers.ts';

/**
 * A row's fixed cost in pixels of its runs (the call into the kernel, the row's bookkeeping), so that
 * rows without paint still count for something.
 */
const ROW_COST = 64;

/** Cumulative work per row (work[y] = the work of rows [0, y)), by the runs object: made once per level. */
const cumulative = new WeakMap<Int32Array, Float64Array>();

function workOf(runs: ActiveRuns, height: number): Float64Array {
  let w = cumulative.get(runs.rowStart);
  if (w && w.length === height + 1) return w;
  w = new Float64Array(height + 1);
  const { rowStart, xs } = runs;
  for (let y = 0; y < height; y++) {
    let px = 0;
    for (let r = rowStart[y]!; r < rowStart[y + 1]!; r++) px += xs[2 * r + 1]! - xs[2 * r]!;
    w[y + 1] = w[y]! + px + ROW_COST;
  }
  cumulative.set(runs.rowStart, w);
  return w;
}

/**
 * `count` bands of rows [y0, y1) covering [0, height), each with about the same work: the pixels of
 * its runs (what the kernel computes) plus a fixed cost a row. A picture's paint sits in a few rows (a
 * car in the lower middle of a studio frame), so bands of equal height left one worker with most of
 * the paint while the other waited (measured: 1.2 ms against 3.5 ms on a 2400 px level). Without
 * runs every row costs the same. Bands are never empty.
 */
export function workBands(runs: ActiveRuns | null, height: number, count: number): [number, number][] {
  const n = Math.max(1, Math.min(count, height));
  const bands: [number, number][] = [];
  if (runs === null || n === 1) {
    for (let b = 0; b < n; b++) bands.push([Math.floor((height * b) / n), Math.floor((height * (b + 1)) / n)]);
    return bands;
  }
  const w = workOf(runs, height);
  const total = w[height]!;
  let y0 = 0;
  for (let b = 1; b < n; b++) {
    const target = (total * b) / n;
    // the first row boundary at or past the target, leaving at least one row to each band after this one
    let lo = y0 + 1;
    let hi = height - (n - b);
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (w[mid]! < target) lo = mid + 1;
      else hi = mid;
    }
    bands.push([y0, lo]);
    y0 = lo;
  }
  bands.push([y0, height]);
  return bands;
}
