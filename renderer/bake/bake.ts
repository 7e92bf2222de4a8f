/**
 * Bakes one asset set: for each view, render the base shot, the paint with white and black albedo
 * (D = W − K, S = K, linear, un-premultiplied by the paint coverage), the paint mask (the white pass's
 * coverage) and the floor shadow, and project the visible plate's corners.
 * Layout on disk: docs/renderer.md ("Asset sets on disk").
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import * as THREE from 'three';
import { VIEW_IDS, type ViewId } from '../../shared/views.ts';
import { buildVehicle, type Vehicle } from './model.ts';
import { PassMaterials, type Pass } from './materials.ts';
import { contactShadow, frameCamera, plateFor, shadowPlane, studioEnvironment, VIEW_CAMERAS } from './studio.ts';
import type { SetDef } from './styles.ts';

/** Bumped whenever the baker's output changes for the same parameters (part of each set's revision). */
export const BAKER_VERSION = 2;

export interface BakeOptions {
  width: number;
  height: number;
  views: readonly ViewId[];
  samples: number;
  /** 16-bit D/S (better gradients) or 8-bit (smaller files). */
  lightDepth: 8 | 16;
  onView?: (view: ViewId, index: number) => void;
}

export interface ViewRecord {
  width: number;
  height: number;
  plate_quad: [number, number][] | null;
  shadow: boolean;
}

type Quad = [number, number][];

const BG_TOP = 0.86;
const BG_BOTTOM = 0.74;

function linearToSrgb8(v: number): number {
  const c = v <= 0 ? 0 : v >= 1 ? 1 : v;
  const s = c <= 0.0031308 ? 12.92 * c : 1.055 * Math.pow(c, 1 / 2.4) - 0.055;
  return Math.round(s * 255);
}

/** Lookup for linear → sRGB 8-bit at 1/65536 steps (fast and exact enough). */
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

export function setRevision(def: SetDef, opts: Pick<BakeOptions, 'width' | 'height' | 'samples' | 'lightDepth'>): string {
  const h = createHash('sha256')
    .update(JSON.stringify({ v: BAKER_VERSION, p: def.params, paint: def.basePaint, w: opts.width, h: opts.height, s: opts.samples, d: opts.lightDepth }))
    .digest('hex');
  return `bake${BAKER_VERSION}-${h.slice(0, 12)}`;
}

class PassRenderer {
  private target: THREE.WebGLRenderTarget;
  readonly buf: Float32Array;
  constructor(
    private readonly renderer: THREE.WebGLRenderer,
    readonly width: number,
    readonly height: number,
    samples: number,
  ) {
    this.target = new THREE.WebGLRenderTarget(width, height, {
      type: THREE.FloatType,
      format: THREE.RGBAFormat,
      samples,
      depthBuffer: true,
      colorSpace: THREE.NoColorSpace,
    });
    this.buf = new Float32Array(width * height * 4);
  }
  /** Renders and returns RGBA floats, rows top to bottom. */
  render(scene: THREE.Scene, camera: THREE.Camera, out: Float32Array): Float32Array {
    const r = this.renderer;
    r.setRenderTarget(this.target);
    r.setClearColor(0x000000, 0);
    r.clear(true, true, true);
    r.render(scene, camera);
    r.readRenderTargetPixels(this.target, 0, 0, this.width, this.height, this.buf);
    r.setRenderTarget(null);
    const row = this.width * 4;
    for (let y = 0; y < this.height; y++) {
      out.set(this.buf.subarray((this.height - 1 - y) * row, (this.height - y) * row), y * row);
    }
    return out;
  }
  dispose(): void {
    this.target.dispose();
  }
}

async function writeGrey8(file: string, data: Uint8Array, w: number, h: number): Promise<void> {
  await sharp(Buffer.from(data.buffer, data.byteOffset, data.byteLength), { raw: { width: w, height: h, channels: 1 } })
    .toColourspace('b-w')
    .png({ compressionLevel: 9, adaptiveFiltering: true })
    .toFile(file);
}

async function writeGrey16(file: string, data: Uint16Array, w: number, h: number): Promise<void> {
  await sharp(data, { raw: { width: w, height: h, channels: 1 } })
    .toColourspace('grey16')
    .png({ compressionLevel: 9, adaptiveFiltering: true })
    .toFile(file);
}

async function writeRgb8(file: string, data: Uint8Array, w: number, h: number): Promise<void> {
  await sharp(Buffer.from(data.buffer, data.byteOffset, data.byteLength), { raw: { width: w, height: h, channels: 3 } })
    .png({ compressionLevel: 9, adaptiveFiltering: true })
    .toFile(file);
}

function collectPoints(root: THREE.Object3D, stride: number): THREE.Vector3[] {
  const pts: THREE.Vector3[] = [];
  root.updateMatrixWorld(true);
  root.traverse((o) => {
    const mesh = o as THREE.Mesh;
    if (!mesh.isMesh) return;
    const pos = mesh.geometry.attributes.position as THREE.BufferAttribute;
    for (let i = 0; i < pos.count; i += stride) pts.push(new THREE.Vector3().fromBufferAttribute(pos, i).applyMatrix4(mesh.matrixWorld));
  });
  return pts;
}

/** Projects 3D points to base-image pixels (x right, y down). */
function projectQuad(corners: THREE.Vector3[], cam: THREE.Camera, w: number, h: number): Quad {
  return corners.map((c) => {
    const v = c.clone().project(cam);
    return [+(((v.x + 1) / 2) * w).toFixed(2), +(((1 - v.y) / 2) * h).toFixed(2)] as [number, number];
  });
}

