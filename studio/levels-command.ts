/**
 * `npm run studio -- levels [set-id...] [--views v1,v2] [--dir <LEVEL_CACHE_DIR>] [--budget-mb 4096]`:
 * the level files a renderer keeps in LEVEL_CACHE_DIR (docs/renderer.md, "Level files"), made ahead, so
 * that the first calls after a deploy or a new set are served from disk instead of decoding and
 * reducing the full-size layers. The real renderer does it, as a child over gRPC: it is asked for one
 * render at each level's width of every view (shared/level-ladder.ts), widest first, and each view's
 * files are waited for (the renderer's level file counters) before the next, so that none is skipped
 * for having left the renderer's memory first. Levels already on disk are read, not built again.
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
  views: number;
  /** Levels asked for (footprint above 1: the full size is never a level file). */
  levels: number;
  /** Found on disk and read. */
  read: number;
  /** Built and written. */
  written: number;
  /** Built but not written (the budget, a failed write): the renderer builds them when asked. */
  notWritten: number;
  /** Level files in the directory afterwards, and their bytes. */
  files: number;
  bytes: number;
}

/** The renderer's level file names (renderer/assets/level-files.ts). */
const LEVEL_FILE = /^[A-Za-z0-9_-]{40}\.level$/;
const WRITE_WAIT_MS = 120_000;

/** The renderer's level file counters (renderer_level_files_total), from its metrics port. */
async function levelCounters(metricsPort: number): Promise<Record<string, number>> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const out: Record<string, number> = {};
  for (const m of text.matchAll(/^renderer_level_files_total\{result="(\w+)"\} (\d+)$/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

/** Waits until every level the renderer built has been written or given up (counted skipped or failed). */
async function writesSettled(metricsPort: number): Promise<Record<string, number>> {
  const until = Date.now() + WRITE_WAIT_MS;
  for (;;) {
    const c = await levelCounters(metricsPort);
    if ((c.written ?? 0) + (c.skipped ?? 0) + (c.failed ?? 0) >= (c.miss ?? 0)) return c;
    if (Date.now() > until) throw new Error(`the renderer did not write its level files within ${WRITE_WAIT_MS / 1000} s (${JSON.stringify(c)})`);
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

async function levelFilesIn(dir: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const name of await fs.readdir(dir)) {
    if (!LEVEL_FILE.test(name)) continue;
    files++;
    bytes += (await fs.stat(path.join(dir, name))).size;
  }
  return { files, bytes };
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
  const client = connectRenderer(renderer.address);
  const result: LevelPreBakeResult = { sets: sets.length, views: 0, levels: 0, read: 0, written: 0, notWritten: 0, files: 0, bytes: 0 };
  try {
    for (const set of sets) {
      const described = await client.describeSet(set, new Date(Date.now() + 60_000));
      for (const view of o.views) {
        const v = described.views[view];
        if (!v) continue;
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
    result.read = c.hit ?? 0;
    result.written = c.written ?? 0;
    result.notWritten = (c.miss ?? 0) - result.written;
  } finally {
    client.close();
    await renderer.stop();
  }
  Object.assign(result, await levelFilesIn(o.levelsDir));
  return result;
}

export function levelsCommand(): Command {
  return new Command('levels')
    .description("make the renderer's level files (LEVEL_CACHE_DIR) of asset sets ahead of their first calls")
    .argument('[set-ids...]', 'sets in ASSETS_DIR (default: all of them)')
    .option('--views <ids>', 'comma-separated view ids', VIEW_IDS.join(','))
    .option('--dir <dir>', 'the level file directory (default: LEVEL_CACHE_DIR)')
    .option('--budget-mb <mb>', "the directory's budget, as the renderer's LEVEL_CACHE_MB (least recently used files go beyond it)", process.env.LEVEL_CACHE_MB ?? '4096')
    .action(async (setIds: string[], opts: { views: string; dir?: string; budgetMb: string }) => {
      const config = loadStudioConfig();
      const levelsDir = opts.dir ? path.resolve(opts.dir) : config.levelCacheDir;
      if (!levelsDir) throw new Error('say where the level files go: --dir <dir> or LEVEL_CACHE_DIR');
      const views = opts.views.split(',').map((s) => s.trim()).filter(Boolean);
      for (const v of views) if (!isViewId(v)) throw new Error(`unknown view "${v}" (views: ${VIEW_IDS.join(', ')})`);
      const budgetMb = Number(opts.budgetMb);
      if (!Number.isInteger(budgetMb) || budgetMb < 1) throw new Error('--budget-mb: a whole number of megabytes, at least 1');
      const r = await preBakeLevels({ assetsDir: config.assetsDir, levelsDir, sets: setIds, views: views as ViewId[], budgetMb, log: (l) => console.log(l) });
      console.log(
        `levels: ${r.sets} sets, ${r.views} views, ${r.levels} levels: ${r.written} built and written, ${r.read} already on disk` +
          (r.notWritten > 0 ? `, ${r.notWritten} not written (over the budget, or a failed write: see the renderer's warnings)` : '') +
          `; ${levelsDir} holds ${r.files} level files, ${Math.round(r.bytes / 1048576)} MB`,
      );
    });
}
