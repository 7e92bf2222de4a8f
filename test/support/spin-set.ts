/**
 * A glTF set with its 3D source kept (set.json `source.spin`, `source/model.glb`), for the suites that
 * need a spin: the fixture car (gltf-car.ts) baked by the real glTF bake command, all nine views at
 * 320 x 180 with fast options (one jittered render per pass, 8-bit light). Needs WebGL 2 (headless-gl;
 * lavapipe here). Nothing is read from ../shared.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { writeFixtureCar } from './gltf-car.ts';

/** Bakes the fixture car into `<dir>/<id>/` with its source; answers the set's folder. */
export async function makeSpinSet(dir: string, id = 'spin-car'): Promise<string> {
  const { runGltfCli } = await import('../../studio/bake/gltf/cli.ts');
  const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'spin-set-model-'));
  try {
    const model = path.join(tmp, 'car.glb');
    await writeFixtureCar(model);
    const errors: string[] = [];
    const [origError, origLog] = [console.error, console.log];
    console.error = (...a: unknown[]) => errors.push(a.map(String).join(' '));
    console.log = () => {}; // the bake's result line
    let code: number;
    try {
      code = await runGltfCli([model, '--out', dir, '--id', id, '--width', '320', '--supersample', '1', '--light-depth', '8', '--quiet']);
    } finally {
      console.error = origError;
      console.log = origLog;
    }
    if (code !== 0) throw new Error(`makeSpinSet: the glTF bake failed (${code}): ${errors.join('\n')}`);
    return path.join(dir, id);
  } finally {
    await fs.rm(tmp, { recursive: true, force: true });
  }
}
