/**
 * A set's kept 3D source as a studio subject again: the model with its kept role map, normalised into
 * the studio frame by the same code as at bake time, and checked against the normalisation the set
 * recorded, so frames are shot of exactly the car the views show.
 */
import type { SpinSourceMeta } from '../../shared/asset-format/read-set.ts';
import { axisLabel } from '../gltf/normalise.ts';
import { readRoleMap } from '../gltf/roles.ts';
import { gltfSubject, type GltfSubject } from '../gltf/subject.ts';

/** The offset is kept to 0.1 mm; anything further off is another model (or another normalisation). */
const OFFSET_TOLERANCE_M = 0.00015;

/** What differs between a subject's normalisation and a recorded one; empty when they agree. */
export function normalisationDifferences(subject: GltfSubject, recorded: SpinSourceMeta['normalisation']): string[] {
  const got = {
    up: axisLabel(subject.orientation.up),
    forward: axisLabel(subject.orientation.forward),
    scale: subject.orientation.scale,
    offset: [subject.offset.x, subject.offset.y, subject.offset.z],
  };
  const out: string[] = [];
  if (got.up !== recorded.up) out.push(`up ${got.up}, recorded ${recorded.up}`);
  if (got.forward !== recorded.forward) out.push(`forward ${got.forward}, recorded ${recorded.forward}`);
  if (Math.abs(got.scale - recorded.scale) > 1e-9 * recorded.scale) out.push(`scale ${got.scale}, recorded ${recorded.scale}`);
  if (got.offset.some((v, i) => Math.abs(v - recorded.offset[i]!) > OFFSET_TOLERANCE_M)) {
    out.push(`offset [${got.offset.map((v) => v.toFixed(4)).join(', ')}], recorded [${recorded.offset.join(', ')}]`);
  }
  return out;
}

export async function loadSpinSubject(spin: SpinSourceMeta): Promise<GltfSubject> {
  const map = spin.roleMapPath ? await readRoleMap(spin.roleMapPath) : undefined;
  const subject = await gltfSubject(spin.modelPath, map, spin.roleMapPath ? { mapFile: spin.roleMapPath } : {});
  const diff = normalisationDifferences(subject, spin.normalisation);
  if (diff.length) {
    throw new Error(`${spin.modelPath}: does not normalise into the studio frame its set was baked in (${diff.join('; ')})`);
  }
  return subject;
}
