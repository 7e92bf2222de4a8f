/**
 * `npx tsx renderer/tools/recalibrate.ts <set-dir>...`: re-fits every view's calibration of format-2
 * asset sets from their own layers (renderer/assets/calibrate.ts) and gives each set the revision of
 * that fit, without baking or splitting anew: what an operator runs when the calibration model
 * changes (CALIBRATION_VERSION). Layers are read, never written; only set.json changes.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { calibratedRevision, calibrateView } from '../assets/calibrate.ts';
import { LIGHT8_TO_LINEAR } from '../assets/light-encoding.ts';
import { layerPath, readSetMeta } from '../assets/set-format.ts';
import { isViewId } from '../../shared/views.ts';

async function light(file: string, depth: 8 | 16): Promise<Float32Array> {
  if (depth === 16) {
    const b = await sharp(file).toColourspace('grey16').raw({ depth: 'ushort' }).toBuffer();
    return Float32Array.from(new Uint16Array(b.buffer, b.byteOffset, b.length / 2), (v) => v / 65535);
  }
  const b = await sharp(file).toColourspace('b-w').raw().toBuffer();
  return Float32Array.from(b, (v) => LIGHT8_TO_LINEAR[v]!);
}

export async function recalibrateSet(dir: string): Promise<{ revision: string; changed: number }> {
  const meta = await readSetMeta(dir); // validates the whole set first
  const file = path.join(dir, 'set.json');
  const json = JSON.parse(await fs.readFile(file, 'utf8')) as { revision: string; views: Record<string, { calibration: unknown }> };
  let changed = 0;
  for (const [view, v] of Object.entries(meta.views)) {
    if (!isViewId(view) || !v) continue;
    const paint = new Uint8Array(await sharp(layerPath(dir, view, 'paint')).toColourspace('b-w').raw().toBuffer());
    const [diffuse, specular] = await Promise.all([
      light(layerPath(dir, view, 'diffuse'), v.lightDepth.diffuse),
      light(layerPath(dir, view, 'specular'), v.lightDepth.specular),
    ]);
    const cal = calibrateView({ width: v.width, height: v.height, paint, diffuse, specular });
    if (JSON.stringify(cal) !== JSON.stringify(json.views[view]!.calibration)) changed++;
    json.views[view]!.calibration = cal;
  }
  json.revision = calibratedRevision(String(json.revision));
  const tmp = `${file}.tmp`;
  await fs.writeFile(tmp, JSON.stringify(json, null, 2) + '\n');
  await fs.rename(tmp, file);
  await readSetMeta(dir);
  return { revision: json.revision, changed };
}

async function main(dirs: string[]): Promise<void> {
  if (dirs.length === 0) {
    console.error('usage: npx tsx renderer/tools/recalibrate.ts <set-dir>...');
    process.exitCode = 2;
    return;
  }
  for (const d of dirs) {
    try {
      const r = await recalibrateSet(path.resolve(d));
      console.log(`${d}: revision ${r.revision}, ${r.changed} view(s) re-fitted`);
    } catch (e) {
      console.error(`${d}: ${(e as Error).message}`);
      process.exitCode = 1;
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main(process.argv.slice(2));
