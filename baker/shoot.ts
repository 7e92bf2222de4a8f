/**
 * One studio shot of a subject at a given camera: the layers of asset format 2 and the shot's record
 * (docs/asset-format.md). Both the nine views of a set (bake-set.ts) and the spin frames (spin/) are
 * shot here, so they cannot drift apart. Per shot:
 * - `base`, `white`, `black` passes, each supersampled: `supersample` sub-pixel-jittered renders (the
 *   same jitters for all three) with `samples`x MSAA, averaged in float, so the paint mask, the coverage
 *   and the base agree at every partial pixel;
 * - the paint mask m is the white pass's alpha, D = (W − K)/m, S = K/m (raw linear light), the coverage is
 *   the base pass's alpha, the base is composited over the backdrop gradient;
 * - a floor pass with the contact shadow, multiplied by (1 − coverage): 0 on the car;
 * - calibration fitted by calibrate.ts on D and S as stored;
 * - the plate quad: the subject's plate corners projected with the shot's camera.
 *
 * What does not depend on the camera (environment, pass materials, the contact shadow field, the
 * framing points, the float render targets per size) lives in a ShootContext made once per subject.
 */
import * as THREE from 'three';
import { hexToLinear } from '../shared/color/srgb.ts';
import { encodeLight16, encodeLight8, LIGHT8_TO_LINEAR } from '../shared/asset-format/light-encoding.ts';
import type { ShotLayers } from '../shared/asset-format/layer-files.ts';
import type { ViewJson } from '../shared/asset-format/set-json.ts';
import { calibrateView, TooLittlePaintError, type CalibrationInput } from './calibrate.ts';
import { StudioMaterials, type Pass } from './materials.ts';
import { projectQuad } from './projection.ts';
import { contactShadow, isDrawn, shadowPlane, studioEnvironment } from './studio.ts';
import type { Role, StudioSubject } from './subject.ts';

/** The studio backdrop: a vertical gradient in linear light, top row to bottom row. */
export const BACKDROP = { top: [0.86, 0.86, 0.86] as [number, number, number], bottom: [0.74, 0.74, 0.74] as [number, number, number] };

/** A shot's entry in set.json (`views.<id>`); a spin frame's frame.json holds it too. */
export type ViewRecord = ViewJson;
export type { ShotLayers };

export interface Shot {
  layers: ShotLayers;
  record: ViewRecord;
}

export interface ShotOptions {
  width: number;
  height: number;
  /** MSAA samples of each render (lavapipe: at most 4). */
  samples: number;
  /** Sub-pixel-jittered renders per pass; samples × supersample samples a pixel (≥ 16 for the format). */
  supersample: number;
  /** 16-bit D/S (linear) or 8-bit (sRGB transfer curve, smaller files). */
  lightDepth: 8 | 16;
  hasShadow: boolean;
  /** The plate this shot shows (3D corners, top-left, top-right, bottom-right, bottom-left), or null. */
  plate: THREE.Vector3[] | null;
}

/** Linear → sRGB 8-bit at 1/65536 steps (fast and exact enough for the base). */
function linearToSrgb8(v: number): number {
  const c = v <= 0 ? 0 : v >= 1 ? 1 : v;
  const s = c <= 0.0031308 ? 12.92 * c : 1.055 * Math.pow(c, 1 / 2.4) - 0.055;
  return Math.round(s * 255);
}
const SRGB_LUT = (() => {
  const lut = new Uint8Array(65537);
  for (let i = 0; i <= 65536; i++) lut[i] = linearToSrgb8(i / 65536);
  return lut;
})();
function toSrgb8(v: number): number {
  if (!(v > 0)) return 0;
  if (v >= 1) return 255;
  return SRGB_LUT[Math.round(v * 65536)]!;
}

