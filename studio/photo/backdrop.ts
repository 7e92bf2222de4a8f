import { SRGB8_TO_LINEAR } from '../../shared/color/srgb.ts';
import type { PhotoView, Rgb } from './light.ts';

// The backdrop: a vertical linear gradient in linear light.

export interface BackdropRows {
  /** Row position 0 (first row) .. 1 (last row). */
  t: number[];
  rgb: Rgb[];
  weight: number[];
}

/**
 * Per-row medians of the backdrop pixels: where the coverage matte is 0, or without a matte, outside
 * the paint mask's bounding box grown by 2 % of the width (outside the paint alone would count
 * glass and tyres as backdrop).
 */
export function backdropRows(v: PhotoView): BackdropRows {
  const { width: w, height: h } = v;
  let box: [number, number, number, number] | null = null;
  if (!v.coverage) {
    let x0 = w;
    let y0 = h;
    let x1 = -1;
    let y1 = -1;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        if (v.paint[y * w + x] === 0) continue;
        if (x < x0) x0 = x;
        if (x > x1) x1 = x;
        if (y < y0) y0 = y;
        if (y > y1) y1 = y;
      }
    }
    const g = Math.round(0.02 * w);
    box = x1 < 0 ? null : [x0 - g, y0 - g, x1 + g, y1 + g];
  }
  const out: BackdropRows = { t: [], rgb: [], weight: [] };
  const ch: [number[], number[], number[]] = [[], [], []];
  for (let y = 0; y < h; y++) {
    ch[0].length = ch[1].length = ch[2].length = 0;
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (v.coverage) {
        if (v.coverage[i] !== 0) continue;
      } else if (box && x >= box[0] && x <= box[2] && y >= box[1] && y <= box[3]) continue;
      for (let c = 0; c < 3; c++) ch[c]!.push(SRGB8_TO_LINEAR[v.base[i * 3 + c]!]!);
    }
    if (ch[0].length < 8) continue;
    const med = (a: number[]) => a.sort((p, q) => p - q)[a.length >> 1]!;
    out.t.push(h > 1 ? y / (h - 1) : 0);
    out.rgb.push([med(ch[0]), med(ch[1]), med(ch[2])]);
    out.weight.push(ch[0].length);
  }
  return out;
}

/** Weighted least squares of v(t) = top + (bottom − top)·t over all views' rows. */
export function fitBackdrop(rows: BackdropRows[]): { top: Rgb; bottom: Rgb } | null {
  let sw = 0;
  let st = 0;
  let stt = 0;
  const sv = [0, 0, 0];
  const stv = [0, 0, 0];
  for (const r of rows) {
    for (let k = 0; k < r.t.length; k++) {
      const w = r.weight[k]!;
      const t = r.t[k]!;
      sw += w;
      st += w * t;
      stt += w * t * t;
      for (let c = 0; c < 3; c++) {
        sv[c]! += w * r.rgb[k]![c]!;
        stv[c]! += w * t * r.rgb[k]![c]!;
      }
    }
  }
  if (sw === 0) return null;
  const det = sw * stt - st * st;
  const top: Rgb = [0, 0, 0];
  const bottom: Rgb = [0, 0, 0];
  const clamp = (x: number) => Math.round(Math.min(1, Math.max(0, x)) * 10000) / 10000;
  for (let c = 0; c < 3; c++) {
    let a: number;
    let b: number;
    if (Math.abs(det) < 1e-9 * sw * sw) {
      a = sv[c]! / sw; // one row only: a flat backdrop
      b = 0;
    } else {
      b = (sw * stv[c]! - st * sv[c]!) / det;
      a = (sv[c]! - b * st) / sw;
    }
    top[c] = clamp(a);
    bottom[c] = clamp(a + b);
  }
  return { top, bottom };
}
