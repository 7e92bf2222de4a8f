/**
 * `npm run studio -- attach-source <set-dir> --model <file> [--map <roles.json>]`: keeps a glTF model
 * with a set baked before sets kept their source (docs/asset-format.md, "The 3D source"), without
 * baking its views again. The model must be the one the set was baked from: the set's revision is
 * recomputed from the model and role map with the bake's options (the revision fingerprint), or, for a
 * set that already keeps a source, the model must normalise into the same studio frame. Anything else
 * is refused and nothing is written.
 */
import { DEFAULT_SUPERSAMPLE, subjectRevision } from '../baker/bake-set.ts';
import { readRoleMap } from '../baker/gltf/roles.ts';
import { gltfSubject } from '../baker/gltf/subject.ts';
import { keepSource } from '../baker/spin/keep-source.ts';
import { normalisationDifferences } from '../baker/spin/load-subject.ts';
import { readSetMeta } from '../shared/asset-format/read-set.ts';
import { readSetJson } from '../shared/asset-format/set-json.ts';

export interface AttachOptions {
  model: string;
  map?: string;
  /** The bake's options when they were not the glTF bake's defaults. */
  samples?: number;
  supersample?: number;
}

const withoutCalibration = (r: string) => r.replace(/-cal\d+$/, '');

export async function attachSource(dir: string, o: AttachOptions): Promise<{ revision: string; how: string; outline: number }> {
  const meta = await readSetMeta(dir);
  const json = await readSetJson(dir);
  if (json.source?.kind !== 'gltf') throw new Error(`${dir}: not a glTF set (source.kind is ${JSON.stringify(json.source?.kind ?? null)})`);
  const map = o.map ? await readRoleMap(o.map) : undefined;
  const subject = await gltfSubject(o.model, map, o.map ? { mapFile: o.map } : {});
  let how: string;
  if (meta.spin) {
    const diff = normalisationDifferences(subject, meta.spin.normalisation);
    if (diff.length) throw new Error(`${o.model} does not normalise into the set's studio frame (${diff.join('; ')}); nothing written`);
    how = 'the same normalisation as the source the set kept';
  } else {
    const first = Object.values(meta.views)[0]!;
    const revision = subjectRevision(subject, {
      width: first.width,
      height: first.height,
      samples: o.samples ?? 4,
      supersample: o.supersample ?? DEFAULT_SUPERSAMPLE,
      lightDepth: first.lightDepth.diffuse,
      neutralPaint: json.neutral_paint,
    });
    if (withoutCalibration(revision) !== withoutCalibration(meta.revision)) {
      throw new Error(
        `${o.model}${o.map ? ` with ${o.map}` : ''} is not what ${meta.id} was baked from: it gives revision ${revision}, the set has ${meta.revision} ` +
          '(another model or role map, or other bake options: --samples, --supersample); nothing written',
      );
    }
    how = `the set's revision recomputed from the model (${meta.revision})`;
  }
  await keepSource(dir, subject, o.model, o.map ?? null);
  const after = await readSetMeta(dir);
  return { revision: after.revision, how, outline: after.spin!.outline.length };
}
