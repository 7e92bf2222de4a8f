/**
 * `npm run studio -- spin <set-id|set-dir> [--frames 36] [--width 800] [--frames-dir <dir>] [--assets <dir>]`:
 * the spin frames a renderer would bake on demand, shot ahead into the frame cache (docs/spins.md,
 * "Pre-baking"): the same bake width rule (shared/spin.ts spinBakeWidth), the same shooter (baker/spin/)
 * and the same writer (shared/asset-format/spin-frames.ts); frames already there are skipped.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { Command } from 'commander';
import { readSetMeta } from '../shared/asset-format/read-set.ts';
import { readSetJson } from '../shared/asset-format/set-json.ts';
import { readSpinFrame, spinFrameSetDir, writeSpinFrame } from '../shared/asset-format/spin-frames.ts';
import { isSetId } from '../shared/asset-format/set-id.ts';
import { SPIN_FRAME_COUNTS, SPIN_FRAME_LIGHT_DEPTH, SPIN_FRAME_SAMPLES, SPIN_FRAME_SUPERSAMPLE_DEFAULT, SPIN_WIDTH_MAX, SPIN_WIDTH_MIN, isSpinFrameCount, spinBakeHeight, spinBakeWidth, spinYaws } from '../shared/spin.ts';
import { frameId } from '../shared/shot-id.ts';
import { BAKER_VERSION } from '../baker/bake-set.ts';
import { loadStudioConfig } from './config.ts';

export interface PreBakeResult {
  set: string;
  revision: string;
  width: number;
  dir: string;
  baked: number;
  skipped: number;
  /** Milliseconds per frame baked (the subject's load counted in the first). */
  msPerFrame: number[];
}

/** Where a set argument points: a folder with a set.json, else a set id in `assetsDir`. */
async function resolveSetDir(arg: string, assetsDir: string): Promise<string> {
  const asDir = path.resolve(arg);
  if (await fs.stat(path.join(asDir, 'set.json')).then(() => true, () => false)) return asDir;
  if (isSetId(arg)) return path.join(assetsDir, arg);
  throw new Error(`${arg}: neither a set folder (no set.json) nor a set id`);
}

/** Shoots the frames of a spin of `frames` frames of `width` pixels that are not in the cache yet. */
export async function preBakeSpin(o: {
  setDir: string;
  framesDir: string;
  frames: number;
  width: number;
  supersample: number;
  log: (line: string) => void;
}): Promise<PreBakeResult> {
  if (!isSpinFrameCount(o.frames)) throw new Error(`--frames: use ${SPIN_FRAME_COUNTS.join(', ')}`);
  const meta = await readSetMeta(o.setDir);
  if (!meta.spin) throw new Error(`${o.setDir}: the set keeps no 3D source (set.json source.spin), so it has no spin`);
  const bakeWidth = spinBakeWidth(o.width);
  const height = spinBakeHeight(bakeWidth);
  const dir = spinFrameSetDir(o.framesDir, meta.id, meta.revision, bakeWidth);
  const yaws = spinYaws(o.frames);
  const missing: number[] = [];
  for (const yaw of yaws) {
    const had = await readSpinFrame(dir, frameId(yaw), { bakerVersion: BAKER_VERSION }).catch(() => null);
    if (!had) missing.push(yaw);
  }
  const result: PreBakeResult = { set: meta.id, revision: meta.revision, width: bakeWidth, dir, baked: 0, skipped: yaws.length - missing.length, msPerFrame: [] };
  o.log(`${meta.id}: ${yaws.length} frames at ${bakeWidth}x${height} into ${dir}; ${result.skipped} already there, ${missing.length} to shoot`);
  if (missing.length === 0) return result;

  // headless-gl only when there is something to shoot
  const { createGLRenderer } = await import('../baker/gl.ts');
  const { loadSpinSubject } = await import('../baker/spin/load-subject.ts');
  const { createSpinShooter } = await import('../baker/spin/shoot-frame.ts');
  const gl = createGLRenderer();
  const t0 = performance.now();
  const shooter = createSpinShooter(gl.renderer, await loadSpinSubject(meta.spin), meta.spin, (await readSetJson(o.setDir)).neutral_paint);
  try {
    let last = t0;
    for (const [i, yaw] of missing.entries()) {
      const shot = await shooter.shoot({
        yaw,
        width: bakeWidth,
        height,
        samples: Math.min(SPIN_FRAME_SAMPLES, gl.maxSamples),
        supersample: o.supersample,
        lightDepth: SPIN_FRAME_LIGHT_DEPTH,
      });
      await writeSpinFrame(dir, frameId(yaw), shot);
      const now = performance.now();
      result.msPerFrame.push(now - last);
      last = now;
      result.baked++;
      o.log(`[${i + 1}/${missing.length}] ${frameId(yaw)} ${((now - t0) / 1000).toFixed(1)} s`);
    }
  } finally {
    shooter.dispose();
    gl.dispose();
  }
  return result;
}

export function spinCommand(): Command {
  return new Command('spin')
    .argument('<set>', 'a set id (in --assets, default ASSETS_DIR) or a set folder')
    .description("shoot a spin's frames into the renderer's frame cache ahead of its first request (skips frames already there)")
    .option('--frames <n>', `frames of the spin (${SPIN_FRAME_COUNTS.join(', ')})`, '36')
    .option('--width <px>', `the spin's width (${SPIN_WIDTH_MIN}-${SPIN_WIDTH_MAX}); frames are shot at the smallest of 400, 800, 1600 at least as wide`, '800')
    .option('--frames-dir <dir>', "the frame cache (default as the renderer's: SPIN_FRAMES_DIR, else LEVEL_CACHE_DIR/spin-frames, else the temporary directory)")
    .option('--assets <dir>', 'where set ids are looked up (default ASSETS_DIR)')
    .option('--supersample <n>', "jittered renders per pass (the renderer's SPIN_FRAME_SUPERSAMPLE)", String(SPIN_FRAME_SUPERSAMPLE_DEFAULT))
    .action(async (set: string, o: { frames: string; width: string; framesDir?: string; assets?: string; supersample: string }) => {
      const config = loadStudioConfig();
      const width = Number(o.width);
      if (!Number.isInteger(width) || width < SPIN_WIDTH_MIN || width > SPIN_WIDTH_MAX) throw new Error(`--width: an integer from ${SPIN_WIDTH_MIN} to ${SPIN_WIDTH_MAX}`);
      const supersample = Number(o.supersample);
      if (!Number.isInteger(supersample) || supersample < 1 || supersample > 16) throw new Error('--supersample: an integer from 1 to 16');
      const setDir = await resolveSetDir(set, o.assets ? path.resolve(o.assets) : config.assetsDir);
      const r = await preBakeSpin({
        setDir,
        framesDir: o.framesDir ? path.resolve(o.framesDir) : config.spinFramesDir,
        frames: Number(o.frames),
        width,
        supersample,
        log: (line) => process.stderr.write(`${line}\n`),
      });
      const avg = r.msPerFrame.reduce((a, b) => a + b, 0) / Math.max(1, r.msPerFrame.length);
      console.log(`${r.set}: ${r.baked} frame(s) shot${r.baked ? ` (${(avg / 1000).toFixed(1)} s a frame)` : ''}, ${r.skipped} already in ${r.dir}`);
    });
}
