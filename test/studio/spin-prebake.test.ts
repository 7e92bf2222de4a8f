/**
 * `npm run studio -- spin` (studio/spin-command.ts): the frames a renderer would bake, shot ahead into
 * the frame cache: the renderer then finds them on disk and bakes nothing; a second run shoots nothing;
 * and a pre-baked frame is the renderer's own bake of it, file for file.
 */
import { expect } from 'chai';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readSetMeta } from '../../shared/asset-format/read-set.ts';
import { LAYER_FILES, layerPath } from '../../shared/asset-format/layer-files.ts';
import { spinFrameSetDir } from '../../shared/asset-format/spin-frames.ts';
import { spinYaws } from '../../shared/spin.ts';
import { frameId } from '../../shared/shot-id.ts';
import { preBakeSpin } from '../../studio/spin-command.ts';
import { makeSpinSet } from '../support/spin-set.ts';
import { renderBytes, startTestServer } from '../renderer/helpers.ts';

describe('studio spin pre-bake', function () {
  this.timeout(600_000);
  let tmp: string;
  let setDir: string;

  before(async () => {
    tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'spin-prebake-'));
    await fs.mkdir(path.join(tmp, 'assets'));
    setDir = await makeSpinSet(path.join(tmp, 'assets'));
  });
  after(() => fs.rm(tmp, { recursive: true, force: true }));

  it('shoots the missing frames at the bake width, skips them the second time, and the renderer bakes none of them', async () => {
    const framesDir = path.join(tmp, 'prebaked');
    const lines: string[] = [];
    const first = await preBakeSpin({ setDir, framesDir, frames: 8, width: 300, supersample: 1, log: (l) => lines.push(l) });
    expect(first).to.include({ width: 400, baked: 8, skipped: 0 });
    expect(lines.filter((l) => /^\[\d\/8\] yaw-\d{3} /.test(l))).to.have.length(8);
    const again = await preBakeSpin({ setDir, framesDir, frames: 8, width: 400, supersample: 1, log: () => {} });
    expect(again).to.include({ baked: 0, skipped: 8 });

    const srv = await startTestServer({ assetsDir: path.dirname(setDir), spin: { framesDir, supersample: 1, queueMax: 8 } });
    try {
      for (const yaw of spinYaws(8)) {
        const { header } = await renderBytes(srv.client, { assetSet: path.basename(setDir), view: frameId(yaw), color: '#445566', shadow: true, plate: null, format: 'webp', width: 300 }, 60_000);
        expect(header.width).to.equal(300);
      }
      expect(srv.internals.spin.stats()).to.include({ baked: 0, disk: 8 });
    } finally {
      await srv.close();
    }
  });

  it("a pre-baked frame is the renderer's own bake of it, file for file", async () => {
    const meta = await readSetMeta(setDir);
    const studioDir = path.join(tmp, 'studio-frames');
    await preBakeSpin({ setDir, framesDir: studioDir, frames: 8, width: 400, supersample: 1, log: () => {} });
    const rendererDir = path.join(tmp, 'renderer-frames');
    const srv = await startTestServer({ assetsDir: path.dirname(setDir), spin: { framesDir: rendererDir, supersample: 1, queueMax: 8 } });
    try {
      await renderBytes(srv.client, { assetSet: meta.id, view: 'yaw-135', color: '#445566', shadow: false, plate: null, format: 'png', width: 400 }, 300_000);
      expect(srv.internals.spin.stats().baked).to.equal(1);
    } finally {
      await srv.close();
    }
    const a = spinFrameSetDir(studioDir, meta.id, meta.revision, 400);
    const b = spinFrameSetDir(rendererDir, meta.id, meta.revision, 400);
    for (const layer of LAYER_FILES) {
      const [x, y] = await Promise.all([fs.readFile(layerPath(a, 'yaw-135', layer)), fs.readFile(layerPath(b, 'yaw-135', layer))]);
      expect(x.equals(y), layer).to.equal(true);
    }
    const [ja, jb] = await Promise.all([fs.readFile(path.join(a, 'yaw-135', 'frame.json'), 'utf8'), fs.readFile(path.join(b, 'yaw-135', 'frame.json'), 'utf8')]);
    expect(ja).to.equal(jb);
  });
});
