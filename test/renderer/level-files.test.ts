/**
 * Level files (renderer/assets/level-files.ts, LEVEL_CACHE_DIR): built levels written to disk and read
 * back by a renderer that never built them — the same pictures, byte for byte, without decoding the
 * set's files or building the levels above; damaged, foreign, stale and planted files refused; the
 * byte budget kept; a disk that fails never failing a render.
 */
import { expect } from 'chai';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AssetStore } from '../../renderer/assets/asset-store.ts';
import { spawnSync } from 'node:child_process';
import v8 from 'node:v8';
import vm from 'node:vm';
import { LEVEL_FILE_VERSION, LevelFiles, WRITE_QUEUE_MAX } from '../../renderer/assets/level-files.ts';
import { levelCode } from '../../renderer/assets/level-code.ts';
import { sharedU16, sharedU8 } from '../../renderer/backends/cpu/arena.ts';
import { makeLayers, type Layers } from '../../renderer/assets/layers.ts';
import { makeSyntheticSet } from '../support/make-synthetic-set.ts';
import { layerPath } from '../../shared/asset-format/layer-files.ts';
import sharp from 'sharp';
import type { RenderRequest } from '../../shared/render-request.ts';
import { TEST_SET, TEST_WIDTH, quietLogger, renderBytes, req, startTestServer, testAssets } from './helpers.ts';
import { ARENA_ONLY_LEVEL_EXTRAS, CPU_LEVEL_EXTRAS } from '../../renderer/backends/cpu/level-extras.ts';

const tmp = (prefix: string) => fs.mkdtemp(path.join(os.tmpdir(), prefix));

/** Every plane of a level, its size, place and runs, as one digest. */
function digest(l: Layers): string {
  const h = crypto.createHash('sha256');
  for (const p of [l.base, l.paint, l.diffuse, l.specular, l.shadow, l.coverage, l.shadowedBase ?? null]) {
    h.update(p ? new Uint8Array(p.buffer, p.byteOffset, p.byteLength) : new Uint8Array(1));
  }
  h.update(JSON.stringify([l.width, l.height, l.level ?? null]));
  if (l.runs) {
    h.update(new Uint8Array(l.runs.rowStart.buffer, l.runs.rowStart.byteOffset, l.runs.rowStart.byteLength));
    h.update(new Uint8Array(l.runs.xs.buffer, l.runs.xs.byteOffset, l.runs.xs.byteLength));
  }
  return h.digest('hex');
}

/** A 64 × 36 level of its own planes, filled from `seed`. */
function tiny(seed: number): Layers {
  const n = 64 * 36;
  const u8 = (k: number) => sharedU8(n * k).fill((seed * 37) & 255);
  const u16 = () => sharedU16(n).fill(seed * 977);
  return makeLayers(`tiny/${seed}`, { width: 64, height: 36, base: u8(3), paint: u8(1), diffuse: u16(), specular: u16(), shadow: u8(1), coverage: u8(1) }, CPU_LEVEL_EXTRAS);
}

function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc');
  (vm.runInNewContext('gc') as () => void)();
}

async function levelFilesIn(dir: string): Promise<string[]> {
  return (await fs.readdir(dir)).filter((f) => f.endsWith('.level')).sort();
}

/** An asset store over `assets` with level files in `dir`. */
async function storeWith(assets: string, dir: string, opts: { budgetBytes?: number; shadowedBase?: boolean; rescanMs?: number } = {}) {
  const files = await LevelFiles.open({ dir, budgetBytes: opts.budgetBytes ?? 1 << 30, logger: quietLogger, rescanMs: opts.rescanMs });
  const store = new AssetStore({ dir: assets, cacheBytes: 1 << 30, logger: quietLogger, levelFiles: files, levelExtras: opts.shadowedBase === false ? ARENA_ONLY_LEVEL_EXTRAS : CPU_LEVEL_EXTRAS });
  await store.init();
  return { store, files: files! };
}

