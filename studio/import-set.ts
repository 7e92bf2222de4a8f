import fs from 'node:fs';
import path from 'node:path';
import { readSetMeta } from '../shared/asset-format/read-set.ts';
import { isPhotographedSet, splitPhotographedSetToTemp } from './photo/split.ts';

export interface ImportResult {
  imported: string;
  revision: string;
  views: string[];
  into: string;
}

/**
 * Validates a set folder and copies it into `assetsDir` (ASSETS_DIR, where the renderer and the
 * catalog import read sets); a photographed folder is split first. A set already there is replaced
 * only with `replace` and a new revision, since the revision keys the renderer's caches.
 */
export async function importSet(dir: string, assetsDir: string, opts: { replace?: boolean; log?: (line: string) => void } = {}): Promise<ImportResult> {
  let source = path.resolve(dir);
  let cleanup: (() => Promise<void>) | null = null;
  try {
    if (await isPhotographedSet(source)) {
      opts.log?.(`${source}: a photographed set (no diffuse/specular): deriving D and S`);
      const split = await splitPhotographedSetToTemp(source, { log: (line) => opts.log?.(`  ${line}`) });
      source = split.dir;
      cleanup = split.cleanup;
    }
    const meta = await readSetMeta(source);
    const target = path.join(assetsDir, meta.id);
    if (fs.existsSync(target)) {
      if (!opts.replace) throw new Error(`asset set ${meta.id} already exists in ${assetsDir} (use --replace with a new revision)`);
      const old = await readSetMeta(target);
      if (old.revision === meta.revision) throw new Error(`asset set ${meta.id} already has revision ${meta.revision}; bump "revision" in set.json`);
    }
    fs.mkdirSync(assetsDir, { recursive: true });
    const staging = `${target}.importing-${process.pid}`;
    fs.cpSync(source, staging, { recursive: true });
    fs.rmSync(target, { recursive: true, force: true });
    fs.renameSync(staging, target); // the renderer never sees a half-copied set
    return { imported: meta.id, revision: meta.revision, views: Object.keys(meta.views), into: target };
  } finally {
    await cleanup?.();
  }
}
