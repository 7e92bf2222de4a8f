/**
 * `npm run studio -- levels [set-id...] [--views v1,v2] [--dir <LEVEL_CACHE_DIR>] [--budget-mb 4096]`:
 * the level files a renderer keeps in LEVEL_CACHE_DIR (docs/renderer.md, "Level files"), made ahead, so
 * that the first calls after a deploy or a new set are served from disk instead of decoding and
 * reducing the full-size layers. The real renderer does it, as a child over gRPC: it is asked for one
 * render at each level's width of every view (shared/level-ladder.ts), widest first, and after each
 * view waits until the renderer has nothing left to write (renderer_level_files_pending), so that the
 * layer cache does not drop a view's levels before they are on disk. Levels already on disk are read,
 * not built again.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { Command } from 'commander';
import { isSetId } from '../shared/asset-format/set-id.ts';
import { levelLadder } from '../shared/level-ladder.ts';
import { connectRenderer, type RendererConnection } from '../shared/render-contract.ts';
import { VIEW_IDS, isViewId, type ViewId } from '../shared/views.ts';
import { loadStudioConfig } from './config.ts';
import { startRendererChild } from './renderer-child.ts';

export interface LevelPreBakeResult {
  sets: number;
  /** Sets the renderer refused (every set asked for: named in the log and skipped). */
  refused: string[];
  views: number;
  /** Levels asked for (footprint above 1: the full size is never a level file). */
  levels: number;
  /** Levels found on disk and read (a parent read back to reduce a missing child from included). */
  read: number;
  /** Levels built, and of those written; skipped and failed as the renderer counts them. */
  built: number;
  written: number;
  skipped: number;
  failed: number;
  /** Bytes of level files in the directory afterwards, as the renderer counts them. */
  bytes: number;
}

const WRITE_WAIT_MS = 120_000;

interface LevelCounters {
  hit: number;
  miss: number;
  written: number;
  skipped: number;
  failed: number;
  pending: number;
  bytes: number;
}

/** The renderer's level file metrics (renderer_level_files_total, renderer_level_files_pending), from its metrics port. */
async function levelCounters(metricsPort: number): Promise<LevelCounters> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const pending = /^renderer_level_files_pending (\d+)$/m.exec(text);
  // absent when the renderer could not use the directory (it said why in its log: "level files off")
  if (!pending) throw new Error('the renderer keeps no level files: it could not use the directory (see its warning above)');
  const used = /^renderer_level_files_bytes\{kind="used"\} (\d+)$/m.exec(text);
  const out: LevelCounters = { hit: 0, miss: 0, written: 0, skipped: 0, failed: 0, pending: Number(pending[1]), bytes: used ? Number(used[1]) : 0 };
  for (const m of text.matchAll(/^renderer_level_files_total\{result="(\w+)"\} (\d+)$/gm)) {
    if (['hit', 'miss', 'written', 'skipped', 'failed'].includes(m[1]!)) out[m[1] as keyof LevelCounters] = Number(m[2]);
  }
  return out;
}

