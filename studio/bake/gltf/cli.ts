/**
 * `npm run bake -- gltf <file.glb|file.gltf> --out <dir> [--id <set-id>] [--map <roles.json>]`
 *
 * Bakes a glTF 2.0 vehicle into a studio asset set (format 2, docs/asset-format.md) at `<dir>/<set-id>/`.
 * The set is baked into a temporary folder beside it and moved into place at the end, so a failed bake
 * writes nothing. The set keeps the model and its role map (`source/`, set.json `source.spin`) for spins. A file that is not glTF 2.0, has no mesh or has no paint fails with one line.
 * See docs/studio.md, "Bring your own 3D model".
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import cliProgress from 'cli-progress';
import { Command, CommanderError } from 'commander';
import { VIEW_IDS, isViewId, type ViewId } from '../../../shared/views.ts';
import { SET_ID_RULE, isSetId } from '../../../shared/asset-format/set-id.ts';
import { GltfInputError } from '../../../baker/gltf/load.ts';
import { readRoleMap } from '../../../baker/gltf/roles.ts';
import { gltfSubject } from '../../../baker/gltf/subject.ts';
import { checkPlateQuads } from '../../../baker/gltf/plate-check.ts';
import { keepSource } from '../../../baker/spin/keep-source.ts';

/** A set id from a file name: `Vehicle Example.gltf` → `vehicle-example`. */
export function setIdFromFile(file: string): string {
  const base = path.basename(file).replace(/\.(glb|gltf)$/i, '');
  const id = base.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64);
  return id || 'gltf-vehicle';
}

interface CliOptions {
  out: string;
  id?: string;
  map?: string;
  views: string;
  width: string;
  height?: string;
  samples: string;
  supersample?: string;
  lightDepth: string;
  credits?: string;
  note?: string;
  progress: boolean;
  quiet: boolean;
}

function fail(file: string, message: string): number {
  console.error(`bake gltf: ${file}: ${message}`);
  return 1;
}

/** Renames `from` to `to`; across file systems copies next to `to` first, then renames (the set appears at once). */
async function moveDir(from: string, to: string, toParent: string): Promise<void> {
  try {
    await fs.rename(from, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    const staging = await fs.mkdtemp(path.join(toParent, '.incoming-'));
    try {
      await fs.cp(from, path.join(staging, 'set'), { recursive: true });
      await fs.rename(path.join(staging, 'set'), to);
    } finally {
      await fs.rm(staging, { recursive: true, force: true });
    }
  }
}

/** `bake gltf`: its options; the action is the caller's (the studio CLI's, or runGltfCli's). */
export function gltfCommand(): Command {
  return new Command('gltf')
    .description('Bake a glTF 2.0 vehicle into a studio asset set')
    .argument('<file>', 'the model: .glb, or .gltf with its buffers and images beside it')
    .requiredOption('--out <dir>', 'output folder; the set is written to <dir>/<set-id>/')
    .option('--id <set-id>', 'set id (default: from the file name)')
    .option('--map <roles.json>', 'role map: name patterns → roles, axes, scale, plates (docs/studio.md)')
    .option('--views <ids>', 'comma-separated view ids', VIEW_IDS.join(','))
    .option('--width <px>', 'base width', '2400')
    .option('--height <px>', 'base height (default 9/16 of the width)')
    .option('--samples <n>', 'MSAA samples per render', '4')
    .option('--supersample <n>', 'sub-pixel-jittered renders per pass (default: the baker\'s)')
    .option('--light-depth <bits>', 'bit depth of diffuse/specular (8 or 16)', '8')
    .option('--credits <file.md>', 'copy this file into the set as CREDITS.md (author, licence, source of the model)')
    .option('--note <text>', "the set's source note in set.json (default: file name and the credit found in the file)")
    .option('--no-progress', 'no progress bar (log lines instead)')
    .option('--quiet', 'print only the result line')
    .action(async (file: string, o: CliOptions) => {
      process.exitCode = await bakeGltf(file, o);
    });
}

/** `bake gltf` with its arguments (after `gltf`); answers the exit code. */
export async function runGltfCli(argv: string[]): Promise<number> {
  const program = gltfCommand()
    .action(() => undefined)
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) });
  try {
    program.parse(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) return e.exitCode === 0 ? 0 : 2;
    throw e;
  }
  return bakeGltf(program.args[0]!, program.opts<CliOptions>());
}

