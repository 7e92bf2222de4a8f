/**
 * Finds a glTF car's up and forward axes and its unit, and the transform that puts it in the studio
 * frame (metres, +Y up, nose +X, right side +Z, wheels on y = 0, centred on x = z = 0).
 *
 * Only axis-aligned orientations are considered (exporters use a world axis for up and forward).
 * - Length: the longest side of the bounding box of the visible parts.
 * - Up: of the two other axes, the wheels (tyre and rim parts) tell them apart: across the car they sit
 *   in two bands at the sides with nothing in between, along the up axis they fill one band at the
 *   bottom. The wheels are below the middle of the car, which gives the sign. Without wheels: glass
 *   sits above the middle; else glTF's +Y.
 * - Forward: front/rear words in part names (Tire_FL, Light_Tail_BL, bumper_front, rear_window, ...)
 *   and red lamps at the back vote; without votes glTF's convention (the front faces +Z) decides when
 *   the car lies along Z, +X when it lies along X.
 * - Scale: metres unless the length is implausible for a car (not 1.5 to 12 units); then whichever of
 *   mm, cm, inches or dm gives a length closest to 4.5 m.
 * Each of these can be fixed by the role map (`up`, `forward`, `scale`).
 */
import * as THREE from 'three';
import type { Role } from '../subject.ts';
import { nameWords } from './roles.ts';

export interface Part {
  mesh: THREE.Mesh;
  role: Role;
  why: string;
  materialName: string;
  nodeNames: string[];
}

export type SignedAxis = { axis: 0 | 1 | 2; sign: 1 | -1 };
const AXIS_NAMES = ['X', 'Y', 'Z'] as const;
export function axisLabel(a: SignedAxis): string {
  return `${a.sign > 0 ? '+' : '-'}${AXIS_NAMES[a.axis]}`;
}
export function parseAxis(s: string): SignedAxis {
  const m = /^([+-]?)([xyzXYZ])$/.exec(s.trim());
  if (!m) throw new Error(`bad axis "${s}"`);
  return { axis: 'xyz'.indexOf(m[2]!.toLowerCase()) as 0 | 1 | 2, sign: m[1] === '-' ? -1 : 1 };
}

export interface Orientation {
  up: SignedAxis;
  forward: SignedAxis;
  /** Metres per file unit. */
  scale: number;
  /** How each was decided, for the operator. */
  notes: string[];
}

/** World-space vertex positions of a mesh (every `stride`-th vertex). */
export function meshPoints(mesh: THREE.Mesh, stride = 1): Float32Array {
  mesh.updateWorldMatrix(true, false);
  const pos = mesh.geometry.attributes.position as THREE.BufferAttribute | undefined;
  if (!pos) return new Float32Array(0);
  const n = Math.ceil(pos.count / stride);
  const out = new Float32Array(n * 3);
  const v = new THREE.Vector3();
  for (let i = 0, k = 0; i < pos.count; i += stride, k++) {
    v.fromBufferAttribute(pos, i).applyMatrix4(mesh.matrixWorld);
    out[k * 3] = v.x;
    out[k * 3 + 1] = v.y;
    out[k * 3 + 2] = v.z;
  }
  return out;
}

function boundsOf(pointSets: Float32Array[]): { min: number[]; max: number[] } {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (const p of pointSets) {
    for (let i = 0; i < p.length; i += 3) {
      for (let a = 0; a < 3; a++) {
        const v = p[i + a]!;
        if (v < min[a]!) min[a] = v;
        if (v > max[a]!) max[a] = v;
      }
    }
  }
  return { min, max };
}

/** Share of the points whose coordinate on `axis` lies in the middle 40 % of their own range. */
function middleShare(pointSets: Float32Array[], axis: number): number {
  const b = boundsOf(pointSets);
  const lo = b.min[axis]!, hi = b.max[axis]!;
  const span = hi - lo;
  if (!(span > 0)) return 1;
  let n = 0, mid = 0;
  for (const p of pointSets) {
    for (let i = axis; i < p.length; i += 3) {
      const t = (p[i]! - lo) / span;
      n++;
      if (t > 0.3 && t < 0.7) mid++;
    }
  }
  return n ? mid / n : 1;
}

function mean(pointSets: Float32Array[], axis: number): number {
  let s = 0, n = 0;
  for (const p of pointSets) for (let i = axis; i < p.length; i += 3) { s += p[i]!; n++; }
  return n ? s / n : NaN;
}

const FRONT_WORDS = ['front', 'fl', 'fr', 'fwd', 'nose', 'head', 'headlight*', 'headlamp*', 'hood', 'bonnet', 'grille*', 'grill', 'windshield*', 'windscreen*', 'frontbumper*', 'frontseat*'];
const REAR_WORDS = ['rear', 'back', 'bl', 'br', 'rl', 'rr', 'tail', 'taillight*', 'taillamp*', 'trunk*', 'exhaust*', 'diffuser*', 'spoiler*', 'rearbumper*', 'rearseat*', 'backlight*'];
function hasWord(words: string[], list: string[]): boolean {
  const joined = [...words, ...words.slice(1).map((w, i) => words[i]! + w)];
  return joined.some((w) => list.some((k) => (k.endsWith('*') ? w.startsWith(k.slice(0, -1)) : w === k)));
}

