/**
 * The procedural body's surface: spline profiles (monotone cubic through the style's points) and the
 * superellipse section at any point along the car, and the indexed grid a loft is built on.
 * Coordinates as in model.ts.
 */
import * as THREE from 'three';
import type { Tag } from './own-materials.ts';
import type { VehicleParams } from './styles.ts';

/** Monotone cubic (Fritsch–Carlson) interpolation through points sorted by x. */
export function pchip(pts: Array<[number, number]>): (x: number) => number {
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  const n = xs.length;
  const h: number[] = [];
  const d: number[] = [];
  for (let i = 0; i < n - 1; i++) {
    h.push(xs[i + 1]! - xs[i]!);
    d.push((ys[i + 1]! - ys[i]!) / h[i]!);
  }
  const m: number[] = new Array<number>(n).fill(0);
  m[0] = d[0]!;
  m[n - 1] = d[n - 2]!;
  for (let i = 1; i < n - 1; i++) {
    const a = d[i - 1]!;
    const b = d[i]!;
    if (a * b <= 0) m[i] = 0;
    else {
      const w1 = 2 * h[i]! + h[i - 1]!;
      const w2 = h[i]! + 2 * h[i - 1]!;
      m[i] = (w1 + w2) / (w1 / a + w2 / b);
    }
  }
  return (x: number) => {
    if (x <= xs[0]!) return ys[0]!;
    if (x >= xs[n - 1]!) return ys[n - 1]!;
    let i = 0;
    while (i < n - 2 && x > xs[i + 1]!) i++;
    const t = (x - xs[i]!) / h[i]!;
    const t2 = t * t;
    const t3 = t2 * t;
    return (
      (2 * t3 - 3 * t2 + 1) * ys[i]! + (t3 - 2 * t2 + t) * h[i]! * m[i]! +
      (-2 * t3 + 3 * t2) * ys[i + 1]! + (t3 - t2) * h[i]! * m[i + 1]!
    );
  };
}

function cleanPoints(pts: Array<[number, number]>, minGap = 0.03): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const p of pts) {
    const last = out[out.length - 1];
    if (last && p[0] - last[0] < minGap) continue;
    out.push(p);
  }
  return out;
}

/** Rounding factor near an end: 0 at the very end, 1 from `r` inwards. */
function endRound(d: number, r: number, p: number): number {
  if (d >= r) return 1;
  if (d <= 0) return 0;
  return Math.pow(1 - Math.pow(1 - d / r, p), 1 / p);
}

const N_TOP = 6;
const N_BOT = 3;
const BODY_TUMBLE = 0.1;

