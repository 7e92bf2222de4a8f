/**
 * Bakes a role-tagged subject (subject.ts; procedural styles or glTF files) into an asset set of format 2
 * (docs/asset-format.md): the nine views, each one shot of shoot.ts at the view's framed camera
 * (studio.ts), and set.json with the set's revision.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import * as THREE from 'three';
import { VIEW_IDS, type ViewId } from '../shared/views.ts';
import { calibratedRevision } from './calibrate.ts';
import { ASSET_FORMAT, writeSetJson } from '../shared/asset-format/set-json.ts';
import { writeShotLayers } from '../shared/asset-format/layer-files.ts';
import { BACKDROP, createShootContext, shootView, type ViewRecord } from './shoot.ts';
import { frameCamera, isDrawn, plateFor, VIEW_CAMERAS } from './studio.ts';
import type { StudioSubject } from './subject.ts';

export { BACKDROP, jitterOffsets, type ViewRecord } from './shoot.ts';

/** Bumped whenever the baker's output changes for the same parameters (part of each set's revision). */
export const BAKER_VERSION = 4;

/** The neutral paint of the base shots (sRGB), unless a bake asks for another. */
export const NEUTRAL_PAINT = '#dfe1e4';

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

export interface BakeResult {
  views: Record<string, ViewRecord>;
  revision: string;
  bytes: number;
  /** Milliseconds per view, in the order baked. */
  msPerView: number[];
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

/** Bakes one subject into `outDir` (replaced): the nine views' layers and set.json, format 2. */
export async function bakeSubject(
  renderer: THREE.WebGLRenderer,
  subject: StudioSubject,
  outDir: string,
  opts: BakeOptions,
): Promise<BakeResult> {
  const { width: W, height: H } = opts;
  const neutral = opts.neutralPaint ?? NEUTRAL_PAINT;
  const ctx = createShootContext(renderer, subject, neutral);
  const views: Record<string, ViewRecord> = {};
  const msPerView: number[] = [];
  await fs.rm(outDir, { recursive: true, force: true });
  await fs.mkdir(outDir, { recursive: true });
  let bytes = 0;
  let index = 0;
  try {
    for (const view of opts.views) {
      const started = Date.now();
      opts.onView?.(view, index++);
      const cam = frameCamera(VIEW_CAMERAS[view], ctx.points, ctx.target, W, H, view === 'top_down' ? { x: 0.84, y: 0.8 } : { x: 0.86, y: 0.78 });
      const which = plateFor(view);
      const shot = shootView(ctx, cam, {
        width: W,
        height: H,
        samples: opts.samples,
        supersample: opts.supersample,
        lightDepth: opts.lightDepth,
        hasShadow: view !== 'top_down',
        plate: which ? subject.plates[which] : null,
      });
      bytes += await writeShotLayers(outDir, view, shot.layers);
      views[view] = shot.record;
      msPerView.push(Date.now() - started);
    }
  } finally {
    ctx.dispose();
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

