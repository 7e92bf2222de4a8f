import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import sharp from 'sharp';
import type { Logger } from '../../shared/logger.ts';
import { ServiceError } from '../../shared/errors.ts';
import type { ShotId } from '../../shared/shot-id.ts';
import { layerPath } from '../../shared/asset-format/layer-files.ts';
import { readSetMeta, type AssetSetMeta, type ViewMeta } from '../../shared/asset-format/read-set.ts';
import { isSetId } from '../../shared/asset-format/set-id.ts';
import { AssetSetError } from '../../shared/asset-format/set-json.ts';
import { decodeLayerFiles, type LayerFiles } from './decode-layers.ts';
import type { Layers } from './layers.ts';
import type { LevelExtras } from './level-extras.ts';
import { halveLayers, twoThirdsLayers } from './reduce-layers.ts';
import { levelLadder, levelSize } from '../../shared/level-ladder.ts';
import type { LevelFileSpec, LevelFiles } from './level-files.ts';
import { runPaced } from './paced.ts';
import { ForcedGc } from '../cache/forced-gc.ts';

export interface AssetStoreOptions {
  dir: string;
  /** Budget for decoded layers (all levels and widths), in bytes. */
  cacheBytes: number;
  logger: Logger;
  /** How often a set's set.json is re-checked for a change, ms. */
  recheckMs?: number;
  /**
   * What the backend adds to the levels made from now on (level-extras.ts; `useLevelExtras` changes it):
   * the chosen backend's (Compositor.levelExtras: the cpu backend's arena, shadowed base and level tables).
   */
  levelExtras: LevelExtras;
  /** Built levels kept on disk (LEVEL_CACHE_DIR): read before a level is built, written after; null: none. */
  levelFiles?: LevelFiles | null;
}

/**
 * What the store makes levels of: an asset set (its nine views), or the frames of a spin at one bake
 * width (renderer/spin/frame-baker.ts FrameSet: the frame cache's folder, its shots keyed by frame id).
 */
export interface ShotSet {
  id: string;
  revision: string;
  dir: string;
  neutral: AssetSetMeta['neutral'];
  backdrop: AssetSetMeta['backdrop'];
  views: Partial<Record<ShotId, ViewMeta>>;
}

interface SetEntry {
  meta: AssetSetMeta | null;
  error: string | null;
  mtimeMs: number;
  checkedAt: number;
}

/** Output height for a requested width: the view's aspect ratio, rounded, at least 1. */
export function outputHeight(view: { width: number; height: number }, width: number): number {
  return Math.max(1, Math.round((width * view.height) / view.width));
}


/**
 * Reads asset sets from ASSETS_DIR, validates them (errors name the file), and keeps decoded layers in
 * an LRU bounded by bytes: each view's full-size layers and its pre-scaled levels (the full size's
 * halvings and the 2/3 size's, by exact area averaging, so a small render never samples a big image
 * sparsely). A render composites at the smallest level at least as wide as it asks and resizes the
 * finished picture once (not at all when the level is the output size), so edges gain no halos from
 * resizing layers one by one. Concurrent loads of the same layers happen once.
 */
export class AssetStore {
  private readonly sets = new Map<string, SetEntry>();
  private readonly layers: LRUCache<string, Layers>;
  private readonly inflight = new Map<string, Promise<Layers>>();
  private readonly recheckMs: number;
  private readonly forcedGc = new ForcedGc();
  /** What levels gain once cached, being built (afterLevel). */
  private readonly tables = new Set<Promise<void>>();
  /** Called when layers leave the cache (the gl backend drops its textures of them). */
  onEvict: ((key: string) => void) | null = null;

  private extras: LevelExtras;

  constructor(private readonly opts: AssetStoreOptions) {
    this.extras = opts.levelExtras;
    this.recheckMs = opts.recheckMs ?? 1000;
    // This store is the cache of decoded layers. libvips' operation cache would keep a second copy
    // of each decoded file (up to 50 MB by default) and the renderer's pictures are raw buffers it
    // never sees twice, so it only costs memory (docs/renderer.md, "Memory").
    sharp.cache(false);
    this.layers = new LRUCache<string, Layers>({
      maxSize: Math.max(1, opts.cacheBytes),
      sizeCalculation: (l) => Math.max(1, l.bytes),
      dispose: (v, key) => {
        this.forcedGc.note(v.bytes);
        this.onEvict?.(key);
      },
    });
  }

  /**
   * What levels made from now on get from the backend (Compositor.levelExtras), once the backend is
   * chosen: RENDER_BACKEND=auto measures the cpu backend on this store's levels before it chooses
   * (renderer/server.ts). Levels already made keep what they have; level files hold the planes only,
   * read back with these extras (levelFileSpec).
   */
  useLevelExtras(extras: LevelExtras): void {
    this.extras = extras;
  }

  get dir(): string {
    return this.opts.dir;
  }

