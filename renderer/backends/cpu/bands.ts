/**
 * `count` bands of rows [y0, y1) of equal height covering [0, height), never empty (at most one a
 * row). Bands of equal work (by the pixels of the rows' runs) were measured against these and bought
 * nothing measurable (docs/performance-renderer.md, "What each cpu mechanism earns"): a render alone
 * is composited inline, and with other renders about, their bands fill the workers anyway.
 */
export function rowBands(height: number, count: number): [number, number][] {
  const n = Math.max(1, Math.min(count, height));
  const bands: [number, number][] = [];
  for (let b = 0; b < n; b++) bands.push([Math.floor((height * b) / n), Math.floor((height * (b + 1)) / n)]);
  return bands;
}