/** Sub-pixel offsets of the jittered renders (pixels): interleaved with the 4x MSAA pattern, mean 0. */
export function jitterOffsets(n: number): [number, number][] {
  if (n <= 1) return [[0, 0]];
  let k = 1;
  let best = Infinity;
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  for (let c = 1; c < n; c++) {
    if (gcd(c, n) !== 1) continue;
    const d = Math.abs(c - n * 0.618);
    if (d < best) { best = d; k = c; }
  }
  const out: [number, number][] = [];
  for (let i = 0; i < n; i++) {
    const jx = ((i + 0.5) / n - 0.5) * 0.25;
    const jy = ((((i * k) % n) + 0.5) / n - 0.5) * 0.25;
    out.push([jx, jy]);
  }
  return out;
}

/** Half float → float for every 16-bit pattern. */
const HALF_LUT = (() => {
  const t = new Float32Array(65536);
  for (let i = 0; i < 65536; i++) t[i] = THREE.DataUtils.fromHalfFloat(i);
  return t;
})();

/**
 * Float render targets with MSAA. Every studio pass blends its glass (the base draws it, the light passes
 * attenuate what lies behind it), and lavapipe has no EXT_float_blend, so they render into a half-float
 * target (11-bit mantissa: far finer than the 8-bit layers they become); the floor's shadow pass, which
 * blends nothing, uses 32-bit float.
 */
class PassRenderer {
  private readonly full: THREE.WebGLRenderTarget;
  private readonly half: THREE.WebGLRenderTarget;
  private readonly buf: Float32Array;
  private readonly buf16: Uint16Array;
  constructor(
    private readonly renderer: THREE.WebGLRenderer,
    readonly width: number,
    readonly height: number,
    samples: number,
  ) {
    const make = (type: THREE.TextureDataType) =>
      new THREE.WebGLRenderTarget(width, height, { type, format: THREE.RGBAFormat, samples, depthBuffer: true, colorSpace: THREE.NoColorSpace });
    this.full = make(THREE.FloatType);
    this.half = make(THREE.HalfFloatType);
    this.buf = new Float32Array(width * height * 4);
    this.buf16 = new Uint16Array(width * height * 4);
  }
  /** Renders and adds `weight` × RGBA into `acc` (rows top to bottom); `blend`: the half-float target. */
  render(scene: THREE.Scene, camera: THREE.Camera, acc: Float32Array, weight: number, blend = false): void {
    const r = this.renderer;
    const target = blend ? this.half : this.full;
    r.setRenderTarget(target);
    r.setClearColor(0x000000, 0);
    r.clear(true, true, true);
    r.render(scene, camera);
    r.readRenderTargetPixels(target, 0, 0, this.width, this.height, blend ? this.buf16 : this.buf);
    r.setRenderTarget(null);
    const row = this.width * 4;
    for (let y = 0; y < this.height; y++) {
      const src = (this.height - 1 - y) * row;
      const dst = y * row;
      if (blend) {
        const b = this.buf16;
        for (let i = 0; i < row; i++) acc[dst + i]! += HALF_LUT[b[src + i]!]! * weight;
      } else {
        const b = this.buf;
        for (let i = 0; i < row; i++) acc[dst + i]! += b[src + i]! * weight;
      }
    }
  }
  dispose(): void {
    this.full.dispose();
    this.half.dispose();
  }
}

export function meshRoles(mesh: THREE.Mesh): Role[] | Role {
  if (Array.isArray(mesh.userData.roles)) return mesh.userData.roles as Role[];
  return (mesh.userData.role ?? 'other') as Role;
}

/** Whether a mesh is drawn in the shots: visible with its ancestors, and not every role of it `hide`. */
export function isShotMesh(mesh: THREE.Mesh): boolean {
  if (!isDrawn(mesh)) return false;
  const roles = meshRoles(mesh);
  return !(roles === 'hide' || (Array.isArray(roles) && roles.every((r) => r === 'hide')));
}