  /** Scans ASSETS_DIR and validates every set; logs each set loaded and each set refused. */
  async init(): Promise<{ loaded: string[]; invalid: Record<string, string> }> {
    let names: string[] = [];
    try {
      const dirents = await fs.readdir(this.opts.dir, { withFileTypes: true });
      names = dirents.filter((d) => d.isDirectory() && isSetId(d.name)).map((d) => d.name);
    } catch (e) {
      // a renderer that says SERVING with no sets would fail every render: refuse to start instead
      throw new Error(`ASSETS_DIR ${this.opts.dir} cannot be read: ${(e as Error).message}`);
    }
    const loaded: string[] = [];
    const invalid: Record<string, string> = {};
    for (const name of names.sort()) {
      const hasSetJson = await fs.stat(path.join(this.opts.dir, name, 'set.json')).then(
        () => true,
        () => false,
      );
      if (!hasSetJson) continue; // not an asset set (e.g. a baker's working folder)
      const entry = await this.load(name);
      if (entry.meta) loaded.push(name);
      else invalid[name] = entry.error ?? 'invalid';
    }
    this.opts.logger.info({ dir: this.opts.dir, sets: loaded, invalid }, 'asset sets loaded');
    return { loaded, invalid };
  }

  private async load(id: string): Promise<SetEntry> {
    const dir = path.join(this.opts.dir, id);
    const setFile = path.join(dir, 'set.json');
    const st = await fs.stat(setFile).catch(() => null);
    const entry: SetEntry = { meta: null, error: null, mtimeMs: st?.mtimeMs ?? -1, checkedAt: Date.now() };
    if (!st) {
      entry.error = `${setFile}: missing`;
    } else {
      try {
        entry.meta = await readSetMeta(dir);
      } catch (e) {
        entry.error = e instanceof AssetSetError ? e.message : `${setFile}: ${(e as Error).message}`;
        this.opts.logger.error({ set: id, error: entry.error }, 'asset set invalid, not served');
      }
    }
    this.sets.set(id, entry);
    return entry;
  }

  /** The set's metadata; NOT_FOUND when it is unknown or invalid. Picks up a changed set.json. */
  async getSet(id: string): Promise<AssetSetMeta> {
    if (!isSetId(id)) throw new ServiceError('bad_request', 'Invalid asset set id');
    let entry = this.sets.get(id);
    const now = Date.now();
    if (!entry || now - entry.checkedAt > this.recheckMs) {
      const st = await fs.stat(path.join(this.opts.dir, id, 'set.json')).catch(() => null);
      if (!entry || (st?.mtimeMs ?? -1) !== entry.mtimeMs) {
        const before = entry?.meta?.revision;
        entry = await this.load(id);
        if (before !== undefined && entry.meta) {
          this.opts.logger.info({ set: id, from: before, to: entry.meta.revision }, 'asset set reloaded');
        }
      } else {
        entry.checkedAt = now;
      }
    }
    if (!entry.meta) throw new ServiceError('not_found', `Unknown asset set ${id}`, { detail: entry.error });
    return entry.meta;
  }

  view(set: ShotSet, view: ShotId): ViewMeta {
    const v = set.views[view];
    if (!v) throw new ServiceError('not_found', `Asset set ${set.id} has no view ${view}`);
    return v;
  }

  private cached(key: string, make: () => Promise<Layers>): Promise<Layers> {
    const hit = this.layers.get(key);
    if (hit) return Promise.resolve(hit);
    let p = this.inflight.get(key);
    if (!p) {
      p = make()
        .then((l) => {
          this.layers.set(key, l);
          return l;
        })
        .finally(() => this.inflight.delete(key));
      this.inflight.set(key, p);
    }
    return p;
  }

  /** Levels whose gains (afterLevel) were asked for: each once. */
  private readonly afterLevelAsked = new WeakSet<Layers>();

  /**
   * What a level gains once a render asks for it (LevelExtras.afterLevel: the cpu backend's level
   * tables), built paced on this thread, so a cold render never waits for it (renders meanwhile do
   * without, to the same bytes); then the cache counts what it grew by (the new Layers object
   * replaces the old without disposing it). Not for a level made only to reduce a smaller one from
   * (the 2400 px level of a cold 400 px render): its tables would cost a tenth of a second of CPU
   * and room in the cache for no render; it gets them when a render asks for it.
   */
  private afterLevel(l: Layers): void {
    if (this.afterLevelAsked.has(l)) return;
    this.afterLevelAsked.add(l);
    const key = l.key;
    // stopped between slices once the level left the cache
    const work = this.extras.afterLevel?.(l, () => this.layers.peek(key) === l) ?? null;
    if (!work) return;
    const built = runPaced(work)
      .then((withIt) => {
        if (withIt !== l && this.layers.peek(key) === l) {
          this.afterLevelAsked.add(withIt);
          this.layers.set(key, withIt, { noDisposeOnSet: true });
        }
      })
      .catch((e: unknown) => this.opts.logger.warn({ key, err: e }, 'level tables not built; renders compute those pixels from the planes'))
      .finally(() => this.tables.delete(built));
    this.tables.add(built);
  }

