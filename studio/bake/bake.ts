/**
 * The studio baker: shoots a role-tagged subject (subject.ts; procedural styles or glTF files) in the
 * nine views and writes an asset set in format 2 (docs/asset-format.md). Per view:
 * - `base`, `white`, `black` passes, each supersampled: `supersample` sub-pixel-jittered renders (the
 *   same jitters for all three) with `samples`x MSAA, averaged in float, so the paint mask, the coverage
 *   and the base agree at every partial pixel;
 * - the paint mask m is the white pass's alpha, D = (W − K)/m, S = K/m (raw linear light), the coverage is
 *   the base pass's alpha, the base is composited over the backdrop gradient;
 * - a floor pass with the contact shadow, multiplied by (1 − coverage): 0 on the car;
 * - calibration fitted by studio/calibrate.ts on D and S as stored;
 * - the plate quad: the subject's plate corners projected with the view's camera.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { hexToLinear } from '../../shared/color/srgb.ts';
import * as THREE from 'three';
import { VIEW_IDS, type ViewId } from '../../shared/views.ts';
import { calibratedRevision, calibrateView, type ViewCalibration } from '../calibrate.ts';
import { encodeLight16, encodeLight8, LIGHT8_TO_LINEAR } from '../../shared/asset-format/light-encoding.ts';
import { layerPath, writeGreyLayer, writeLightLayer, writeRgbLayer } from '../../shared/asset-format/layer-files.ts';
import type { Quad } from '../../shared/asset-format/read-set.ts';
import { ASSET_FORMAT, writeSetJson } from '../../shared/asset-format/set-json.ts';
import { StudioMaterials, type Pass } from './materials.ts';
import { proceduralSubject } from './procedural.ts';
import { contactShadow, frameCamera, isDrawn, plateFor, shadowPlane, studioEnvironment, VIEW_CAMERAS } from './studio.ts';
import type { SetDef } from './styles.ts';
import type { Role, StudioSubject } from './subject.ts';

/** Bumped whenever the baker's output changes for the same parameters (part of each set's revision). */
export const BAKER_VERSION = 4;

/** The neutral paint of the base shots (sRGB), unless a bake asks for another. */
export const NEUTRAL_PAINT = '#dfe1e4';
/** The studio backdrop: a vertical gradient in linear light, top row to bottom row. */
export const BACKDROP = { top: [0.86, 0.86, 0.86] as [number, number, number], bottom: [0.74, 0.74, 0.74] as [number, number, number] };

/** Jittered renders per pass by default: with 4x MSAA, 16 samples a pixel. */
export const DEFAULT_SUPERSAMPLE = 4;

export interface BakeOptions {
  /** The set's id (set.json). */
  id: string;
  width: number;
  height: number;
  views: readonly ViewId[];
  /** MSAA samples of each render (lavapipe: at most 4). */
  samples: number;
  /** Sub-pixel-jittered renders per pass; samples × supersample samples a pixel (≥ 16 for the format). */
  supersample: number;
  /** 16-bit D/S (linear) or 8-bit (sRGB transfer curve, smaller files). */
  lightDepth: 8 | 16;
  /** Neutral paint of the base, sRGB hex (default NEUTRAL_PAINT). */
  neutralPaint?: string;
  onView?: (view: ViewId, index: number) => void;
}

export interface ViewRecord {
  width: number;
  height: number;
  plate_quad: Quad | null;
  shadow: boolean;
  coverage: boolean;
  calibration: ViewCalibration;
}