/** Points of the drawn (not hidden) meshes: every `stride`-th vertex, at most about `perMesh` a mesh. */
export function collectPoints(root: THREE.Object3D, stride: number, perMesh = 20000): THREE.Vector3[] {
  const pts: THREE.Vector3[] = [];
  root.updateMatrixWorld(true);
  root.traverse((o) => {
    const mesh = o as THREE.Mesh;
    if (!mesh.isMesh || !isShotMesh(mesh)) return;
    const pos = mesh.geometry.attributes.position as THREE.BufferAttribute;
    const step = Math.max(stride, Math.floor(pos.count / perMesh));
    for (let i = 0; i < pos.count; i += step) pts.push(new THREE.Vector3().fromBufferAttribute(pos, i).applyMatrix4(mesh.matrixWorld));
  });
  return pts;
}

/** Puts each mesh's material for a pass on it (own materials are remembered in `own`). */
function applyPass(group: THREE.Object3D, mats: StudioMaterials, own: Map<THREE.Mesh, THREE.Material | THREE.Material[]>): void {
  group.traverse((o) => {
    const mesh = o as THREE.Mesh;
    if (!mesh.isMesh) return;
    if (!own.has(mesh)) own.set(mesh, mesh.material);
    const orig = own.get(mesh)!;
    const patch = mesh.userData.studioPatch;
    const roles = meshRoles(mesh);
    if (Array.isArray(roles)) {
      mesh.material = roles.map((r, i) => mats.get(r, Array.isArray(orig) ? orig[i] : orig, patch));
    } else if (Array.isArray(orig)) {
      mesh.material = orig.map((m) => mats.get(roles, m, patch));
    } else {
      mesh.material = mats.get(roles, orig, patch);
    }
  });
}

/**
 * What the shots of one subject share. While it lives the subject's group is in its scene and wears
 * the passes' materials; `dispose` gives the group back with its own materials.
 */
export interface ShootContext {
  readonly renderer: THREE.WebGLRenderer;
  readonly subject: StudioSubject;
  /** The neutral paint of the base pass, sRGB hex. */
  readonly neutralPaint: string;
  /** Points of the drawn meshes (every 5th vertex), for framing the views. */
  readonly points: THREE.Vector3[];
  /** The camera target of the views: the middle of the car at 0.45 of its height. */
  readonly target: THREE.Vector3;
  dispose(): void;
}

interface ContextState extends ShootContext {
  scene: THREE.Scene;
  floorScene: THREE.Scene;
  mats: Record<Pass, StudioMaterials>;
  own: Map<THREE.Mesh, THREE.Material | THREE.Material[]>;
  passRenderers: Map<string, PassRenderer>;
}

export function createShootContext(renderer: THREE.WebGLRenderer, subject: StudioSubject, neutralPaint: string): ShootContext {
  const car = subject.group;
  const parent = car.parent;
  const scene = new THREE.Scene();
  scene.add(car);
  const env = studioEnvironment(renderer);
  scene.environment = env;
  const mats: Record<Pass, StudioMaterials> = {
    base: new StudioMaterials('base', neutralPaint),
    white: new StudioMaterials('white', neutralPaint),
    black: new StudioMaterials('black', neutralPaint),
    occlude: new StudioMaterials('occlude', neutralPaint),
  };
  const own = new Map<THREE.Mesh, THREE.Material | THREE.Material[]>();
  const field = contactShadow(car, subject.size.length / 2, subject.size.width / 2);
  const floor = shadowPlane(field);
  floor.position.y = 0.0005;
  const floorScene = new THREE.Scene();
  floorScene.add(floor);
  const passRenderers = new Map<string, PassRenderer>();
  const ctx: ContextState = {
    renderer,
    subject,
    neutralPaint,
    points: collectPoints(car, 5),
    target: new THREE.Vector3(0, subject.size.height * 0.45, 0),
    scene,
    floorScene,
    mats,
    own,
    passRenderers,
    dispose() {
      for (const [mesh, m] of own) mesh.material = m;
      own.clear();
      scene.remove(car);
      if (parent) parent.add(car);
      for (const pr of passRenderers.values()) pr.dispose();
      passRenderers.clear();
      for (const m of Object.values(mats)) m.dispose();
      floor.geometry.dispose();
      (floor.material as THREE.ShaderMaterial).uniforms.map!.value.dispose();
      (floor.material as THREE.Material).dispose();
      env.dispose();
    },
  };
  return ctx;
}

