/**
 * `npm run studio -- recalibrate <set-dir>...`: re-fits every view's calibration of format-2 asset
 * sets from their own layers (baker/calibrate.ts) and gives each set the revision of that fit,
 * without baking or splitting anew: what an operator runs when the calibration model changes
 * (CALIBRATION_VERSION). Layers are read, never written; only set.json changes.
 */
import { calibratedRevision, calibrateView } from '../baker/calibrate.ts';
import { layerPath, readGreyLayer, readLightLayer } from '../shared/asset-format/layer-files.ts';
import { readSetMeta } from '../shared/asset-format/read-set.ts';
import { readSetJsonAsWritten, writeSetJson } from '../shared/asset-format/set-json.ts';
import { isViewId } from '../shared/views.ts';

export async function recalibrateSet(dir: string): Promise<{ revision: string; changed: number }> {
  const meta = await readSetMeta(dir); // validates the whole set first
  const json = await readSetJsonAsWritten(dir);
  let changed = 0;
  for (const [view, v] of Object.entries(meta.views)) {
    if (!isViewId(view) || !v) continue;
    const paint = new Uint8Array(await readGreyLayer(layerPath(dir, view, 'paint')));
    const [diffuse, specular] = await Promise.all([
      readLightLayer(layerPath(dir, view, 'diffuse'), v.lightDepth.diffuse),
      readLightLayer(layerPath(dir, view, 'specular'), v.lightDepth.specular),
    ]);
    const cal = calibrateView({ width: v.width, height: v.height, paint, diffuse, specular });
    if (JSON.stringify(cal) !== JSON.stringify(json.views[view]!.calibration)) changed++;
    json.views[view]!.calibration = cal;
  }
  json.revision = calibratedRevision(String(json.revision));
  await writeSetJson(dir, json);
  await readSetMeta(dir);
  return { revision: json.revision, changed };
}
