import fs from 'node:fs/promises';
import path from 'node:path';
import type { ViewDescription } from '../../shared/render-client.ts';
import { isViewId, type ViewId } from '../../shared/views.ts';

/** The renderer's DescribeSet answer, read from set.json; a set may lack some views. */
export interface SetDescription {
  id: string;
  revision: string;
  views: Partial<Record<ViewId, ViewDescription>>;
}

/** Where the gateway learns an asset set's views (sizes, shadow, plate quad) when importing a catalog. */
export interface AssetSetDirectory {
  describe(id: string): Promise<SetDescription | null>;
}

/** Reads `set.json` from an assets folder the gateway can see (embedded mode, the admin CLI). */
export function createFileAssetSetDirectory(assetsDir: string): AssetSetDirectory {
  return {
    async describe(id) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return null;
      let text: string;
      try {
        text = await fs.readFile(path.join(assetsDir, id, 'set.json'), 'utf8');
      } catch {
        return null;
      }
      const raw = JSON.parse(text) as {
        id: string;
        revision: string | number;
        views: Record<string, { width: number; height: number; plate_quad: [number, number][] | null; shadow: boolean; coverage?: boolean }>;
      };
      const views: SetDescription['views'] = {};
      for (const [view, v] of Object.entries(raw.views)) {
        if (!isViewId(view)) continue;
        views[view] = { width: v.width, height: v.height, plateQuad: v.plate_quad ?? null, shadow: v.shadow, coverage: v.coverage === true };
      }
      return { id: raw.id ?? id, revision: String(raw.revision), views };
    },
  };
}