/**
 * Shoots one shot of the context's subject with `camera` (its aspect and lens shift as the shot wants
 * them; the jitters move its view offset and put it back). Pixels only: nothing is written.
 */
export function shootView(context: ShootContext, camera: THREE.PerspectiveCamera, o: ShotOptions): Shot {
  let shot = renderShot(context as ContextState, camera, o);
  let calibration: ViewRecord['calibration'];
  try {
    calibration = calibrateView(shot.calibrationInput);
  } catch (first) {
    if (!(first instanceof TooLittlePaintError)) throw first;
    // Once in several hundred test bakes on lavapipe a shot came back with no fully painted pixel where
    // every other bake of the same model had thousands; shoot it again before calling the model unfit,
    // and say so (on stderr: a renderer's frame-baker child has no logger of its own), so that a
    // rasterizer that does this often is noticed rather than hidden.
    const glError = context.renderer.getContext().getError();
    console.warn(`baker: shot ${o.width}x${o.height} re-shot after "${(first as Error).message}" (${shotCounts(shot.layers)}, GL error ${glError})`);
    shot = renderShot(context as ContextState, camera, o);
    try {
      calibration = calibrateView(shot.calibrationInput);
    } catch (again) {
      throw new Error(`${(again as Error).message}; ${shotCounts(shot.layers)}`);
    }
  }
  const quad = o.plate ? projectQuad(o.plate, camera, o.width, o.height) : null;
  return {
    layers: shot.layers,
    record: { width: o.width, height: o.height, plate_quad: quad, shadow: o.hasShadow, coverage: true, calibration },
  };
}

function shotCounts(layers: ShotLayers): string {
  let covered = 0;
  let painted = 0;
  let fullPaint = 0;
  for (let i = 0; i < layers.paint.length; i++) {
    if (layers.coverage[i]! > 0) covered++;
    if (layers.paint[i]! > 0) painted++;
    if (layers.paint[i] === 255) fullPaint++;
  }
  return `${covered} covered, ${painted} painted, ${fullPaint} fully painted pixels`;
}

