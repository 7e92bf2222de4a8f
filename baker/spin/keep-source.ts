/**
 * Keeps a glTF set's 3D source with it (docs/asset-format.md, "The 3D source"): `source/model.glb`,
 * `source/roles.json` (when the set was baked with a role map) and set.json's `source.spin`. Used by the
 * glTF bake and by the studio's attach-source for sets baked before sources were kept.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { readSetJsonAsWritten, writeSetJson } from '../../shared/asset-format/set-json.ts';
import { writeModelGlb } from '../gltf/load.ts';
import type { GltfSubject } from '../gltf/subject.ts';
import { spinSourceOf } from './rig.ts';

export const SOURCE_DIR = 'source';
export const SOURCE_MODEL = `${SOURCE_DIR}/model.glb`;
export const SOURCE_ROLE_MAP = `${SOURCE_DIR}/roles.json`;

/**
 * Writes the source files into `<setDir>/source/` (replacing any; written beside it and renamed into
 * place) and `source.spin` into set.json. `subject` is `modelFile` loaded with `roleMapFile`.
 */
export async function keepSource(setDir: string, subject: GltfSubject, modelFile: string, roleMapFile: string | null): Promise<void> {
  const staging = path.join(setDir, `.${SOURCE_DIR}.incoming-${process.pid}`);
  const aside = path.join(setDir, `.${SOURCE_DIR}.previous-${process.pid}`);
  await fs.rm(staging, { recursive: true, force: true });
  await fs.mkdir(staging, { recursive: true });
  try {
    await writeModelGlb(modelFile, path.join(staging, path.basename(SOURCE_MODEL)));
    if (roleMapFile) await fs.copyFile(roleMapFile, path.join(staging, path.basename(SOURCE_ROLE_MAP)));
    const json = await readSetJsonAsWritten(setDir);
    const spin = spinSourceOf(subject, { model: SOURCE_MODEL, roleMap: roleMapFile ? SOURCE_ROLE_MAP : null });
    const target = path.join(setDir, SOURCE_DIR);
    const hadOld = await fs.rename(target, aside).then(() => true, (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return false;
      throw e;
    });
    await fs.rename(staging, target);
    await writeSetJson(setDir, { ...json, source: { ...(json.source ?? {}), spin } });
    if (hadOld) await fs.rm(aside, { recursive: true, force: true });
  } finally {
    await fs.rm(staging, { recursive: true, force: true });
  }
}