/** A directory holding one file: the test set's side_left 320 px level; its path and the level's digest as built. */
async function oneLevelFile(): Promise<{ dir: string; file: string; built: string }> {
  const assets = await testAssets();
  const dir = await tmp('level-files-');
  const a = await storeWith(assets, dir);
  const built = digest(await level(a.store, 320));
  await a.files.idle();
  const [name] = await levelFilesIn(dir);
  return { dir, file: path.join(dir, name!), built };
}

/** A directory holding the test set's 320 px levels of side_left, then front_left (written in that order), by file name; the store that wrote them. */
async function twoLevelFiles(): Promise<{ dir: string; side: string; front: string; store: AssetStore }> {
  const dir = await tmp('level-files-');
  const a = await storeWith(await testAssets(), dir);
  await level(a.store, 320, 'side_left');
  await a.files.idle();
  const [side] = await levelFilesIn(dir);
  await level(a.store, 320, 'front_left');
  await a.files.idle();
  const front = (await levelFilesIn(dir)).find((f) => f !== side)!;
  return { dir, side: side!, front, store: a.store };
}

async function level(store: AssetStore, width: number, view: 'front_left' | 'side_left' = 'side_left', set = TEST_SET): Promise<Layers> {
  return store.levelFor(await store.getSet(set), view, width);
}