/** Waits until the renderer has no level left to write. */
async function writesSettled(metricsPort: number): Promise<void> {
  const until = Date.now() + WRITE_WAIT_MS;
  for (;;) {
    const c = await levelCounters(metricsPort);
    if (c.pending === 0) return;
    if (Date.now() > until) throw new Error(`the renderer did not write its level files within ${WRITE_WAIT_MS / 1000} s (${c.pending} waiting)`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function renderOnce(client: RendererConnection, set: string, view: ViewId, width: number): Promise<void> {
  const res = await client.render(
    { assetSet: set, view, color: '#808080', shadow: false, plate: null, format: 'jpeg', width },
    new Date(Date.now() + 300_000),
    { deadlineMs: 300_000 },
  );
  for await (const chunk of res.body) void chunk;
}

/** Every asset set in `assetsDir` (a folder with a set.json whose name is a set id), sorted. */
export async function setsIn(assetsDir: string): Promise<string[]> {
  const names = await fs.readdir(assetsDir);
  const found: string[] = [];
  for (const name of names.sort()) {
    if (isSetId(name) && (await fs.stat(path.join(assetsDir, name, 'set.json')).then(() => true, () => false))) found.push(name);
  }
  return found;
}

export async function preBakeLevels(o: {
  assetsDir: string;
  levelsDir: string;
  /** Set ids; empty: every set in assetsDir. */
  sets: string[];
  views: ViewId[];
  budgetMb: number;
  log: (line: string) => void;
  /** The renderer child's environment (the backend and its settings); ASSETS_DIR and LEVEL_CACHE_* are set here. */
  env?: NodeJS.ProcessEnv;
}): Promise<LevelPreBakeResult> {
  const sets = o.sets.length > 0 ? o.sets : await setsIn(o.assetsDir);
  if (sets.length === 0) throw new Error(`no asset set in ${o.assetsDir}`);
  for (const s of sets) if (!isSetId(s)) throw new Error(`"${s}" is not a set id`);
  await fs.mkdir(o.levelsDir, { recursive: true });
  const renderer = await startRendererChild(
    { ...(o.env ?? process.env), ASSETS_DIR: o.assetsDir, LEVEL_CACHE_DIR: o.levelsDir, LEVEL_CACHE_MB: String(o.budgetMb), RENDER_WARMUP: 'false' },
    { metrics: true },
  );
  const result: LevelPreBakeResult = { sets: 0, refused: [], views: 0, levels: 0, read: 0, built: 0, written: 0, skipped: 0, failed: 0, bytes: 0 };
  let client: RendererConnection | null = null;
  try {
    client = connectRenderer(renderer.address);
    await levelCounters(renderer.metricsPort!);
    for (const set of sets) {
      let described;
      try {
        described = await client.describeSet(set, new Date(Date.now() + 60_000));
      } catch (e) {
        if (o.sets.length > 0) throw e;
        result.refused.push(set);
        o.log(`${set}: refused by the renderer, skipped: ${(e as Error).message}`);
        continue;
      }
      result.sets++;
      for (const view of o.views) {
        const v = described.views[view];
        if (!v) {
          o.log(`${set} ${view}: not in the set`);
          continue;
        }
        const widths = levelLadder(v.width, v.height).filter((l) => l.footprint > 1).map((l) => l.width);
        const t0 = performance.now();
        for (const width of widths) await renderOnce(client, set, view, width);
        await writesSettled(renderer.metricsPort!);
        result.views++;
        result.levels += widths.length;
        o.log(`${set} ${view}: ${widths.length} levels (${widths.join(', ')} px) in ${Math.round(performance.now() - t0)} ms`);
      }
    }
    const c = await levelCounters(renderer.metricsPort!);
    Object.assign(result, { read: c.hit, built: c.miss, written: c.written, skipped: c.skipped, failed: c.failed, bytes: c.bytes });
  } finally {
    client?.close();
    await renderer.stop();
  }
  return result;
}

export function levelsCommand(): Command {
  return new Command('levels')
    .description("make the renderer's level files (LEVEL_CACHE_DIR) of asset sets ahead of their first calls")
    .argument('[set-ids...]', 'sets in ASSETS_DIR (default: all of them)')
    .option('--views <ids>', 'comma-separated view ids', VIEW_IDS.join(','))
    .option('--dir <dir>', 'the level file directory (default: LEVEL_CACHE_DIR)')
    .option('--budget-mb <mb>', "the directory's budget (default: LEVEL_CACHE_MB, else 4096), as the renderer's: least recently used files go beyond it")
    .action(async (setIds: string[], opts: { views: string; dir?: string; budgetMb?: string }) => {
      const config = loadStudioConfig();
      const levelsDir = opts.dir ? path.resolve(opts.dir) : config.levelCacheDir;
      if (!levelsDir) throw new Error('say where the level files go: --dir <dir> or LEVEL_CACHE_DIR');
      const views = opts.views.split(',').map((s) => s.trim()).filter(Boolean);
      for (const v of views) if (!isViewId(v)) throw new Error(`unknown view "${v}" (views: ${VIEW_IDS.join(', ')})`);
      const budgetMb = opts.budgetMb === undefined ? config.levelCacheMb : Number(opts.budgetMb);
      if (!Number.isInteger(budgetMb) || budgetMb < 1) throw new Error('--budget-mb: a whole number of megabytes, at least 1');
      const r = await preBakeLevels({ assetsDir: config.assetsDir, levelsDir, sets: setIds, views: views as ViewId[], budgetMb, log: (l) => console.log(l) });
      console.log(
        `levels: ${r.sets} sets, ${r.views} views, ${r.levels} levels: ${r.built} built, ${r.written} written, ${r.read} read from disk` +
          (r.skipped + r.failed > 0 ? `, ${r.skipped} skipped and ${r.failed} failed (over the budget, a file refused or a failed write: see the renderer's warnings)` : '') +
          (r.refused.length > 0 ? `; sets refused: ${r.refused.join(', ')}` : '') +
          `; ${levelsDir} holds ${Math.round(r.bytes / 1048576)} MB of level files`,
      );
      if (r.refused.length > 0) process.exitCode = 1;
    });
}