export interface BakeResult {
  views: Record<string, ViewRecord>;
  revision: string;
  bytes: number;
  /** Milliseconds per view, in the order baked. */
  msPerView: number[];
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

function hex(color: string): string {
  return `#${new THREE.Color().setStyle(color, THREE.SRGBColorSpace).getHexString(THREE.SRGBColorSpace).toUpperCase()}`;
}

/** A hash of what the subject draws, when it brings no fingerprint of its own. */
function subjectFingerprint(subject: StudioSubject): string {
  if (subject.fingerprint) return subject.fingerprint;
  const h = createHash('sha256');
  h.update(JSON.stringify(subject.source));
  subject.group.updateMatrixWorld(true);
  subject.group.traverse((o) => {
    const mesh = o as THREE.Mesh;
    if (!mesh.isMesh) return;
    h.update(JSON.stringify([mesh.userData.role ?? null, mesh.userData.roles ?? null, mesh.userData.studioPatch?.key ?? null, isDrawn(mesh)]));
    h.update(new Float32Array(mesh.matrixWorld.elements));
    const pos = mesh.geometry.attributes.position as THREE.BufferAttribute | undefined;
    if (pos) h.update(new Uint8Array((pos.array as Float32Array).buffer, (pos.array as Float32Array).byteOffset, (pos.array as Float32Array).byteLength));
    if (mesh.geometry.index) {
      const a = mesh.geometry.index.array;
      h.update(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
    }
  });
  return h.digest('hex');
}

export function subjectRevision(subject: StudioSubject, opts: Pick<BakeOptions, 'width' | 'height' | 'samples' | 'supersample' | 'lightDepth' | 'neutralPaint'>): string {
  const h = createHash('sha256')
    .update(JSON.stringify({
      v: BAKER_VERSION, f: subjectFingerprint(subject), paint: hex(opts.neutralPaint ?? NEUTRAL_PAINT),
      w: opts.width, h: opts.height, s: opts.samples, ss: opts.supersample, d: opts.lightDepth,
    }))
    .digest('hex');
  return calibratedRevision(`bake${BAKER_VERSION}-${h.slice(0, 12)}`);
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

function meshRoles(mesh: THREE.Mesh): Role[] | Role {
  if (Array.isArray(mesh.userData.roles)) return mesh.userData.roles as Role[];
  return (mesh.userData.role ?? 'other') as Role;
}

/** Points of the drawn (not hidden) meshes, for framing. */
function collectPoints(root: THREE.Object3D, stride: number): THREE.Vector3[] {
  const pts: THREE.Vector3[] = [];
  root.updateMatrixWorld(true);
  root.traverse((o) => {
    const mesh = o as THREE.Mesh;
    if (!mesh.isMesh || !isDrawn(mesh)) return;
    const roles = meshRoles(mesh);
    if (roles === 'hide' || (Array.isArray(roles) && roles.every((r) => r === 'hide'))) return;
    const pos = mesh.geometry.attributes.position as THREE.BufferAttribute;
    const step = Math.max(stride, Math.floor(pos.count / 20000));
    for (let i = 0; i < pos.count; i += step) pts.push(new THREE.Vector3().fromBufferAttribute(pos, i).applyMatrix4(mesh.matrixWorld));
  });
  return pts;
}

/** Projects 3D points to base-image pixels (x right, y down). */
function projectQuad(corners: THREE.Vector3[], cam: THREE.Camera, w: number, h: number): Quad {
  return corners.map((c) => {
    const v = c.clone().project(cam);
    return [+(((v.x + 1) / 2) * w).toFixed(2), +(((1 - v.y) / 2) * h).toFixed(2)] as [number, number];
  }) as Quad;
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

function restoreOwn(own: Map<THREE.Mesh, THREE.Material | THREE.Material[]>): void {
  for (const [mesh, m] of own) mesh.material = m;
}

/** Bakes one subject into `outDir` (replaced): the nine views' layers and set.json, format 2. */
export async function bakeSubject(
  renderer: THREE.WebGLRenderer,
  subject: StudioSubject,
  outDir: string,
  opts: BakeOptions,
): Promise<BakeResult> {
  const { width: W, height: H } = opts;
  const neutral = opts.neutralPaint ?? NEUTRAL_PAINT;
  const car = subject.group;
  const scene = new THREE.Scene();
  const parent = car.parent;
  scene.add(car);
  const env = studioEnvironment(renderer);
  scene.environment = env;
  const mats: Record<Pass, StudioMaterials> = {
    base: new StudioMaterials('base', neutral),
    white: new StudioMaterials('white', neutral),
    black: new StudioMaterials('black', neutral),
    occlude: new StudioMaterials('occlude', neutral),
  };
  const own = new Map<THREE.Mesh, THREE.Material | THREE.Material[]>();
  const field = contactShadow(car, subject.size.length / 2, subject.size.width / 2);
  const floor = shadowPlane(field);
  floor.position.y = 0.0005;
  const floorScene = new THREE.Scene();
  floorScene.add(floor);
  const points = collectPoints(car, 5);
  const target = new THREE.Vector3(0, subject.size.height * 0.45, 0);
  const pr = new PassRenderer(renderer, W, H, opts.samples);
  const px = W * H;
  const base = new Float32Array(px * 4);
  const white = new Float32Array(px * 4);
  const black = new Float32Array(px * 4);
  const shadowBuf = new Float32Array(px * 4);
  const jitters = jitterOffsets(Math.max(1, Math.round(opts.supersample)));
  const weight = 1 / jitters.length;
  const views: Record<string, ViewRecord> = {};
  const msPerView: number[] = [];
  await fs.rm(outDir, { recursive: true, force: true });
  await fs.mkdir(outDir, { recursive: true });
  let bytes = 0;
  let index = 0;
  const tn = hexToLinear(neutral);
  const [t0, t1, t2] = BACKDROP.top;
  const [b0, b1, b2] = BACKDROP.bottom;
  try {
    for (const view of opts.views) {
      const started = Date.now();
      opts.onView?.(view, index++);
      const cam = frameCamera(VIEW_CAMERAS[view], points, target, W, H, view === 'top_down' ? { x: 0.84, y: 0.8 } : { x: 0.86, y: 0.78 });
      const ox = cam.view!.offsetX;
      const oy = cam.view!.offsetY;
      const hasShadow = view !== 'top_down';
      base.fill(0);
      white.fill(0);
      black.fill(0);
      for (const [jx, jy] of jitters) {
        cam.setViewOffset(W, H, ox + jx, oy + jy, W, H);
        for (const pass of ['base', 'white', 'black'] as const) {
          applyPass(car, mats[pass], own);
          // every pass blends its glass (the light passes attenuate what lies behind it), so all use the blendable target
          pr.render(scene, cam, pass === 'base' ? base : pass === 'white' ? white : black, weight, true);
        }
      }
      cam.setViewOffset(W, H, ox, oy, W, H);
      if (hasShadow) {
        shadowBuf.fill(0);
        pr.render(floorScene, cam, shadowBuf, 1);
      }
      const baseRgb = new Uint8Array(px * 3);
      const paint = new Uint8Array(px);
      const coverage = new Uint8Array(px);
      const shadow = new Uint8Array(px);
      const D = opts.lightDepth === 16 ? new Uint16Array(px) : new Uint8Array(px);
      const S = opts.lightDepth === 16 ? new Uint16Array(px) : new Uint8Array(px);
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
            if (opts.lightDepth === 16) {
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
            // The compositor takes the paint out of the base as m·(Tn·D + S) with the STORED mask and
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
          if (hasShadow) shadow[i] = Math.round(Math.min(1, Math.max(0, shadowBuf[k]!)) * (1 - a) * 255);
        }
      }
      const calibration = calibrateView({ width: W, height: H, paint, diffuse: Dlin, specular: Slin });
      const dir = path.join(outDir, view);
      await fs.mkdir(dir, { recursive: true });
      await writeRgbLayer(layerPath(outDir, view, 'base'), baseRgb, W, H);
      await writeGreyLayer(layerPath(outDir, view, 'paint'), paint, W, H);
      await writeGreyLayer(layerPath(outDir, view, 'coverage'), coverage, W, H);
      await writeLightLayer(layerPath(outDir, view, 'diffuse'), D, W, H);
      await writeLightLayer(layerPath(outDir, view, 'specular'), S, W, H);
      if (hasShadow) await writeGreyLayer(layerPath(outDir, view, 'shadow'), shadow, W, H);
      const which = plateFor(view);
      const corners = which ? subject.plates[which] : null;
      const quad = corners ? projectQuad(corners, cam, W, H) : null;
      views[view] = { width: W, height: H, plate_quad: quad, shadow: hasShadow, coverage: true, calibration };
      for (const f of await fs.readdir(dir)) bytes += (await fs.stat(path.join(dir, f))).size;
      msPerView.push(Date.now() - started);
    }
  } finally {
    restoreOwn(own);
    scene.remove(car);
    if (parent) parent.add(car);
    pr.dispose();
    for (const m of Object.values(mats)) m.dispose();
    floor.geometry.dispose();
    (floor.material as THREE.ShaderMaterial).uniforms.map!.value.dispose();
    (floor.material as THREE.Material).dispose();
    env.dispose();
  }
  const revision = subjectRevision(subject, { ...opts, neutralPaint: neutral });
  const ordered: Record<string, ViewRecord> = {};
  for (const v of VIEW_IDS) if (views[v]) ordered[v] = views[v];
  const setJson = {
    id: opts.id,
    format: ASSET_FORMAT,
    revision,
    source: subject.source,
    neutral_paint: hex(neutral),
    backdrop: { top: BACKDROP.top, bottom: BACKDROP.bottom },
    views: ordered,
  };
  await writeSetJson(outDir, setJson);
  return { views: ordered, revision, bytes, msPerView };
}

/** A procedural set (styles.ts): `bakeSubject` of `proceduralSubject(def)` with the set's id and paint. */
export async function bakeSet(
  renderer: THREE.WebGLRenderer,
  def: SetDef,
  outDir: string,
  opts: Omit<BakeOptions, 'id' | 'supersample'> & { supersample?: number },
): Promise<BakeResult> {
  return bakeSubject(renderer, proceduralSubject(def), outDir, {
    ...opts,
    id: def.id,
    supersample: opts.supersample ?? DEFAULT_SUPERSAMPLE,
    neutralPaint: opts.neutralPaint ?? def.basePaint,
  });
}
