/**
 * The frame cache's writer (shared/asset-format/spin-frames.ts writeSpinFrame) against a frame already in
 * place: a usable one of the same baker version is kept (another writer was first); a stale one (another
 * baker version) or a broken one (a layer file missing), which the readers count as absent and bake
 * again, is replaced, or every bake of it would be thrown away and the frame never served. No GL.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { readSpinFrame, STALE_STAGING_MS, writeSpinFrame, type SpinFrameData } from '../../shared/asset-format/spin-frames.ts';

function frame(bakerVersion: number, fill: number): SpinFrameData {
  const width = 4, height = 3, n = width * height;
  const grey = () => new Uint8Array(n).fill(fill);
  return {
    layers: { width, height, base: new Uint8Array(n * 3).fill(fill), paint: grey(), coverage: grey(), diffuse: grey(), specular: grey(), shadow: grey() },
    record: { width, height, plate_quad: null, shadow: true, coverage: true, calibration: { diffuse_gain: 1, specular_floor: 0 } },
    bakerVersion,
  };
}

describe('spin frame cache: writeSpinFrame over a frame already there', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'spin-frame-write-'));
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  const paintOf = async () => (await fs.readFile(path.join(dir, 'yaw-000', 'paint.png'))).toString('base64');

  it('keeps a usable frame of the same baker version', async () => {
    await writeSpinFrame(dir, 'yaw-000', frame(4, 10));
    const first = await paintOf();
    await writeSpinFrame(dir, 'yaw-000', frame(4, 200));
    assert.equal(await paintOf(), first);
    assert.deepEqual((await fs.readdir(dir)).filter((f) => f.startsWith('.')), [], 'no staging folder left');
  });

  it('replaces a frame of another baker version', async () => {
    await writeSpinFrame(dir, 'yaw-000', frame(3, 10));
    assert.equal(await readSpinFrame(dir, 'yaw-000', { bakerVersion: 4 }), null);
    await writeSpinFrame(dir, 'yaw-000', frame(4, 200));
    assert.ok(await readSpinFrame(dir, 'yaw-000', { bakerVersion: 4 }));
    assert.deepEqual(await fs.readdir(dir), ['yaw-000']);
  });

  it('removes staging folders a killed writer left (older than STALE_STAGING_MS), not those of a writer at work', async () => {
    const stale = path.join(dir, '.yaw-010.4242-deadbeef');
    const fresh = path.join(dir, '.yaw-020.4243-feedf00d');
    for (const d of [stale, fresh]) {
      await fs.mkdir(path.join(d, 'yaw-010'), { recursive: true });
      await fs.writeFile(path.join(d, 'yaw-010', 'paint.png'), 'half a frame');
    }
    const old = new Date(Date.now() - STALE_STAGING_MS - 60_000);
    await fs.utimes(stale, old, old);
    await writeSpinFrame(dir, 'yaw-000', frame(4, 10));
    assert.deepEqual((await fs.readdir(dir)).sort(), ['.yaw-020.4243-feedf00d', 'yaw-000']);
  });

  it('replaces a broken frame (a layer file missing)', async () => {
    await writeSpinFrame(dir, 'yaw-000', frame(4, 10));
    await fs.rm(path.join(dir, 'yaw-000', 'paint.png'));
    await assert.rejects(readSpinFrame(dir, 'yaw-000', { bakerVersion: 4 }), /missing/);
    await writeSpinFrame(dir, 'yaw-000', frame(4, 200));
    assert.ok(await readSpinFrame(dir, 'yaw-000', { bakerVersion: 4 }));
  });
});

describe('spin frame cache: spinFrameSetDir', () => {
  it('keeps a revision that is a plain folder name, and never leaves the root for one that is not', async () => {
    const { spinFrameSetDir } = await import('../../shared/asset-format/spin-frames.ts');
    assert.equal(spinFrameSetDir('/cache', 'coupe', 'bake4-d28ee87096b6-cal2', 400), path.join('/cache', 'coupe', 'bake4-d28ee87096b6-cal2', '400'));
    for (const rev of ['../../../etc', '..', '.', 'a/b', '/abs', 'x\0y']) {
      const dir = spinFrameSetDir('/cache', 'coupe', rev, 400);
      assert.ok(dir.startsWith(path.join('/cache', 'coupe') + path.sep), `${JSON.stringify(rev)} gave ${dir}`);
      assert.equal(path.relative(path.join('/cache', 'coupe'), dir).split(path.sep).length, 2, dir);
    }
  });
});