  /** Settles once what levels gain after caching (the level tables), being built now, is done (tests, benchmarks). */
  async tablesBuilt(): Promise<void> {
    while (this.tables.size > 0) await Promise.all([...this.tables]);
  }

  private level(set: ShotSet, viewId: ShotId, footprint: number): Promise<Layers> {
    const v = this.view(set, viewId);
    const key = `${set.id}@${set.revision}/${viewId}/F${footprint}`;
    // only where a level is not in memory: a render's lookup makes none of this
    const files = (): LayerFiles => ({
      base: layerPath(set.dir, viewId, 'base'),
      paint: layerPath(set.dir, viewId, 'paint'),
      diffuse: layerPath(set.dir, viewId, 'diffuse'),
      specular: layerPath(set.dir, viewId, 'specular'),
      shadow: v.shadow ? layerPath(set.dir, viewId, 'shadow') : null,
      coverage: v.coverage ? layerPath(set.dir, viewId, 'coverage') : null,
    });
    const levelFiles = this.opts.levelFiles ?? null;
    // 1.5 comes from the full size; every other level is the halving of the one at half its footprint
    const build = async (): Promise<Layers> => {
      const extras = this.extras;
      if (footprint === 1) {
        // the files as they were when their decode began: every level made from this one carries it
        const source = levelFiles ? await this.sourceDigest(v, files()) : null;
        const l = await decodeLayerFiles(key, files(), v.lightDepth, v.width, v.height, extras);
        return source ? { ...l, source } : l;
      }
      const parent = await this.level(set, viewId, footprint === 1.5 ? 1 : footprint / 2);
      const l = await (footprint === 1.5 ? twoThirdsLayers : halveLayers)(key, parent, extras);
      return parent.source ? { ...l, source: parent.source } : l;
    };
    // the full size is never a level file: read back it saves about half of its build (its decode,
    // about 110 ms at 2400 px) for 32 MB of disk a view, and its write holds 48 MB of memory a while;
    // the reduced levels save their whole chain (docs/renderer.md, "Level files")
    if (!levelFiles || footprint === 1) return this.cached(key, build);
    return this.cached(key, async () => {
      const now = await this.sourceDigest(v, files());
      const read = now ? await levelFiles.read(this.levelFileSpec(key, v, footprint, now)) : null;
      if (read) return { ...read, source: now! };
      const built = await build();
      // named by the files it was made from, not by what they are now: a level reduced from a parent
      // decoded before a file changed (same revision) is of the old files, and no later lookup finds it
      if (built.source) levelFiles.write(this.levelFileSpec(key, v, footprint, built.source), built);
      return built;
    });
  }

  /**
   * A digest of what a view's levels are made from: its layer files' paths, sizes, mtimes and inodes
   * (a file replaced without a new revision is noticed) and how they are decoded (light depths,
   * size); null where a layer file cannot be read (the build then fails and says which).
   */
  private async sourceDigest(v: ViewMeta, files: LayerFiles): Promise<string | null> {
    const paths = Object.values(files).filter((f): f is string => f !== null);
    const stats = await Promise.all(paths.map((p) => fs.stat(p).catch(() => null)));
    if (stats.some((s) => s === null)) return null;
    const what = JSON.stringify([v.lightDepth, v.width, v.height, paths.map((p, i) => [p, stats[i]!.size, stats[i]!.mtimeMs, stats[i]!.ino])]);
    return crypto.createHash('sha256').update(what).digest('base64url');
  }

  /** What a level file must be to stand for this level made from `source` (sourceDigest). */
  private levelFileSpec(key: string, v: ViewMeta, footprint: number, source: string): LevelFileSpec {
    return {
      key,
      id: `${key} ${source}`,
      ...levelSize(v.width, v.height, footprint),
      shadow: v.shadow,
      coverage: v.coverage,
      level: { footprint, fullWidth: v.width, fullHeight: v.height },
      extras: this.extras,
    };
  }

  /**
   * The view's layers at the smallest pre-scaled level at least `width` wide (the full size at most).
   * A width that is a level's (400, 600, 800, 1200, 1600, 2400 of a 2400 px view) gets a level of
   * exactly the output size, and the render needs no resize.
   */
  async levelFor(set: ShotSet, viewId: ShotId, width: number): Promise<Layers> {
    const v = this.view(set, viewId);
    const ladder = levelLadder(v.width, v.height);
    let k = 0;
    while (k + 1 < ladder.length && ladder[k + 1]!.width >= width) k++;
    const l = await this.level(set, viewId, ladder[k]!.footprint);
    this.afterLevel(l);
    return l;
  }

  stats(): { bytes: number; entries: number; max: number } {
    return { bytes: this.layers.calculatedSize ?? 0, entries: this.layers.size, max: this.layers.maxSize };
  }
}