export class BodyShape {
  readonly top: (u: number) => number;
  readonly bottom: (u: number) => number;
  constructor(readonly p: VehicleParams) {
    const L = p.length;
    const deckStart = p.bonnet + p.windscreen + p.roof + p.backlight;
    const notchDeck = L - deckStart > 0.35;
    const topPts: Array<[number, number]> = [
      [0, p.noseTop - 0.09],
      [0.1, p.noseTop - 0.015],
      [0.3, p.noseTop + 0.02],
      [p.bonnet * 0.6, p.noseTop + (p.belt - p.noseTop) * 0.7],
      [p.bonnet, p.belt - 0.01],
      [p.bonnet + p.windscreen, p.belt],
      [deckStart, p.belt + (notchDeck ? 0.01 : 0)],
    ];
    if (notchDeck) topPts.push([L - 0.25, p.tailTop + 0.01]);
    topPts.push([L - 0.08, p.tailTop - 0.01], [L, p.tailTop - 0.07]);
    this.top = pchip(cleanPoints(topPts));
    const lift = p.clearance;
    this.bottom = pchip([
      [0, lift + 0.17],
      [0.25, lift + 0.06],
      [0.6, lift],
      [L - 0.6, lift],
      [L - 0.25, lift + 0.08],
      [L, lift + 0.2],
    ]);
  }
  x(u: number): number {
    return this.p.length / 2 - u;
  }
  /** Half-width, centre and half-height of the section at u (after end rounding). */
  section(u: number): { a: number; yc: number; b: number } {
    const p = this.p;
    const L = p.length;
    const d = Math.min(u, L - u);
    const fPlan = endRound(d, p.cornerRadius, 2.4);
    const fElev = endRound(d, 0.1, 2.2);
    const taper = 1 - 0.035 * Math.pow(Math.max(0, 1 - d / 1.2), 2);
    const top = this.top(u);
    const bot = this.bottom(u);
    const yc = (top + bot) / 2;
    return { a: (p.width / 2) * taper * fPlan, yc, b: ((top - bot) / 2) * Math.max(fElev, 0.0) };
  }
  /** Point of the section at parameter phi (0 = +Z side, π/2 = top). */
  point(u: number, phi: number, out: THREE.Vector3): THREE.Vector3 {
    const { a, yc, b } = this.section(u);
    const c = Math.cos(phi);
    const s = Math.sin(phi);
    const n = s >= 0 ? N_TOP : N_BOT;
    const v = Math.sign(s) * Math.pow(Math.abs(s), 2 / n);
    const zn = Math.sign(c) * Math.pow(Math.abs(c), 2 / n);
    const tumble = 1 - BODY_TUMBLE * Math.max(0, v) * Math.max(0, v);
    return out.set(this.x(u), yc + b * v, a * zn * tumble);
  }
  /** Half-width of the body at u and height y (0 when outside). */
  halfWidthAt(u: number, y: number): number {
    const { a, yc, b } = this.section(u);
    if (b <= 1e-6) return 0;
    const v = (y - yc) / b;
    if (Math.abs(v) >= 1) return 0;
    const n = v >= 0 ? N_TOP : N_BOT;
    return a * Math.pow(1 - Math.pow(Math.abs(v), n), 1 / n) * (1 - BODY_TUMBLE * Math.max(0, v) * Math.max(0, v));
  }
  /** Smallest u (from the nose) where the body contains (y, z), searching from `from`; the front surface. */
  frontU(y: number, z: number): number {
    let lo = 0;
    let hi = Math.min(1.2, this.p.length / 2);
    if (this.halfWidthAt(hi, y) <= Math.abs(z) + 1e-4) return hi;
    for (let i = 0; i < 40; i++) {
      const mid = (lo + hi) / 2;
      if (this.halfWidthAt(mid, y) > Math.abs(z) + 1e-4) hi = mid;
      else lo = mid;
    }
    return hi;
  }
  /** Largest u where the body contains (y, z): the rear surface. */
  rearU(y: number, z: number): number {
    const L = this.p.length;
    let lo = Math.max(L - 1.2, L / 2);
    let hi = L;
    if (this.halfWidthAt(lo, y) <= Math.abs(z) + 1e-4) return lo;
    for (let i = 0; i < 40; i++) {
      const mid = (lo + hi) / 2;
      if (this.halfWidthAt(mid, y) > Math.abs(z) + 1e-4) lo = mid;
      else hi = mid;
    }
    return lo;
  }
}

export function samplesWith(start: number, end: number, step: number, extra: number[]): number[] {
  const set = new Set<number>();
  const n = Math.max(2, Math.ceil((end - start) / step));
  for (let i = 0; i <= n; i++) set.add(+(start + ((end - start) * i) / n).toFixed(6));
  for (const e of extra) if (e > start && e < end) set.add(+e.toFixed(6));
  return [...set].sort((a, b) => a - b);
}

/** Builds an indexed grid geometry with one group per tag; quads are tagged by `classify(i, j)`. */
export function gridGeometry(
  rows: number,
  cols: number,
  closedCols: boolean,
  pos: (i: number, j: number, out: THREE.Vector3) => void,
  classify: (i: number, j: number) => Tag,
): { geometry: THREE.BufferGeometry; tags: Tag[] } {
  const colCount = closedCols ? cols : cols;
  const positions = new Float32Array(rows * colCount * 3);
  const v = new THREE.Vector3();
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < colCount; j++) {
      pos(i, j, v);
      const k = (i * colCount + j) * 3;
      positions[k] = v.x;
      positions[k + 1] = v.y;
      positions[k + 2] = v.z;
    }
  }
  const byTag = new Map<Tag, number[]>();
  const quadCols = closedCols ? cols : cols - 1;
  for (let i = 0; i < rows - 1; i++) {
    for (let j = 0; j < quadCols; j++) {
      const j2 = (j + 1) % colCount;
      const a = i * colCount + j;
      const b = i * colCount + j2;
      const c = (i + 1) * colCount + j2;
      const d = (i + 1) * colCount + j;
      const tag = classify(i, j);
      let list = byTag.get(tag);
      if (!list) byTag.set(tag, (list = []));
      list.push(a, b, c, a, c, d);
    }
  }
  const index: number[] = [];
  const geometry = new THREE.BufferGeometry();
  const tags: Tag[] = [];
  for (const [tag, list] of byTag) {
    geometry.addGroup(index.length, list.length, tags.length);
    tags.push(tag);
    for (const x of list) index.push(x);
  }
  geometry.setAttribute('position', new THREE.BufferAttribute(positions, 3));
  geometry.setIndex(index);
  geometry.computeVertexNormals();
  return { geometry, tags };
}
