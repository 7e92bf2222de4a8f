/**
 * `npm run studio -- levels` (studio/levels-command.ts): the real renderer, as a child over gRPC, makes
 * the level files of every view asked for at every level of its ladder; a renderer started on that
 * directory afterwards reads each of those levels and builds none; a second pre-bake reads them all
 * and writes nothing. On a synthetic set of its own (test/support), not the committed sets.
 */
import { expect } from 'chai';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { levelLadder } from '../../shared/level-ladder.ts';
import { preBakeLevels, setsIn } from '../../studio/levels-command.ts';
import { makeSyntheticSet } from '../support/make-synthetic-set.ts';
import { renderBytes, startTestServer } from '../renderer/helpers.ts';

describe('studio level pre-bake', function () {
  this.timeout(300_000);
  let tmp: string;
  let assetsDir: string;
  let levelsDir: string;
  const views = ['front_left', 'side_left'] as const;

  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'levels-prebake-'));
    assetsDir = path.join(tmp, 'assets');
    levelsDir = path.join(tmp, 'levels');
    await makeSyntheticSet(path.join(assetsDir, 'lv-set'), { width: 640, revision: 'l1', lightDepth: 8, views: [...views, 'rear'] });
    await fs.mkdir(path.join(assetsDir, 'not a set'));
  });
  after(() => fs.rm(tmp, { recursive: true, force: true }));

  it('lists the sets of ASSETS_DIR by their set.json', async () => {
    expect(await setsIn(assetsDir)).to.deep.equal(['lv-set']);
  });

  it('writes every level of the views asked for; a renderer on that directory then reads them and builds none', async () => {
    const ladder = levelLadder(640, 360).filter((l) => l.footprint > 1);
    expect(ladder.map((l) => l.width)).to.deep.equal([427, 320, 213]);
    const lines: string[] = [];
    const first = await preBakeLevels({ assetsDir, levelsDir, sets: [], views: [...views], budgetMb: 1024, log: (l) => lines.push(l), env: { ...process.env, RENDER_BACKEND: 'cpu' } });
    expect(first).to.deep.include({ sets: 1, refused: [], views: 2, levels: 6, read: 0, built: 6, written: 6, skipped: 0, failed: 0 });
    const files = (await fs.readdir(levelsDir)).filter((n) => n.endsWith('.level'));
    expect(files).to.have.length(6);
    const bytes = (await Promise.all(files.map((n) => fs.stat(path.join(levelsDir, n))))).reduce((sum, st) => sum + st.size, 0);
    expect(first.bytes).to.equal(bytes);
    expect(lines).to.have.length(2);
    expect(lines[0]).to.match(/^lv-set front_left: 3 levels \(427, 320, 213 px\) in \d+ ms$/);

    const again = await preBakeLevels({ assetsDir, levelsDir, sets: ['lv-set'], views: [...views], budgetMb: 1024, log: () => {}, env: { ...process.env, RENDER_BACKEND: 'cpu' } });
    expect(again).to.include({ levels: 6, read: 6, built: 0, written: 0, bytes });

    const srv = await startTestServer({ assetsDir, levelFiles: { dir: levelsDir, bytes: 1 << 30 } });
    try {
      for (const view of views) {
        for (const { width } of ladder) {
          const { header } = await renderBytes(srv.client, { assetSet: 'lv-set', view, color: '#445566', shadow: true, plate: null, format: 'png', width });
          expect(header.width).to.equal(width);
        }
      }
      // the full size is never a level file: it is decoded only where a level is missing, and none is
      expect(srv.internals.levelFiles!.stats()).to.include({ hits: 6, misses: 0, written: 0 });
      expect(srv.internals.store.stats().entries).to.equal(6);
    } finally {
      await srv.close();
    }
  });

  it('names and skips a set the renderer refuses when every set is asked for', async () => {
    const assets = path.join(tmp, 'assets-broken');
    await fs.mkdir(path.join(assets, 'broken-set'), { recursive: true });
    await fs.writeFile(path.join(assets, 'broken-set', 'set.json'), '{"id": "broken-set", "format": 2}');
    const lines: string[] = [];
    const r = await preBakeLevels({ assetsDir: assets, levelsDir: path.join(tmp, 'levels-broken'), sets: [], views: [...views], budgetMb: 64, log: (l) => lines.push(l), env: { ...process.env, RENDER_BACKEND: 'cpu', LOG_LEVEL: 'silent' } });
    expect(r).to.deep.include({ sets: 0, refused: ['broken-set'], views: 0, levels: 0, bytes: 0 });
    expect(lines).to.have.length(1);
    expect(lines[0], lines[0]).to.match(/^broken-set: refused by the renderer, skipped: /);
  });

  it('refuses an unknown set by the renderer\'s own answer, and writes nothing for it', async () => {
    const dir = path.join(tmp, 'levels-none');
    let err: Error | null = null;
    await preBakeLevels({ assetsDir, levelsDir: dir, sets: ['no-such-set'], views: [...views], budgetMb: 64, log: () => {}, env: { ...process.env, RENDER_BACKEND: 'cpu' } }).catch((e: Error) => (err = e));
    expect(err).to.be.an('error');
    expect(err!.message).to.match(/Unknown asset set no-such-set/);
    expect(await fs.readdir(dir)).to.deep.equal([]);
  });
});