/** Bakes `file` into `<o.out>/<set-id>/`; answers the exit code (failures are one line on stderr). */
export async function bakeGltf(file: string, o: CliOptions): Promise<number> {
  const id = o.id ?? setIdFromFile(file);
  if (!isSetId(id)) return fail(file, `set id "${id}" is not valid (${SET_ID_RULE})`);
  const views = o.views.split(',').map((s) => s.trim()).filter(Boolean);
  for (const v of views) if (!isViewId(v)) return fail(file, `unknown view "${v}" (known: ${VIEW_IDS.join(', ')})`);
  const width = Number(o.width);
  const height = o.height ? Number(o.height) : Math.round((width * 9) / 16);
  if (!(Number.isInteger(width) && width >= 16 && width <= 4096 && Number.isInteger(height) && height >= 16 && height <= 4096)) {
    return fail(file, `bad size ${o.width}x${o.height ?? ''} (16 to 4096 px)`);
  }
  const log = (s: string) => {
    if (!o.quiet) console.log(s);
  };

  // everything that can be wrong with the input is found before anything is written
  let subject;
  try {
    const map = o.map ? await readRoleMap(o.map) : undefined;
    subject = await gltfSubject(file, map, { mapFile: o.map });
  } catch (e) {
    if (e instanceof GltfInputError) return fail(file, e.message);
    return fail(file, `unexpected error: ${(e as Error).message}`);
  }
  if (o.note) subject.source.note = o.note;
  for (const line of subject.report) log(`  ${line}`);
  for (const w of subject.warnings) log(`  warning: ${w}`);
  if (o.credits) {
    try {
      await fs.access(o.credits);
    } catch {
      return fail(file, `cannot read the credits file ${o.credits}`);
    }
  }

  const [{ bakeSubject, DEFAULT_SUPERSAMPLE }, { createGLRenderer }] = await Promise.all([import('../../../baker/bake-set.ts'), import('../../../baker/gl.ts')]);
  let gl;
  try {
    gl = createGLRenderer();
  } catch (e) {
    return fail(file, (e as Error).message);
  }
  const outRoot = path.resolve(o.out);
  const finalDir = path.join(outRoot, id);
  await fs.mkdir(outRoot, { recursive: true });
  const tmpRoot = await fs.mkdtemp(path.join(os.tmpdir(), `bake-gltf-${id}-`));
  const tmpDir = path.join(tmpRoot, id);
  const bar = o.progress && process.stdout.isTTY && !o.quiet
    ? new cliProgress.SingleBar({ format: `baking ${id} [{bar}] {value}/{total} {view} | {duration_formatted}`, hideCursor: true }, cliProgress.Presets.shades_classic)
    : null;
  const started = Date.now();
  try {
    bar?.start(views.length, 0, { view: '' });
    let done = 0;
    const res = await bakeSubject(gl.renderer, subject, tmpDir, {
      id,
      width,
      height,
      views: views as ViewId[],
      samples: Number(o.samples),
      supersample: o.supersample ? Number(o.supersample) : DEFAULT_SUPERSAMPLE,
      lightDepth: Number(o.lightDepth) === 16 ? 16 : 8,
      onView: (view) => {
        if (bar) bar.update(done, { view });
        else log(`[${done + 1}/${views.length}] ${id} ${view}`);
        done++;
      },
    });
    bar?.update(views.length, { view: 'done' });
    bar?.stop();
    const dropped = await checkPlateQuads(tmpDir);
    for (const d of dropped) log(`  ${d}`);
    // the model and its role map stay with the set, so its spin frames can be shot again
    await keepSource(tmpDir, subject, file, o.map ?? null);
    if (o.credits) await fs.copyFile(o.credits, path.join(tmpDir, 'CREDITS.md'));
    // move into place: the old set (if any) goes aside first and is removed once the new one is there
    const aside = path.join(outRoot, `.${id}.previous-${process.pid}`);
    let hadOld = false;
    try {
      await fs.rename(finalDir, aside);
      hadOld = true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    try {
      await moveDir(tmpDir, finalDir, outRoot);
    } catch (e) {
      if (hadOld) await fs.rename(aside, finalDir);
      throw e;
    }
    if (hadOld) await fs.rm(aside, { recursive: true, force: true });
    const perView = res.msPerView.reduce((a, b) => a + b, 0) / Math.max(1, res.msPerView.length) / 1000;
    console.log(
      `baked ${path.relative(process.cwd(), finalDir) || finalDir}: ${views.length} view(s) at ${width}x${height} in ` +
      `${((Date.now() - started) / 1000).toFixed(0)} s (${perView.toFixed(1)} s a view), ${(res.bytes / 1e6).toFixed(2)} MB, revision ${res.revision}`,
    );
    return 0;
  } catch (e) {
    bar?.stop();
    return fail(file, `bake failed: ${(e as Error).message}`);
  } finally {
    await fs.rm(tmpRoot, { recursive: true, force: true });
    gl.dispose();
  }
}
