/**
 * Bakes the demo catalog's real-model sets from the glTF models in ../shared/models (read-only source
 * material, not part of the repository) into assets/:
 *   npx tsx studio/bake/gltf/demo-sets.ts [--models ../shared/models] [--out assets] [--only <set-id>] [-- <bake options>]
 * Each set gets its role map and credits from studio/bake/gltf/demo/ (docs/credits.md).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runGltfCli } from './cli.ts';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '../../..');

export const DEMO_SETS = [
  {
    id: 'roadster-50s-a',
    file: 'coupe-1950s-openmaterial/vehicle_example.gltf',
    map: null,
    note: 'glTF vehicle_example.gltf (ASAM OpenMATERIAL, (C) 2024 BMW AG, (C) 2024 Persival GmbH), MPL-2.0; see CREDITS.md',
  },
  {
    id: 'sportscoupe-a',
    file: 'sports-coupe-911/model.glb',
    map: 'sportscoupe-a.map.json',
    note: 'glTF model.glb by Karol Miklas (Lionsharp Studios), CC BY-SA 4.0, this set too; badges and lettering hidden; see CREDITS.md',
  },
] as const;

const isMain = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const args = process.argv.slice(2);
  const take = (flag: string, dflt: string | null): string | null => {
    const i = args.indexOf(flag);
    if (i < 0) return dflt;
    const v = args[i + 1] ?? null;
    args.splice(i, 2);
    return v;
  };
  const models = take('--models', path.resolve(ROOT, '../shared/models'))!;
  const out = take('--out', path.join(ROOT, 'assets'))!;
  const only = take('--only', null);
  const rest = args.filter((a) => a !== '--');
  let code = 0;
  for (const s of DEMO_SETS) {
    if (only && s.id !== only) continue;
    const argv = [
      path.join(models, s.file), '--out', out, '--id', s.id,
      '--credits', path.join(HERE, 'demo', `${s.id}.CREDITS.md`), '--note', s.note,
      ...(s.map ? ['--map', path.join(HERE, 'demo', s.map)] : []),
      ...rest,
    ];
    console.log(`bake gltf ${argv.map((a) => (a.includes(' ') ? JSON.stringify(a) : a)).join(' ')}`);
    code ||= await runGltfCli(argv);
  }
  process.exit(code);
}