function isRedLamp(mat: THREE.Material | THREE.Material[]): boolean {
  const m = (Array.isArray(mat) ? mat[0] : mat) as THREE.MeshStandardMaterial | undefined;
  if (!m) return false;
  const c = m.color ?? new THREE.Color(0, 0, 0);
  const e = m.emissive ?? new THREE.Color(0, 0, 0);
  const r = c.r + e.r, g = c.g + e.g, b = c.b + e.b;
  return r > 0.25 && g < 0.35 * r && b < 0.35 * r;
}

/**
 * Decides up, forward and scale. `visible` are the parts that will be drawn (hide excluded).
 * `fixed` are the map's choices.
 */
export function detectOrientation(visible: Part[], fixed: { up?: SignedAxis; forward?: SignedAxis; scale?: number }): Orientation {
  const notes: string[] = [];
  const pts = new Map<Part, Float32Array>();
  let total = 0;
  for (const p of visible) total += (p.mesh.geometry.attributes.position?.count ?? 0);
  const stride = Math.max(1, Math.floor(total / 300_000));
  for (const p of visible) pts.set(p, meshPoints(p.mesh, stride));
  const all = [...pts.values()];
  const b = boundsOf(all);
  const ext = [0, 1, 2].map((a) => b.max[a]! - b.min[a]!);
  const mid = [0, 1, 2].map((a) => (b.max[a]! + b.min[a]!) / 2);
  const wheels = visible.filter((p) => p.role === 'tyre' || p.role === 'rim').map((p) => pts.get(p)!);
  const glass = visible.filter((p) => p.role === 'glass').map((p) => pts.get(p)!);
  const wheelCount = wheels.reduce((n, p) => n + p.length / 3, 0);

  // the length axis: the map's forward, or the longest side
  let lengthAxis: 0 | 1 | 2;
  if (fixed.forward) lengthAxis = fixed.forward.axis;
  else if (fixed.up) {
    const others = ([0, 1, 2] as const).filter((a) => a !== fixed.up!.axis);
    lengthAxis = ext[others[0]!]! >= ext[others[1]!]! ? others[0]! : others[1]!;
  } else lengthAxis = (ext[0]! >= ext[1]! && ext[0]! >= ext[2]! ? 0 : ext[1]! >= ext[2]! ? 1 : 2) as 0 | 1 | 2;

  // up
  let up: SignedAxis;
  if (fixed.up) {
    up = fixed.up;
    notes.push(`up ${axisLabel(up)} (map)`);
  } else {
    const [a, c] = ([0, 1, 2] as const).filter((x) => x !== lengthAxis) as [0 | 1 | 2, 0 | 1 | 2];
    let upAxis: 0 | 1 | 2 | null = null;
    let how = '';
    if (wheelCount >= 32) {
      const ma = middleShare(wheels, a), mc = middleShare(wheels, c);
      // across the car the wheels leave the middle empty
      if (Math.min(ma, mc) < 0.5 * Math.max(ma, mc) && Math.max(ma, mc) > 0.15) {
        upAxis = ma > mc ? a : c;
        how = 'from the wheels';
      }
    }
    if (upAxis === null) {
      upAxis = lengthAxis !== 1 ? 1 : ext[a]! <= ext[c]! ? a : c;
      how = lengthAxis !== 1 ? "glTF's +Y (no wheels to tell)" : 'the shorter side (no wheels to tell)';
    }
    let sign: 1 | -1 = 1;
    if (wheelCount >= 32) {
      sign = mean(wheels, upAxis) <= mid[upAxis]! ? 1 : -1;
      how += ', wheels at the bottom';
    } else if (glass.length) {
      sign = mean(glass, upAxis) >= mid[upAxis]! ? 1 : -1;
      how += ', glass at the top';
    }
    up = { axis: upAxis, sign };
    notes.push(`up ${axisLabel(up)} (${how})`);
  }
  if (up.axis === lengthAxis) lengthAxis = ([0, 1, 2] as const).find((x) => x !== up.axis && ext[x]! === Math.max(...[0, 1, 2].filter((y) => y !== up.axis).map((y) => ext[y]!)))!;

  // forward
  let forward: SignedAxis;
  if (fixed.forward) {
    forward = fixed.forward;
    notes.push(`forward ${axisLabel(forward)} (map)`);
  } else {
    const half = ext[lengthAxis]! / 2 || 1;
    let nameVotes = 0, lampVotes = 0;
    for (const p of visible) {
      const c = (mean([pts.get(p)!], lengthAxis) - mid[lengthAxis]!) / half;
      if (!Number.isFinite(c) || Math.abs(c) < 0.2) continue;
      const words = [p.materialName, ...p.nodeNames].flatMap(nameWords);
      const front = hasWord(words, FRONT_WORDS), rear = hasWord(words, REAR_WORDS);
      if (front !== rear) nameVotes += (front ? 1 : -1) * Math.sign(c);
      if (p.role === 'lamp' && Math.abs(c) > 0.5 && isRedLamp(p.mesh.material)) lampVotes -= Math.sign(c);
    }
    let sign: 1 | -1;
    let how: string;
    if (nameVotes !== 0) {
      sign = nameVotes > 0 ? 1 : -1;
      how = `part names (${Math.abs(nameVotes)} vote${Math.abs(nameVotes) === 1 ? '' : 's'})`;
    } else if (lampVotes !== 0) {
      sign = lampVotes > 0 ? 1 : -1;
      how = 'red lamps at the back';
    } else {
      sign = 1;
      how = lengthAxis === 2 ? "glTF's convention: the front faces +Z" : 'no front/rear cue: the positive axis';
    }
    forward = { axis: lengthAxis, sign };
    notes.push(`forward ${axisLabel(forward)} (${how})`);
  }

  // scale
  let scale: number;
  const length = ext[forward.axis]!;
  if (fixed.scale) {
    scale = fixed.scale;
    notes.push(`scale ${scale} m/unit (map)`);
  } else if (length >= 1.5 && length <= 12) {
    scale = 1;
    notes.push(`metres (length ${length.toFixed(2)})`);
  } else {
    const units: Array<[number, string]> = [[0.001, 'millimetres'], [0.01, 'centimetres'], [0.0254, 'inches'], [0.1, 'decimetres'], [1, 'metres']];
    let best = units[4]!;
    for (const u of units) if (Math.abs(Math.log((length * u[0]) / 4.5)) < Math.abs(Math.log((length * best[0]) / 4.5))) best = u;
    scale = best[0];
    notes.push(`${best[1]} (length ${length.toPrecision(4)} units)`);
  }
  return { up, forward, scale, notes };
}

