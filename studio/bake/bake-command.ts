/**
 * `npm run bake [-- --sets a,b] [--views v1,v2] [--width 2400] [--supersample 4] [--out assets]` (procedural sets)
 * `npm run bake -- gltf <file.glb|file.gltf> --out <dir> [--id <set-id>] [--map <roles.json>]` (gltf/cli.ts)
 * Bakes the studio asset sets (docs/studio.md) deterministically: same inputs, same files.
 */
import path from 'node:path';
import { Command } from 'commander';
import cliProgress from 'cli-progress';
import { VIEW_IDS, isViewId, type ViewId } from '../../shared/views.ts';
import { DEFAULT_SUPERSAMPLE } from '../../baker/bake-set.ts';
import { bakeSet } from './procedural.ts';
import { DEFAULT_SET_IDS, findSet, SETS } from './styles.ts';
import { gltfCommand } from './gltf/cli.ts';

interface BakeOptions {
  sets: string; views: string; width: string; height?: string; samples: string; supersample: string; lightDepth: string; out: string;
  progress: boolean;
}

export function bakeCommand(): Command {
  return new Command('bake')
    .description('Bake the procedural studio vehicles into asset sets')
    .option('--sets <ids>', `comma-separated set ids (known: ${SETS.map((s) => s.id).join(', ')})`, DEFAULT_SET_IDS.join(','))
    .option('--views <ids>', 'comma-separated view ids', VIEW_IDS.join(','))
    .option('--width <px>', 'base width', '2400')
    .option('--height <px>', 'base height (default 9/16 of the width)')
    .option('--samples <n>', 'MSAA samples per render', '4')
    .option('--supersample <n>', 'sub-pixel-jittered renders per pass (samples x supersample samples a pixel)', String(DEFAULT_SUPERSAMPLE))
    .option('--light-depth <bits>', 'bit depth of diffuse/specular (8 or 16)', '8')
    .option('--out <dir>', 'output folder (one sub-folder per set)', 'assets')
    .option('--no-progress', 'no progress bar (log lines instead)')
    .addCommand(gltfCommand())
    .action(bakeProcedural);
}

async function bakeProcedural(o: BakeOptions): Promise<void> {
  const sets = o.sets.split(',').map((s) => s.trim()).filter(Boolean).map((id) => {
    const def = findSet(id);
    if (!def) throw new Error(`unknown set "${id}" (known: ${SETS.map((s) => s.id).join(', ')})`);
    return def;
  });
  const views = o.views.split(',').map((s) => s.trim()).filter(Boolean);
  for (const v of views) if (!isViewId(v)) throw new Error(`unknown view "${v}"`);
  const width = Number(o.width);
  const height = o.height ? Number(o.height) : Math.round((width * 9) / 16);
  const lightDepth = Number(o.lightDepth) === 16 ? 16 : 8;

  const { createGLRenderer } = await import('../../baker/gl.ts'); // headless-gl only when baking
  const gl = createGLRenderer();
  const total = sets.length * views.length;
  const bar = o.progress && process.stdout.isTTY
    ? new cliProgress.SingleBar({ format: 'baking [{bar}] {value}/{total} {set} {view} | {duration_formatted}', hideCursor: true }, cliProgress.Presets.shades_classic)
    : null;
  bar?.start(total, 0, { set: '', view: '' });
  const t0 = Date.now();
  let done = 0;
  let bytes = 0;
  const viewMs: number[] = [];
  for (const def of sets) {
    const res = await bakeSet(gl.renderer, def, path.join(o.out, def.id), {
      width, height, views: views as ViewId[], samples: Number(o.samples), supersample: Number(o.supersample), lightDepth,
      onView: (view) => {
        if (bar) bar.update(done, { set: def.id, view });
        else console.log(`[${done + 1}/${total}] ${def.id} ${view}`);
        done++;
      },
    });
    bar?.update(done, { set: def.id, view: 'done' });
    bytes += res.bytes;
    viewMs.push(...res.msPerView);
    const avg = res.msPerView.reduce((a, b) => a + b, 0) / Math.max(1, res.msPerView.length);
    if (!bar) console.log(`${def.id}: ${(res.bytes / 1e6).toFixed(2)} MB, ${(avg / 1000).toFixed(1)} s a view, revision ${res.revision}`);
  }
  bar?.stop();
  const avgView = viewMs.reduce((a, b) => a + b, 0) / Math.max(1, viewMs.length);
  console.log(
    `baked ${sets.length} set(s), ${total} view(s) in ${((Date.now() - t0) / 1000).toFixed(0)} s ` +
    `(${(avgView / 1000).toFixed(1)} s a view), ${(bytes / 1e6).toFixed(1)} MB`,
  );
  gl.dispose();
}