describe('level files (LEVEL_CACHE_DIR)', function () {
  this.timeout(60_000);

  describe('happy', () => {
    it('a renderer started again on the same directory renders the same bytes from level files, building no level above them (the full size is not a level file)', async () => {
      const dir = await tmp('level-files-');
      const asks: RenderRequest[] = [
        req({ width: TEST_WIDTH, shadow: true, plate: 'AB 123' }),
        req({ width: 240, color: '#204080', format: 'webp' }),
        req({ width: 320, view: 'front_left', shadow: true, background: 'transparent' }),
        req({ width: 300, color: '#F4F4F0', format: 'jpeg', shadow: true }),
      ];
      const first = await startTestServer({ levelFiles: { dir, bytes: 1 << 30 } });
      const before: Buffer[] = [];
      try {
        for (const r of asks) before.push((await renderBytes(first.client, r)).bytes);
        await first.internals.levelFiles!.idle();
        const s = first.internals.levelFiles!.stats();
        // every reduced level the renders built, the chains' upper levels included, was written; the full sizes are not
        expect(s.written).to.equal(first.internals.store.stats().entries - 2);
        expect(s.hits).to.equal(0);
      } finally {
        await first.close();
      }
      expect(await levelFilesIn(dir)).to.have.length(3); // side_left 240 and 320 px, front_left 320 px

      const second = await startTestServer({ levelFiles: { dir, bytes: 1 << 30 } });
      try {
        for (let i = 0; i < asks.length; i++) {
          const { bytes } = await renderBytes(second.client, asks[i]!);
          expect(bytes.equals(before[i]!), `render ${i} is the same bytes`).to.equal(true);
        }
        const s = second.internals.levelFiles!.stats();
        // one level read per distinct reduced level asked, and none built above them: the full size decoded only for the full-size render
        expect(s.misses).to.equal(0);
        expect(s.written).to.equal(0);
        expect(s.hits).to.equal(3);
        expect(second.internals.store.stats().entries).to.equal(4);
        const metrics = await second.metrics.getSingleMetricAsString('renderer_level_files_total');
        expect(metrics).to.match(/renderer_level_files_total\{result="hit"\} 3/);
      } finally {
        await second.close();
      }
    });

    it('a level read back has the planes, runs and shadowed base of the level built, for both backends\' stores', async () => {
      const assets = await testAssets();
      for (const shadowedBase of [true, false]) {
        const dir = await tmp('level-files-');
        const a = await storeWith(assets, dir, { shadowedBase });
        const built = await Promise.all([level(a.store, 240), level(a.store, 240, 'front_left'), level(a.store, 320)]);
        await a.files.idle();
        const b = await storeWith(assets, dir, { shadowedBase });
        const read = await Promise.all([level(b.store, 240), level(b.store, 240, 'front_left'), level(b.store, 320)]);
        expect(b.files.stats().hits).to.equal(3);
        for (let i = 0; i < built.length; i++) {
          expect(digest(read[i]!), `level ${i}, shadowedBase ${shadowedBase}`).to.equal(digest(built[i]!));
          // the key eviction names to the backends (their kernel instances and textures of the level)
          expect(read[i]!.key).to.equal(built[i]!.key);
          expect(read[i]!.arena!.key).to.equal(built[i]!.arena!.key);
        }
        expect(read[0]!.shadowedBase !== undefined).to.equal(shadowedBase);
        expect(read[1]!.level).to.deep.equal(built[1]!.level);
        expect(read[1]!.level!.footprint).to.equal(2);
      }
    });

    it('keeps its files within the byte budget, the least recently used deleted first, across a restart', async () => {
      const assets = await testAssets();
      const probe = await tmp('level-files-');
      const p = await storeWith(assets, probe);
      await level(p.store, 320);
      await p.files.idle();
      const one = p.files.stats().bytes; // one 320 px level's file
      const dir = await tmp('level-files-');
      const budget = Math.floor(one * 2.5);
      const a = await storeWith(assets, dir, { budgetBytes: budget });
      await level(a.store, 320, 'side_left');
      await a.files.idle();
      await level(a.store, 320, 'front_left');
      await a.files.idle();
      // read back: side_left is now the most recently used, so front_left goes when a third comes
      const b = await storeWith(assets, dir, { budgetBytes: budget });
      await level(b.store, 320, 'side_left');
      await level(b.store, 320, 'front_left', 'testset8'); // another set: built and written
      await b.files.idle();
      const s = b.files.stats();
      expect(s.bytes).to.be.at.most(budget);
      expect(s.evicted).to.equal(1);
      expect(s.files).to.equal(2);
      let onDisk = 0;
      for (const f of await levelFilesIn(dir)) onDisk += (await fs.stat(path.join(dir, f))).size;
      expect(onDisk).to.equal(s.bytes);
      const c = await storeWith(assets, dir, { budgetBytes: budget });
      await level(c.store, 320, 'side_left');
      await level(c.store, 320, 'front_left');
      expect(c.files.stats()).to.include({ hits: 1, misses: 1 });
    });

    it('renderers sharing one directory keep it, not each their share, within the budget: each counts the others\' files again before writing', async () => {
      const assets = await testAssets();
      const onDisk = async (dir: string) => {
        let n = 0;
        for (const f of await levelFilesIn(dir)) n += (await fs.stat(path.join(dir, f))).size;
        return n;
      };
      const probe = await tmp('level-files-');
      const p = await storeWith(assets, probe);
      await level(p.store, 320);
      await p.files.idle();
      const budget = Math.floor(p.files.stats().bytes * 2.5);
      // two renderers opened on one empty directory, then each writes two levels: A first, then B
      const run = async (rescanMs: number) => {
        const dir = await tmp('level-files-');
        const a = await storeWith(assets, dir, { budgetBytes: budget, rescanMs });
        const b = await storeWith(assets, dir, { budgetBytes: budget, rescanMs });
        for (const view of ['side_left', 'front_left'] as const) {
          await level(a.store, 320, view);
          await a.files.idle();
        }
        for (const view of ['side_left', 'front_left'] as const) {
          await level(b.store, 320, view, 'testset8');
          await b.files.idle();
        }
        return { dir, a, b };
      };
      // the scenario without counting again: each keeps its own two files, the directory twice what one may hold
      const apart = await run(1e9);
      expect(await onDisk(apart.dir)).to.be.greaterThan(budget);
      const shared = await run(0);
      const total = await onDisk(shared.dir);
      expect(total).to.be.at.most(budget);
      expect(shared.b.files.stats().evicted).to.equal(2);
      expect(shared.b.files.stats().bytes).to.equal(total);
      // the files left are B's two, the most recently written; A's first read of one is a miss, not an error
      expect((await levelFilesIn(shared.dir)).length).to.equal(2);
    });

    it('a file another renderer on the directory wrote is counted by the one that reads it', async () => {
      const assets = await testAssets();
      const dir = await tmp('level-files-');
      const reader = await storeWith(assets, dir);
      const writer = await storeWith(assets, dir);
      await level(writer.store, 320);
      await writer.files.idle();
      const [name] = await levelFilesIn(dir);
      expect(reader.files.stats().files).to.equal(0);
      await level(reader.store, 320);
      expect(reader.files.stats()).to.include({ hits: 1, files: 1, bytes: (await fs.stat(path.join(dir, name!))).size });
    });

    it('a new start keeps the most recently used files when the budget shrinks (a read counts as a use, by the file\'s mtime)', async () => {
      const assets = await testAssets();
      const { dir, side, front } = await twoLevelFiles();
      const frontMtime = (await fs.stat(path.join(dir, front))).mtimeMs;
      // side_left, the older file, read: now the more recently used
      const b = await storeWith(assets, dir);
      await level(b.store, 320, 'side_left');
      expect(b.files.stats().hits).to.equal(1);
      for (let i = 0; i < 100 && (await fs.stat(path.join(dir, side))).mtimeMs <= frontMtime; i++) await new Promise((r) => setTimeout(r, 10));
      const size = (await fs.stat(path.join(dir, side))).size;
      const c = await LevelFiles.open({ dir, budgetBytes: Math.floor(size * 1.5), logger: quietLogger });
      expect(c!.stats()).to.include({ files: 1, evicted: 1 });
      expect(await levelFilesIn(dir)).to.deep.equal([side]);
    });
  });

  describe('error', () => {
    it('a damaged file (one flipped byte in its planes) is refused, deleted and the level built again to the same planes', async () => {
      const assets = await testAssets();
      const { dir, file, built } = await oneLevelFile();
      const bytes = await fs.readFile(file);
      bytes[Math.floor(bytes.length * 0.6)]! ^= 0x10;
      await fs.writeFile(file, bytes);
      const b = await storeWith(assets, dir);
      expect(digest(await level(b.store, 320))).to.equal(built);
      await b.files.idle();
      expect(b.files.stats()).to.include({ hits: 0, failed: 1, misses: 1, written: 1 });
      // written again, whole: a third store reads it
      const c = await storeWith(assets, dir);
      expect(digest(await level(c.store, 320))).to.equal(built);
      expect(c.files.stats()).to.include({ hits: 1, failed: 0 });
    });

    it('a truncated file, one of another version and one with a damaged header are refused', async () => {
      const assets = await testAssets();
      const damage: [string, (b: Buffer) => Buffer][] = [
        ['truncated', (b) => b.subarray(0, b.length - 1000)],
        ['cut inside its header', (b) => b.subarray(0, 20)],
        ['another version', (b) => (b.writeUInt32LE(LEVEL_FILE_VERSION + 1, 4), b)],
        ['a damaged header', (b) => ((b[40]! ^= 1), b)],
        ['empty', () => Buffer.alloc(0)],
      ];
      for (const [what, f] of damage) {
        const { dir, file, built } = await oneLevelFile();
        await fs.writeFile(file, f(await fs.readFile(file)));
        const b = await storeWith(assets, dir);
        expect(digest(await level(b.store, 320)), what).to.equal(built);
        expect(b.files.stats(), what).to.include({ hits: 0, failed: 1 });
      }
    });

    it('files written by other level code (another reduction, decoder or light table) are not read; the level is built and written anew', async () => {
      const assets = await testAssets();
      const dir = await tmp('level-files-');
      const a = await storeWith(assets, dir);
      expect(a.files.code).to.equal(levelCode());
      const built = digest(await level(a.store, 320));
      await a.files.idle();
      const other = await LevelFiles.open({ dir, budgetBytes: 1 << 30, logger: quietLogger, code: 'other-code' });
      const store = new AssetStore({ dir: assets, cacheBytes: 1 << 30, logger: quietLogger, levelFiles: other, levelExtras: CPU_LEVEL_EXTRAS });
      await store.init();
      expect(digest(await level(store, 320))).to.equal(built);
      await other!.idle();
      expect(other!.stats()).to.include({ hits: 0, misses: 1, written: 1 });
      const names = await levelFilesIn(dir);
      expect(names).to.have.length(2);
      // the other code's file under this code's name: its header says which code made it
      const codeOf = async (n: string) => {
        const b = await fs.readFile(path.join(dir, n));
        return (JSON.parse(b.subarray(28, 28 + b.readUInt32LE(20)).toString('utf8')) as { code: string }).code;
      };
      const theirs = (await codeOf(names[0]!)) === 'other-code' ? names[0]! : names[1]!;
      const ours = names.find((n) => n !== theirs)!;
      expect(await codeOf(ours)).to.equal(levelCode());
      await fs.copyFile(path.join(dir, theirs), path.join(dir, ours));
      const c = await storeWith(assets, dir);
      expect(digest(await level(c.store, 320))).to.equal(built);
      expect(c.files.stats()).to.include({ hits: 0, failed: 1 });
    });

    it('a layer file replaced without a new set revision is noticed: its levels are built from the new file', async () => {
      const assets = await tmp('level-assets-');
      await makeSyntheticSet(path.join(assets, 'swap'), { width: 480, revision: 'same', views: ['side_left'] });
      const dir = await tmp('level-files-');
      const a = await storeWith(assets, dir);
      const set = await a.store.getSet('swap');
      const old = digest(await level(a.store, 240, 'side_left', 'swap'));
      await a.files.idle();
      // the base replaced in place (same revision, same path and inode): another picture
      const base = layerPath(set.dir, 'side_left', 'base');
      await fs.writeFile(base, await sharp(base).negate({ alpha: false }).png().toBuffer());
      const b = await storeWith(assets, dir);
      const fresh = digest(await level(b.store, 240, 'side_left', 'swap'));
      expect(b.files.stats()).to.include({ hits: 0, misses: 1 });
      expect(fresh).to.not.equal(old);
      const direct = await storeWith(assets, await tmp('level-files-'));
      expect(fresh).to.equal(digest(await level(direct.store, 240, 'side_left', 'swap')));
    });

    it('a temporary file left by a writer that died is deleted at the next start; a recent one (a writer at work) and files not its own are left alone', async () => {
      const dir = await tmp('level-files-');
      const name = 'A'.repeat(40) + '.level';
      const old = `${name}.123.abcdef01.tmp`;
      const recent = `${name}.456.0123abcd.tmp`;
      const foreign = ['someone-elses-upload.tmp', 'notes.level'];
      for (const f of [old, recent, ...foreign]) await fs.writeFile(path.join(dir, f), 'partial');
      const hourAgo = new Date(Date.now() - 3_600_000);
      for (const f of [old, ...foreign]) await fs.utimes(path.join(dir, f), hourAgo, hourAgo);
      const files = await LevelFiles.open({ dir, budgetBytes: 1, logger: quietLogger });
      expect(files!.stats()).to.include({ files: 0, bytes: 0 });
      expect((await fs.readdir(dir)).sort()).to.deep.equal([recent, ...foreign].sort());
    });

    it('a level reduced from a parent decoded before its file was replaced (same revision) is not written as the new files\' level', async () => {
      const assets = await tmp('level-assets-');
      await makeSyntheticSet(path.join(assets, 'swap'), { width: 480, revision: 'same', views: ['side_left'] });
      const dir = await tmp('level-files-');
      const a = await storeWith(assets, dir);
      const set = await a.store.getSet('swap');
      await level(a.store, 480, 'side_left', 'swap'); // the full size, decoded from the old file
      const base = layerPath(set.dir, 'side_left', 'base');
      await fs.writeFile(base, await sharp(base).negate({ alpha: false }).png().toBuffer());
      await level(a.store, 240, 'side_left', 'swap'); // reduced from the old full size still in memory
      await a.files.idle();
      expect(a.files.stats().written).to.equal(1);
      const b = await storeWith(assets, dir);
      const fresh = digest(await level(b.store, 240, 'side_left', 'swap'));
      expect(b.files.stats()).to.include({ hits: 0, misses: 1 });
      expect(fresh).to.equal(digest(await level((await storeWith(assets, await tmp('level-files-'))).store, 240, 'side_left', 'swap')));
    });

    it('a directory that cannot be used leaves the renderer rendering without level files', async () => {
      const parent = await tmp('level-files-');
      const notADir = path.join(parent, 'file');
      await fs.writeFile(notADir, 'x');
      expect(await LevelFiles.open({ dir: path.join(notADir, 'levels'), budgetBytes: 1 << 30, logger: quietLogger })).to.equal(null);
      const server = await startTestServer({ levelFiles: { dir: path.join(notADir, 'levels'), bytes: 1 << 30 } });
      try {
        expect(server.internals.levelFiles).to.equal(null);
        const { bytes } = await renderBytes(server.client, req());
        expect(bytes.length).to.be.greaterThan(1000);
      } finally {
        await server.close();
      }
    });

    it('a directory removed while serving is made again at the next write; one that cannot be made fails the writes, counted, and renders go on', async () => {
      const dir = await tmp('level-files-');
      const server = await startTestServer({ levelFiles: { dir, bytes: 1 << 30 } });
      try {
        await fs.rm(dir, { recursive: true });
        await renderBytes(server.client, req({ width: 320 }));
        await server.internals.levelFiles!.idle();
        expect(server.internals.levelFiles!.stats()).to.include({ written: 1, failed: 0 });
        expect(await levelFilesIn(dir)).to.have.length(1);
        await fs.rm(dir, { recursive: true });
        await fs.writeFile(dir, 'a file where the directory was');
        const { bytes } = await renderBytes(server.client, req({ width: 240 }));
        expect(bytes.length).to.be.greaterThan(1000);
        await server.internals.levelFiles!.idle();
        // the read that found no directory, and the write
        expect(server.internals.levelFiles!.stats()).to.include({ written: 1, failed: 2 });
      } finally {
        await server.close();
      }
    });

    it('a write the disk cuts short (a file-size limit: no error, fewer bytes) is counted as failed and leaves no file', async function () {
      // a child process under `ulimit -f` (Node ignores SIGXFSZ: the write comes back short)
      const dir = await tmp('level-files-');
      const assets = await testAssets();
      const script = path.join(await tmp('level-files-script-'), 'write.mts');
      const root = path.resolve('.');
      await fs.writeFile(
        script,
        `import { AssetStore } from ${JSON.stringify(path.join(root, 'renderer/assets/asset-store.ts'))};
import { LevelFiles } from ${JSON.stringify(path.join(root, 'renderer/assets/level-files.ts'))};
import { CPU_LEVEL_EXTRAS } from ${JSON.stringify(path.join(root, 'renderer/backends/cpu/level-extras.ts'))};
import { createLogger } from ${JSON.stringify(path.join(root, 'shared/logger.ts'))};
const logger = createLogger('t', 'silent');
const files = await LevelFiles.open({ dir: ${JSON.stringify(dir)}, budgetBytes: 1 << 30, logger });
const store = new AssetStore({ dir: ${JSON.stringify(assets)}, cacheBytes: 1 << 30, logger, levelFiles: files, levelExtras: CPU_LEVEL_EXTRAS });
await store.init();
await store.levelFor(await store.getSet('testset'), 'side_left', 320);
await files!.idle();
console.log(JSON.stringify(files!.stats()));
`,
      );
      // 100 blocks of 1 KiB: under a 320 px level's 0.8 MB
      const r = spawnSync('bash', ['-c', `ulimit -f 100; exec "${process.execPath}" --import tsx "${script}"`], { cwd: root, encoding: 'utf8' });
      expect(r.status, r.stderr).to.equal(0);
      const stats = JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, number>;
      expect(stats).to.include({ written: 0, failed: 1, files: 0, bytes: 0 });
      expect(await fs.readdir(dir)).to.deep.equal([]);
    });

    it('writes wait one at a time, at most WRITE_QUEUE_MAX; a level the cache let go of before its turn is skipped', async () => {
      const dir = await tmp('level-files-');
      const files = (await LevelFiles.open({ dir, budgetBytes: 1 << 30, logger: quietLogger }))!;
      const spec = (i: number) => ({ key: `q/${i}`, id: `q/${i}`, width: 64, height: 36, shadow: true, coverage: true, level: null, extras: CPU_LEVEL_EXTRAS });
      const keep: Layers[] = [];
      for (let i = 0; i < WRITE_QUEUE_MAX + 8; i++) {
        const l = tiny(i);
        keep.push(l);
        files.write(spec(i), l);
      }
      await files.idle();
      // one taken at once, WRITE_QUEUE_MAX waiting, the oldest waiting pushed out by the rest
      expect(files.stats()).to.include({ written: WRITE_QUEUE_MAX + 1, skipped: 7 });
      keep.length = 0;

      // levels nobody else holds: collected while the first is written, then skipped
      const dir2 = await tmp('level-files-');
      const files2 = (await LevelFiles.open({ dir: dir2, budgetBytes: 1 << 30, logger: quietLogger }))!;
      const first = tiny(100);
      files2.write(spec(100), first);
      (() => {
        for (let i = 101; i < 105; i++) files2.write(spec(i), tiny(i));
      })();
      await new Promise((r) => setImmediate(r));
      collectGarbage();
      await files2.idle();
      expect(files2.stats()).to.include({ written: 1, skipped: 4 });
      void first;

      // a level built again while its first copy waits: the write waits on the copy held now
      const dir3 = await tmp('level-files-');
      const files3 = (await LevelFiles.open({ dir: dir3, budgetBytes: 1 << 30, logger: quietLogger }))!;
      const busy = tiny(200);
      files3.write(spec(200), busy);
      (() => files3.write(spec(201), tiny(201)))(); // its first copy, held by nobody
      const again = tiny(201);
      files3.write(spec(201), again);
      await new Promise((r) => setImmediate(r));
      collectGarbage();
      await files3.idle();
      expect(files3.stats()).to.include({ written: 2, skipped: 0 });
      void busy;
      void again;
    });
  });

  describe('security', () => {
    it("a level's file planted under another level's name is refused (its header names the level and layer files it was made from)", async () => {
      const assets = await testAssets();
      const { dir, side, front: frontFile, store } = await twoLevelFiles();
      const front = digest(await level(store, 320, 'front_left'));
      // same size and planes, another view: only the header tells them apart
      await fs.copyFile(path.join(dir, side), path.join(dir, frontFile));
      const b = await storeWith(assets, dir);
      expect(digest(await level(b.store, 320, 'front_left'))).to.equal(front);
      expect(b.files.stats()).to.include({ hits: 0, failed: 1 });
    });

    it('a crafted header asking for a huge level is refused and the level built again (its sizes are checked against the level expected before any plane is allocated)', async () => {
      const assets = await testAssets();
      const { dir, file, built } = await oneLevelFile();
      const b0 = await fs.readFile(file);
      const jsonLen = b0.readUInt32LE(20);
      const header = JSON.parse(b0.subarray(28, 28 + jsonLen).toString('utf8')) as { width: number; height: number };
      header.width = 100_000;
      header.height = 100_000;
      const json = Buffer.from(JSON.stringify(header));
      const head = Buffer.alloc(28);
      b0.copy(head, 0, 0, 28);
      head.writeUInt32LE(28 + json.length, 8);
      head.writeUInt32LE(0xffffffff, 12);
      head.writeUInt32LE(json.length, 20);
      const zlib = await import('node:zlib');
      head.writeUInt32LE(zlib.crc32(json) >>> 0, 24);
      await fs.writeFile(file, Buffer.concat([head, json, b0.subarray(28 + jsonLen)]));
      const rssBefore = process.memoryUsage().rss;
      const b = await storeWith(assets, dir);
      expect(digest(await level(b.store, 320))).to.equal(built);
      expect(b.files.stats()).to.include({ hits: 0, failed: 1 });
      expect(process.memoryUsage().rss - rssBefore).to.be.below(512 * 1024 * 1024);
    });
  });
});
