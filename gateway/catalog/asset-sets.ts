import fs from 'node:fs';
import path from 'node:path';
import { isSetId } from '../../shared/asset-format/set-id.ts';
import { readSetJson, setJsonPath } from '../../shared/asset-format/set-json.ts';
import type { ViewDescription } from '../../shared/render-contract.ts';
import { isViewId, type ViewId } from '../../shared/views.ts';

/** The renderer's DescribeSet answer, read from set.json; a set may lack some views. */
export interface SetDescription {
  id: string;
  revision: string;
  views: Partial<Record<ViewId, ViewDescription>>;
}

/** Where the gateway learns an asset set's views (sizes, shadow, plate quad) when importing a catalog. */
export interface AssetSetDirectory {
  /** null when there is no such set; throws AssetSetError (naming the file and field) for a malformed set.json. */
  describe(id: string): Promise<SetDescription | null>;
}

/** Reads `set.json` from the assets folder the renderer serves (ASSETS_DIR). */
export function createFileAssetSetDirectory(assetsDir: string): AssetSetDirectory {
  return {
    async describe(id) {
      if (!isSetId(id)) return null;
      const dir = path.join(assetsDir, id);
      if (!fs.existsSync(setJsonPath(dir))) return null;
      const s = await readSetJson(dir);
      const views: SetDescription['views'] = {};
      for (const [view, v] of Object.entries(s.views)) {
        if (!isViewId(view)) continue;
        views[view] = { width: v.width, height: v.height, plateQuad: v.plate_quad, shadow: v.shadow, coverage: v.coverage };
      }
      return { id: s.id, revision: s.revision, views };
    },
  };
}