export interface BakeResult {
  views: Record<string, ViewRecord>;
  revision: string;
  bytes: number;
}

export async function bakeSet(
  renderer: THREE.WebGLRenderer,
  def: SetDef,
  outDir: string,
  opts: BakeOptions,
): Promise<BakeResult> {
  const { width: W, height: H } = opts;
  const vehicle: Vehicle = buildVehicle(def.params);
  const car = vehicle.group;
  const scene = new THREE.Scene();
  scene.add(car);
  const env = studioEnvironment(renderer);
  scene.environment = env;
  const mats: Record<Pass, PassMaterials> = {
    base: new PassMaterials('base', def.basePaint, vehicle.arch),
    white: new PassMaterials('white', def.basePaint, vehicle.arch),
    black: new PassMaterials('black', def.basePaint, vehicle.arch),
    occlude: new PassMaterials('occlude', def.basePaint, vehicle.arch),
  };
  const field = contactShadow(car, def.params.length / 2, def.params.width / 2);
  const floor = shadowPlane(field);
  floor.position.y = 0.0005;
  const points = collectPoints(car, 5);
  const target = new THREE.Vector3(0, def.params.height * 0.45, 0);
  const pr = new PassRenderer(renderer, W, H, opts.samples);
  const px = W * H;
  const base = new Float32Array(px * 4);
  const white = new Float32Array(px * 4);
  const black = new Float32Array(px * 4);
  const shadowBuf = new Float32Array(px * 4);
  const views: Record<string, ViewRecord> = {};
  await fs.rm(outDir, { recursive: true, force: true });
  await fs.mkdir(outDir, { recursive: true });
  let bytes = 0;
  let index = 0;
  for (const view of opts.views) {
    opts.onView?.(view, index++);
    const cam = frameCamera(VIEW_CAMERAS[view], points, target, W, H, view === 'top_down' ? { x: 0.84, y: 0.8 } : { x: 0.86, y: 0.78 });
    const hasShadow = view !== 'top_down';
    mats.base.apply(car);
    pr.render(scene, cam, base);
    mats.white.apply(car);
    pr.render(scene, cam, white);
    mats.black.apply(car);
    pr.render(scene, cam, black);
    if (hasShadow) {
      mats.occlude.apply(car);
      scene.environment = null;
      scene.add(floor);
      pr.render(scene, cam, shadowBuf);
      scene.remove(floor);
      scene.environment = env;
    }
    const baseRgb = new Uint8Array(px * 3);
    const paint = new Uint8Array(px);
    const shadow = new Uint8Array(px);
    const maxV = opts.lightDepth === 16 ? 65535 : 255;
    const D = opts.lightDepth === 16 ? new Uint16Array(px) : new Uint8Array(px);
    const S = opts.lightDepth === 16 ? new Uint16Array(px) : new Uint8Array(px);
    for (let y = 0; y < H; y++) {
      const bg = BG_TOP + (BG_BOTTOM - BG_TOP) * (y / (H - 1));
      for (let x = 0; x < W; x++) {
        const i = y * W + x;
        const k = i * 4;
        const a = Math.min(1, Math.max(0, base[k + 3]!));
        for (let c = 0; c < 3; c++) baseRgb[i * 3 + c] = toSrgb8(base[k + c]! + (1 - a) * bg);
        const m = Math.min(1, Math.max(0, white[k + 3]!));
        const m8 = Math.round(m * 255);
        paint[i] = m8;
        if (m8 > 0) {
          const wv = (white[k]! + white[k + 1]! + white[k + 2]!) / 3;
          const kv = (black[k]! + black[k + 1]! + black[k + 2]!) / 3;
          const d = Math.min(1, Math.max(0, (wv - kv) / m));
          const s = Math.min(1, Math.max(0, kv / m));
          D[i] = Math.round(d * maxV);
          S[i] = Math.round(s * maxV);
        }
        if (hasShadow) shadow[i] = Math.round(Math.min(1, Math.max(0, shadowBuf[k]!)) * 255);
      }
    }
    const dir = path.join(outDir, view);
    await fs.mkdir(dir, { recursive: true });
    await writeRgb8(path.join(dir, 'base.png'), baseRgb, W, H);
    await writeGrey8(path.join(dir, 'paint.png'), paint, W, H);
    if (opts.lightDepth === 16) {
      await writeGrey16(path.join(dir, 'diffuse.png'), D as Uint16Array, W, H);
      await writeGrey16(path.join(dir, 'specular.png'), S as Uint16Array, W, H);
    } else {
      await writeGrey8(path.join(dir, 'diffuse.png'), D as Uint8Array, W, H);
      await writeGrey8(path.join(dir, 'specular.png'), S as Uint8Array, W, H);
    }
    if (hasShadow) await writeGrey8(path.join(dir, 'shadow.png'), shadow, W, H);
    const which = plateFor(view);
    const quad = which ? projectQuad(vehicle.plates[which], cam, W, H) : null;
    views[view] = { width: W, height: H, plate_quad: quad, shadow: hasShadow };
    for (const f of await fs.readdir(dir)) bytes += (await fs.stat(path.join(dir, f))).size;
  }
  const revision = setRevision(def, opts);
  const ordered: Record<string, ViewRecord> = {};
  for (const v of VIEW_IDS) if (views[v]) ordered[v] = views[v];
  await fs.writeFile(path.join(outDir, 'set.json'), JSON.stringify({ id: def.id, revision, views: ordered }, null, 2) + '\n');
  pr.dispose();
  for (const m of Object.values(mats)) m.dispose();
  env.dispose();
  return { views: ordered, revision, bytes };
}