function renderShot(ctx: ContextState, camera: THREE.PerspectiveCamera, o: ShotOptions): { layers: ShotLayers; calibrationInput: CalibrationInput } {
  const { width: W, height: H } = o;
  const key = `${W}x${H}x${o.samples}`;
  let pr = ctx.passRenderers.get(key);
  if (!pr) ctx.passRenderers.set(key, (pr = new PassRenderer(ctx.renderer, W, H, o.samples)));
  const car = ctx.subject.group;
  const px = W * H;
  const base = new Float32Array(px * 4);
  const white = new Float32Array(px * 4);
  const black = new Float32Array(px * 4);
  const jitters = jitterOffsets(Math.max(1, Math.round(o.supersample)));
  const weight = 1 / jitters.length;
  const ox = camera.view?.offsetX ?? 0;
  const oy = camera.view?.offsetY ?? 0;
  for (const [jx, jy] of jitters) {
    camera.setViewOffset(W, H, ox + jx, oy + jy, W, H);
    for (const pass of ['base', 'white', 'black'] as const) {
      applyPass(car, ctx.mats[pass], ctx.own);
      // every pass blends its glass (the light passes attenuate what lies behind it), so all use the blendable target
      pr.render(ctx.scene, camera, pass === 'base' ? base : pass === 'white' ? white : black, weight, true);
    }
  }
  camera.setViewOffset(W, H, ox, oy, W, H);
  let shadowBuf: Float32Array | null = null;
  if (o.hasShadow) {
    shadowBuf = new Float32Array(px * 4);
    pr.render(ctx.floorScene, camera, shadowBuf, 1);
  }
  const tn = hexToLinear(ctx.neutralPaint);
  const [t0, t1, t2] = BACKDROP.top;
  const [b0, b1, b2] = BACKDROP.bottom;
  const baseRgb = new Uint8Array(px * 3);
  const paint = new Uint8Array(px);
  const coverage = new Uint8Array(px);
  const shadow = o.hasShadow ? new Uint8Array(px) : null;
  const D = o.lightDepth === 16 ? new Uint16Array(px) : new Uint8Array(px);
  const S = o.lightDepth === 16 ? new Uint16Array(px) : new Uint8Array(px);
  const Dlin = new Float32Array(px);
  const Slin = new Float32Array(px);
  for (let y = 0; y < H; y++) {
    const f = H > 1 ? y / (H - 1) : 0;
    const g0 = t0 + (b0 - t0) * f, g1 = t1 + (b1 - t1) * f, g2 = t2 + (b2 - t2) * f;
    for (let x = 0; x < W; x++) {
      const i = y * W + x;
      const k = i * 4;
      const a = Math.min(1, Math.max(0, base[k + 3]!));
      coverage[i] = Math.round(a * 255);
      const m = Math.min(1, Math.max(0, white[k + 3]!));
      const m8 = Math.round(m * 255);
      paint[i] = m8;
      let r = base[k]! + (1 - a) * g0;
      let g = base[k + 1]! + (1 - a) * g1;
      let b = base[k + 2]! + (1 - a) * g2;
      if (m8 > 0) {
        const wv = (white[k]! + white[k + 1]! + white[k + 2]!) / 3;
        const kv = (black[k]! + black[k + 1]! + black[k + 2]!) / 3;
        const d = Math.min(1, Math.max(0, (wv - kv) / m));
        const s = Math.min(1, Math.max(0, kv / m));
        if (o.lightDepth === 16) {
          D[i] = encodeLight16(d);
          S[i] = encodeLight16(s);
          Dlin[i] = D[i]! / 65535;
          Slin[i] = S[i]! / 65535;
        } else {
          D[i] = encodeLight8(d);
          S[i] = encodeLight8(s);
          Dlin[i] = LIGHT8_TO_LINEAR[D[i]!]!;
          Slin[i] = LIGHT8_TO_LINEAR[S[i]!]!;
        }
        // The compositor (docs/asset-format.md, "Compositing") takes the paint out of the base as m·(Tn·D + S) with the STORED mask and
        // light layers; put exactly that into the base (instead of the float pass's m·(Tn·d + s)),
        // so what it takes out leaves no residue of their rounding at the paint's edges.
        const mq = m8 / 255;
        r += mq * (tn[0] * Dlin[i]! + Slin[i]!) - m * (tn[0] * d + s);
        g += mq * (tn[1] * Dlin[i]! + Slin[i]!) - m * (tn[1] * d + s);
        b += mq * (tn[2] * Dlin[i]! + Slin[i]!) - m * (tn[2] * d + s);
      }
      baseRgb[i * 3] = toSrgb8(r);
      baseRgb[i * 3 + 1] = toSrgb8(g);
      baseRgb[i * 3 + 2] = toSrgb8(b);
      // the floor's shadow where the floor shows: none on the car (tyres included), partial at its edges
      if (shadow) shadow[i] = Math.round(Math.min(1, Math.max(0, shadowBuf![k]!)) * (1 - a) * 255);
    }
  }
  return {
    layers: { width: W, height: H, base: baseRgb, paint, coverage, diffuse: D, specular: S, shadow },
    calibrationInput: { width: W, height: H, paint, diffuse: Dlin, specular: Slin },
  };
}
