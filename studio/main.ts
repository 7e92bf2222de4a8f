/**
 * `npm run studio -- <command>`: the studio's tools, which make and maintain asset sets
 * (docs/studio.md). None of them runs in the service; they write the sets the renderer serves.
 *   bake [gltf]     procedural sets, or one glTF model (`npm run bake` is `studio bake`)
 *   split, import   a photographed set into format 2; any set into ASSETS_DIR
 *   recalibrate     re-fit the calibration of sets after a model change
 *   attach-source   keep a glTF set's model with it (for spins) without baking its views again
 *   contact-sheet   the nine views in several colours (`npm run contact-sheet`)
 *   spin            shoot a spin's frames into the renderer's frame cache ahead of time
 *   levels          make the renderer's level files (LEVEL_CACHE_DIR) of sets ahead of their first calls
 *   demo-catalog    regenerate assets/demo-catalog.json
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { bakeCommand } from './bake/bake-command.ts';
import { buildDemoCatalog } from './bake/demo-catalog.ts';
import { contactSheetCommand } from './contact-sheet.ts';
import { importSet } from './import-set.ts';
import { splitPhotographedSet } from './photo/split.ts';
import { recalibrateSet } from './recalibrate.ts';
import { attachSource } from './attach-source.ts';
import { spinCommand } from './spin-command.ts';
import { levelsCommand } from './levels-command.ts';
import { ConfigError } from '../shared/config-fields.ts';
import { loadStudioConfig } from './config.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function fail(msg: string): never {
  process.stderr.write(`error: ${msg}\n`);
  process.exit(1);
}
const print = (data: unknown) => process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
/** ASSETS_DIR, by default the checkout's assets/ (studio/config.ts, read when a command needs it). */
const assetsDir = () => {
  try {
    return loadStudioConfig().assetsDir;
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }
};

const program = new Command().name('studio').description('make and maintain studio asset sets (docs/studio.md)').enablePositionalOptions();

program.addCommand(bakeCommand().enablePositionalOptions());

program
  .command('split <in-dir>')
  .description(
    'derive D and S once for a photographed set (per view base + paint [+ shadow, coverage], docs/studio.md) ' +
      'and write it as an asset-format-2 set',
  )
  .requiredOption('--out <dir>', 'the set folder to write; its name must be the set id')
  .option('--neutral <hex>', "the neutral paint #RRGGBB of the shoot (default: set.json's neutral_paint, else estimated)")
  .option('--radius <px>', 'half-size of the top-hat square in pixels (default: view width / 60)')
  .option('--force', 'replace the output folder if it exists')
  .action(async (inDir: string, o: { out: string; neutral?: string; radius?: string; force?: boolean }) => {
    const out = path.resolve(o.out);
    if (fs.existsSync(out) && !o.force) fail(`${out}: already exists (use --force to replace it)`);
    const radius = o.radius === undefined ? undefined : Number(o.radius);
    if (radius !== undefined && !(Number.isInteger(radius) && radius > 0)) fail(`--radius: must be a positive integer, got ${o.radius}`);
    try {
      print(await splitPhotographedSet(inDir, out, { neutral: o.neutral, radius, log: (line) => process.stderr.write(`${line}\n`) }));
      process.stderr.write(`Import it with: npm run studio -- import ${out}\n`);
    } catch (err) {
      fail((err as Error).message);
    }
  });

program
  .command('import <dir>')
  .description(
    'validate an asset set folder (set.json + layers per view) and copy it into ASSETS_DIR; a photographed ' +
      'folder (base + paint [+ shadow, coverage] per view, no diffuse/specular) is split first, as by "split"',
  )
  .option('--replace', 'replace an existing set of the same id (its revision must change)')
  .action(async (dir: string, o: { replace?: boolean }) => {
    try {
      print(await importSet(dir, assetsDir(), { replace: o.replace, log: (line) => process.stderr.write(`${line}\n`) }));
    } catch (err) {
      fail((err as Error).message);
    }
    process.stderr.write('Reference it from a catalog with "asset_set" and import the catalog (npm run admin -- catalog import).\n');
  });

program
  .command('recalibrate <set-dir...>')
  .description("re-fit every view's calibration of format-2 sets from their own layers; only set.json changes")
  .action(async (dirs: string[]) => {
    for (const d of dirs) {
      try {
        const r = await recalibrateSet(path.resolve(d));
        console.log(`${d}: revision ${r.revision}, ${r.changed} view(s) re-fitted`);
      } catch (e) {
        console.error(`${d}: ${(e as Error).message}`);
        process.exitCode = 1;
      }
    }
  });

program
  .command('attach-source <set-dir>')
  .description(
    "keep the glTF model (and role map) a set was baked from with it (source/, set.json source.spin), for spins, " +
      'without baking its views again; refused unless the model is the one the set was baked from',
  )
  .requiredOption('--model <file>', 'the model the set was baked from (.glb, or .gltf with its files)')
  .option('--map <roles.json>', 'the role map it was baked with')
  .option('--samples <n>', 'MSAA samples the set was baked with', '4')
  .option('--supersample <n>', 'jittered renders per pass the set was baked with (default: the baker\'s)')
  .action(async (dir: string, o: { model: string; map?: string; samples: string; supersample?: string }) => {
    try {
      const r = await attachSource(path.resolve(dir), {
        model: o.model,
        map: o.map,
        samples: Number(o.samples),
        supersample: o.supersample === undefined ? undefined : Number(o.supersample),
      });
      console.log(`${dir}: source kept (${r.how}); outline ${r.outline} points, revision ${r.revision}`);
    } catch (e) {
      fail((e as Error).message);
    }
  });

program.addCommand(contactSheetCommand());

program.addCommand(spinCommand());
program.addCommand(levelsCommand());

program
  .command('demo-catalog')
  .description('regenerate the demo catalog (seeded, deterministic)')
  .option('--out <file>', 'where to write it', path.join(ROOT, 'assets', 'demo-catalog.json'))
  .action((o: { out: string }) => {
    fs.writeFileSync(o.out, JSON.stringify(buildDemoCatalog(), null, 2) + '\n');
    console.log(`wrote ${o.out}`);
  });

program.parseAsync(process.argv).catch((err: unknown) => fail((err as Error).message));