/** The rotation and scale into the studio frame (before the translation that stands the car on the floor). */
export function orientationMatrix(o: Orientation): THREE.Matrix4 {
  const f = new THREE.Vector3().setComponent(o.forward.axis, o.forward.sign);
  const u = new THREE.Vector3().setComponent(o.up.axis, o.up.sign);
  const r = new THREE.Vector3().crossVectors(f, u);
  const s = o.scale;
  // rows: new X = forward, new Y = up, new Z = right (forward x up)
  return new THREE.Matrix4().set(
    f.x * s, f.y * s, f.z * s, 0,
    u.x * s, u.y * s, u.z * s, 0,
    r.x * s, r.y * s, r.z * s, 0,
    0, 0, 0, 1,
  );
}

/**
 * Puts the scene under a pivot that orients and scales it, stands the lowest wheel point (or the
 * lowest visible point) on y = 0 and centres the visible parts' bounding box on x = z = 0. Answers the
 * group and that translation (metres, applied after the orientation and scale).
 */
export function normaliseScene(scene: THREE.Object3D, visible: Part[], o: Orientation): { group: THREE.Group; offset: THREE.Vector3 } {
  const pivot = new THREE.Group();
  pivot.name = 'gltf-normalised';
  pivot.matrixAutoUpdate = false;
  pivot.matrix.copy(orientationMatrix(o));
  pivot.add(scene);
  pivot.updateMatrixWorld(true);
  const min = new THREE.Vector3(Infinity, Infinity, Infinity);
  const max = new THREE.Vector3(-Infinity, -Infinity, -Infinity);
  let wheelFloor = Infinity;
  const v = new THREE.Vector3();
  for (const p of visible) {
    const pos = p.mesh.geometry.attributes.position as THREE.BufferAttribute;
    const isWheel = p.role === 'tyre' || p.role === 'rim';
    for (let i = 0; i < pos.count; i++) {
      v.fromBufferAttribute(pos, i).applyMatrix4(p.mesh.matrixWorld);
      min.min(v);
      max.max(v);
      if (isWheel && v.y < wheelFloor) wheelFloor = v.y;
    }
  }
  const floor = Number.isFinite(wheelFloor) ? wheelFloor : min.y;
  const t = new THREE.Matrix4().makeTranslation(-(min.x + max.x) / 2, -floor, -(min.z + max.z) / 2);
  pivot.matrix.premultiply(t);
  const outer = new THREE.Group();
  outer.name = 'gltf-vehicle';
  outer.add(pivot);
  outer.updateMatrixWorld(true);
  return { group: outer, offset: new THREE.Vector3(-(min.x + max.x) / 2, -floor, -(min.z + max.z) / 2) };
}
