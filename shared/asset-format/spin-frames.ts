import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { LAYER_FILES, layerPath, writeShotLayers, type ShotLayers } from './layer-files.ts';
import type { Quad, ViewMeta } from './read-set.ts';
import { viewSchema, type ViewJson } from './set-json.ts';

/**
 * The spin frame cache on disk (docs/asset-format.md, "Spin frames"): one owner for the renderer, which
 * reads frames and writes the ones it bakes on demand, and the studio's pre-bake, which writes them.
 *
 *   <root>/<set-id>/<revision>/<width>/<frame-id>/{base,paint,diffuse,specular,shadow,coverage}.png
 *   <root>/<set-id>/<revision>/<width>/<frame-id>/frame.json
 *
 * The layer files are a view's (layer-files.ts); frame.json is the view's set.json entry with the
 * light layers' bit depth and the baker version that shot it. A frame appears whole or not at all.
 */

/** A revision that is a plain folder name is used as one (every baked revision: `bake4-…-cal2`). */
const PLAIN_REVISION_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/**
 * The folder of one set revision's frames at one width. set.json's `revision` is any string, so one that
 * is not a plain folder name (`../..`, a slash) is named by its hash instead: the frames stay inside `root`.
 */
export function spinFrameSetDir(root: string, setId: string, revision: string, width: number): string {
  const rev = PLAIN_REVISION_RE.test(revision) ? revision : `rev-${crypto.createHash('sha256').update(revision).digest('hex').slice(0, 32)}`;
  return path.join(root, setId, rev, String(width));
}

export function spinFramePath(setDir: string, frameId: string): string {
  return path.join(setDir, frameId, 'frame.json');
}

const frameJsonSchema = viewSchema
  .extend({
    light_depth: z.union([z.literal(8), z.literal(16)]),
    baker_version: z.number().int().positive(),
  })
  .strict();

/** A shot spin frame, as the baker's spin shooter gives it (baker/spin/shoot-frame.ts). */
export interface SpinFrameData {
  layers: ShotLayers;
  /** The shot's record, as a view's entry in set.json. */
  record: ViewJson;
  /** The baker version that shot it (baker/bake-set.ts BAKER_VERSION). */
  bakerVersion: number;
}

/** A staging folder's name starts with this (never a frame id's first character). */
const STAGING_PREFIX = '.';

/**
 * Writes one frame into `<setDir>/<frameId>/`: into a temporary sibling first, renamed into place, so a
 * reader never sees half a frame. When a usable frame of the same baker version is already there
 * (another writer was first) it is kept; one that is not (shot by another baker version, or unreadable:
 * what the readers count as absent and bake again) is moved aside and replaced, else it would be kept
 * for good and every bake of it would be thrown away.
 */
export async function writeSpinFrame(setDir: string, frameId: string, frame: SpinFrameData): Promise<void> {
  await fs.mkdir(setDir, { recursive: true });
  const staging = path.join(setDir, `${STAGING_PREFIX}${frameId}.${process.pid}-${crypto.randomBytes(4).toString('hex')}`);
  try {
    await writeShotLayers(staging, frameId, frame.layers);
    const json: z.input<typeof frameJsonSchema> = {
      ...frame.record,
      light_depth: frame.layers.diffuse instanceof Uint16Array ? 16 : 8,
      baker_version: frame.bakerVersion,
    };
    frameJsonSchema.parse(json);
    await fs.writeFile(spinFramePath(staging, frameId), `${JSON.stringify(json, null, 2)}\n`);
    const target = path.join(setDir, frameId);
    for (let attempt = 0; ; attempt++) {
      try {
        await fs.rename(path.join(staging, frameId), target);
        return;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e;
      }
      const there = await readSpinFrame(setDir, frameId, { bakerVersion: frame.bakerVersion }).catch(() => null);
      if (there || attempt >= 2) return; // a usable frame is there (or writers keep racing: the last one's stays)
      // the stale frame goes into the staging folder, removed with it below
      await fs.rename(target, path.join(staging, `${frameId}.stale`)).catch((e: NodeJS.ErrnoException) => {
        if (e.code !== 'ENOENT') throw e;
      });
    }
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
    await removeStaleStaging(setDir, Date.now());
  }
}

/**
 * A staging folder this old was left by a writer that died mid-write (a frame-baker child killed
 * outright, a studio pre-bake interrupted): a write takes seconds. Another renderer on the same
 * volume may be writing, so age decides, not whether the pid is alive here.
 */
export const STALE_STAGING_MS = 10 * 60_000;

/**
 * Removes the staging folders of `setDir` older than STALE_STAGING_MS, after each write there, so that
 * killed writers do not leave their partial frames on the volume for good. Best effort: a folder
 * another writer removes meanwhile, or one that cannot be removed, is left to the next write.
 */
async function removeStaleStaging(setDir: string, now: number): Promise<void> {
  const names = await fs.readdir(setDir).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith(STAGING_PREFIX)) continue;
    const dir = path.join(setDir, name);
    const st = await fs.stat(dir).catch(() => null);
    if (st && now - st.mtimeMs > STALE_STAGING_MS) await fs.rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * One frame's description as read-set gives a view's, or null when the frame is not in the cache.
 * Throws when it is there but unusable (frame.json unreadable or invalid, a layer file missing): the
 * caller logs that and treats the frame as absent. `expect.bakerVersion`: a frame shot by another
 * baker version counts as absent (null).
 */
export async function readSpinFrame(setDir: string, frameId: string, expect: { bakerVersion?: number } = {}): Promise<ViewMeta | null> {
  const file = spinFramePath(setDir, frameId);
  let raw: string;
  try {
    raw = await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new Error(`${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  let parsed;
  try {
    parsed = frameJsonSchema.safeParse(JSON.parse(raw));
  } catch (e) {
    throw new Error(`${file}: invalid JSON: ${(e as Error).message}`);
  }
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    throw new Error(`${file}: ${first.path.join('.') || '(root)'}: ${first.message}`);
  }
  const f = parsed.data;
  if (expect.bakerVersion !== undefined && f.baker_version !== expect.bakerVersion) return null;
  for (const layer of LAYER_FILES) {
    if ((layer === 'shadow' && !f.shadow) || (layer === 'coverage' && !f.coverage)) continue;
    const p = layerPath(setDir, frameId, layer);
    const ok = await fs.stat(p).then((st) => st.isFile(), () => false);
    if (!ok) throw new Error(`${p}: missing (frame.json lists it)`);
  }
  return {
    width: f.width,
    height: f.height,
    plateQuad: f.plate_quad ? (f.plate_quad.map(([x, y]) => [x, y]) as Quad) : null,
    shadow: f.shadow,
    coverage: f.coverage,
    lightDepth: { diffuse: f.light_depth, specular: f.light_depth },
    calibration: { diffuseGain: f.calibration.diffuse_gain, specularFloor: f.calibration.specular_floor },
  };
}
