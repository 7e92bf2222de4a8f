import fs from 'node:fs/promises';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import sharp from 'sharp';
import type { Logger } from '../../shared/logger.ts';
import { ServiceError } from '../../shared/errors.ts';
import { WIDTH_MIN } from '../../shared/render-options.ts';
import type { ViewId } from '../../shared/views.ts';
import { AssetSetError, SET_ID_RE, layerPath, readSetMeta, type AssetSetMeta, type ViewMeta } from './set-format.ts';
import { decodeLayerFiles, halveLayers, type Layers } from './layers.ts';
import { SharedMemoryReclaimer } from '../cache/reclaim.ts';

export interface AssetStoreOptions {
  dir: string;
  /** Budget for decoded layers (all levels and widths), in bytes. */
  cacheBytes: number;
  logger: Logger;
  /** How often a set's set.json is re-checked for a change, ms. */
  recheckMs?: number;
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
 * an LRU bounded by bytes: each view's full-size layers and its pre-scaled levels (successive halvings
 * by exact area averaging, so a small render never samples a big image sparsely). A render composites
 * at the smallest level at least as wide as it asks and resizes the finished picture once, so edges
 * gain no halos from resizing layers one by one. Concurrent loads of the same layers happen once.
 */
export class AssetStore {
  private readonly sets = new Map<string, SetEntry>();
  private readonly layers: LRUCache<string, Layers>;
  private readonly inflight = new Map<string, Promise<Layers>>();
  private readonly recheckMs: number;
  private readonly reclaimer = new SharedMemoryReclaimer();
  /** Called when layers leave the cache (the gl backend drops its textures of them). */
  onEvict: ((key: string) => void) | null = null;

  constructor(private readonly opts: AssetStoreOptions) {
    this.recheckMs = opts.recheckMs ?? 1000;
    // This store is the cache of decoded layers. libvips' operation cache would keep a second copy
    // of each decoded file (up to 50 MB by default) and the renderer's pictures are raw buffers it
    // never sees twice, so it only costs memory (docs/renderer.md, "Memory").
    sharp.cache(false);
    this.layers = new LRUCache<string, Layers>({
      maxSize: Math.max(1, opts.cacheBytes),
      sizeCalculation: (l) => Math.max(1, l.bytes),
      dispose: (v, key) => {
        this.reclaimer.note(v.bytes);
        this.onEvict?.(key);
      },
    });
  }

  get dir(): string {
    return this.opts.dir;
  }

  /** Scans ASSETS_DIR and validates every set; logs each set loaded and each set refused. */
  async init(): Promise<{ loaded: string[]; invalid: Record<string, string> }> {
    let names: string[] = [];
    try {
      const dirents = await fs.readdir(this.opts.dir, { withFileTypes: true });
      names = dirents.filter((d) => d.isDirectory() && SET_ID_RE.test(d.name)).map((d) => d.name);
    } catch (e) {
      this.opts.logger.warn({ dir: this.opts.dir, err: (e as Error).message }, 'assets directory not readable');
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
    if (!SET_ID_RE.test(id)) throw new ServiceError('bad_request', 'Invalid asset set id');
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

  view(set: AssetSetMeta, view: ViewId): ViewMeta {
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

  /** Widths of the levels: the full size, then halvings while at least WIDTH_MIN wide. */
  private levelWidths(v: ViewMeta): number[] {
    const out = [v.width];
    for (let w = Math.floor(v.width / 2); w >= WIDTH_MIN; w = Math.floor(w / 2)) out.push(w);
    return out;
  }

  private level(set: AssetSetMeta, viewId: ViewId, k: number): Promise<Layers> {
    const v = this.view(set, viewId);
    const prefix = `${set.id}@${set.revision}/${viewId}`;
    if (k === 0) {
      return this.cached(`${prefix}/L0`, () =>
        decodeLayerFiles(
          `${prefix}/L0`,
          {
            base: layerPath(set.dir, viewId, 'base'),
            paint: layerPath(set.dir, viewId, 'paint'),
            diffuse: layerPath(set.dir, viewId, 'diffuse'),
            specular: layerPath(set.dir, viewId, 'specular'),
            shadow: v.shadow ? layerPath(set.dir, viewId, 'shadow') : null,
            coverage: v.coverage ? layerPath(set.dir, viewId, 'coverage') : null,
          },
          v.lightDepth,
          v.width,
          v.height,
        ),
      );
    }
    return this.cached(`${prefix}/L${k}`, async () => halveLayers(`${prefix}/L${k}`, await this.level(set, viewId, k - 1)));
  }

  /** The view's layers at the smallest pre-scaled level at least `width` wide (the full size at most). */
  levelFor(set: AssetSetMeta, viewId: ViewId, width: number): Promise<Layers> {
    const v = this.view(set, viewId);
    const widths = this.levelWidths(v);
    let k = 0;
    while (k + 1 < widths.length && widths[k + 1]! >= width) k++;
    return this.level(set, viewId, k);
  }

  stats(): { bytes: number; entries: number; max: number } {
    return { bytes: this.layers.calculatedSize ?? 0, entries: this.layers.size, max: this.layers.maxSize };
  }
}
