/**
 * A glTF set's kept 3D source and its spin frames (docs/asset-format.md, "The 3D source" and "Spin
 * frames"): the glTF bake keeps source/ and source.spin, the procedural bake does not; a missing source
 * file is refused; attach-source takes the model a set was baked from and refuses others; the spin
 * geometry of the fixture car at the four sides; a shot frame's coverage agrees with that geometry;
 * the frame cache's files. The fixture car is built in the tests (test/support/gltf-car.ts); nothing is
 * read from ../shared. Needs WebGL 2 (headless-gl); skipped without it unless CI=true or REQUIRE_GL=1.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { readGreyLayer } from '../../shared/asset-format/layer-files.ts';
import { readSetMeta, type AssetSetMeta, type SpinSourceMeta } from '../../shared/asset-format/read-set.ts';
import { AssetSetError } from '../../shared/asset-format/set-json.ts';
import { readSpinFrame, spinFrameSetDir, writeSpinFrame } from '../../shared/asset-format/spin-frames.ts';
import { nonZeroBox } from '../../renderer/assets/plane-box.ts';
import { writeFixtureCar } from '../support/gltf-car.ts';
import { makeSpinSet } from '../support/spin-set.ts';
import { skipWithoutWebGl } from '../support/webgl.ts';

type Box = { x: number; y: number; width: number; height: number };

/** The fixture set without its source, as a set baked before sources were kept. */
function stripSource(dir: string): void {
  fs.rmSync(path.join(dir, 'source'), { recursive: true, force: true });
  const file = path.join(dir, 'set.json');
  const json = JSON.parse(fs.readFileSync(file, 'utf8')) as { source: Record<string, unknown> };
  delete json.source.spin;
  fs.writeFileSync(file, `${JSON.stringify(json, null, 2)}\n`);
}

function copySet(from: string, toRoot: string): string {
  const to = path.join(toRoot, path.basename(from));
  fs.cpSync(from, to, { recursive: true });
  return to;
}

/** The box of a mask's non-zero pixels. */
function maskBox(plane: Uint8Array, width: number, height: number): Box {
  const b = nonZeroBox(plane, width, height);
  assert.ok(b, 'an empty mask');
  const [x0, y0, x1, y1] = b;
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

async function greyBox(file: string): Promise<Box> {
  const [data, { width, height }] = await Promise.all([readGreyLayer(file), sharp(file).metadata()]);
  return maskBox(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width!, height!);
}

function assertNear(a: Box, b: Box, px: number, what: string): void {
  const edges = (q: Box) => [q.x, q.y, q.x + q.width, q.y + q.height];
  const ea = edges(a), eb = edges(b);
  for (let i = 0; i < 4; i++) assert.ok(Math.abs(ea[i]! - eb[i]!) <= px, `${what}: ${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
}

describe('studio: the 3D source kept with a set, and spin frames', function () {
  this.timeout(300_000);
  let tmp = '';
  let setDir = '';
  let meta: AssetSetMeta;
  let spin: SpinSourceMeta;
  let model = '';

  before(async function () {
    await skipWithoutWebGl(this);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spin-source-test-'));
    setDir = await makeSpinSet(path.join(tmp, 'sets'));
    meta = await readSetMeta(setDir);
    spin = meta.spin!;
    model = path.join(tmp, 'car.glb');
    await writeFixtureCar(model);
  });

  after(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  describe('asset format', () => {
    it('a glTF bake keeps source/model.glb and a valid source.spin', () => {
      assert.ok(spin, 'source.spin');
      assert.equal(spin.modelPath, path.join(setDir, 'source', 'model.glb'));
      assert.ok(fs.statSync(spin.modelPath).size > 1000);
      assert.equal(spin.roleMapPath, null, 'baked without a role map');
      assert.deepEqual(spin.normalisation, { up: '+Y', forward: '+X', scale: 1, offset: [0, 0, 0] });
      assert.equal(spin.rig.fov, 24);
      assert.equal(spin.rig.elevationDegrees, 8);
      assert.ok(spin.rig.distance > 4 && spin.rig.distance < 20, `distance ${spin.rig.distance}`);
      assert.ok(spin.outline.length >= 8);
      // the fixture's body is a 4.2 x 1.8 m box: the outline reaches its ends and its sides
      const xs = spin.outline.map((p) => p[0]), zs = spin.outline.map((p) => p[2]);
      assert.ok(Math.max(...xs) >= 2.1 && Math.min(...xs) <= -2.1, `x ${Math.min(...xs)} to ${Math.max(...xs)}`);
      assert.ok(Math.max(...zs) >= 0.9 && Math.min(...zs) <= -0.9, `z ${Math.min(...zs)} to ${Math.max(...zs)}`);
      assert.ok(spin.plates.front && spin.plates.front.normal[0] > 0.99);
      assert.ok(spin.plates.rear && spin.plates.rear.normal[0] < -0.99);
    });

    it('a procedural bake keeps none', async () => {
      const [{ createGLRenderer }, { bakeSet }, { findSet }] = await Promise.all([
        import('../../baker/gl.ts'),
        import('../../studio/bake/procedural.ts'),
        import('../../studio/bake/styles.ts'),
      ]);
      const gl = createGLRenderer();
      const dir = path.join(tmp, 'procedural', 'sedan-a');
      try {
        await bakeSet(gl.renderer, findSet('sedan-a')!, dir, { width: 160, height: 90, views: ['side_left'], samples: 4, supersample: 1, lightDepth: 8 });
      } finally {
        gl.dispose();
      }
      assert.equal((await readSetMeta(dir)).spin, null);
      assert.ok(!fs.existsSync(path.join(dir, 'source')));
    });

    it('refuses a set whose source file is missing, naming the file', async () => {
      const copy = copySet(setDir, fs.mkdtempSync(path.join(tmp, 'missing-')));
      fs.rmSync(path.join(copy, 'source', 'model.glb'));
      await assert.rejects(readSetMeta(copy), (e: unknown) => {
        assert.ok(e instanceof AssetSetError);
        assert.match(e.message, /source[/\\]model\.glb: missing/);
        return true;
      });
    });

    it('refuses a source path that leaves the set', async () => {
      const copy = copySet(setDir, fs.mkdtempSync(path.join(tmp, 'escape-')));
      const file = path.join(copy, 'set.json');
      const json = JSON.parse(fs.readFileSync(file, 'utf8')) as { source: { spin: { model: string } } };
      json.source.spin.model = '../../car.glb';
      fs.writeFileSync(file, JSON.stringify(json));
      await assert.rejects(readSetMeta(copy), /source\.spin\.model: must be a path inside the set/);
    });
  });

  describe('attach-source', () => {
    it('keeps the model a set was baked from (its revision recomputed) and writes the same source.spin', async () => {
      const { attachSource } = await import('../../studio/attach-source.ts');
      const copy = copySet(setDir, fs.mkdtempSync(path.join(tmp, 'attach-')));
      stripSource(copy);
      assert.equal((await readSetMeta(copy)).spin, null);
      const r = await attachSource(copy, { model, supersample: 1 });
      assert.match(r.how, /revision/);
      const again = await readSetMeta(copy);
      assert.equal(again.revision, meta.revision);
      assert.deepEqual({ ...again.spin, modelPath: '' }, { ...spin, modelPath: '' });
    });

    it('refuses another model, or the right one with other bake options, and writes nothing', async () => {
      const { attachSource } = await import('../../studio/attach-source.ts');
      const copy = copySet(setDir, fs.mkdtempSync(path.join(tmp, 'attach-other-')));
      stripSource(copy);
      const before = fs.readFileSync(path.join(copy, 'set.json'), 'utf8');
      const other = path.join(tmp, 'covered.glb');
      await writeFixtureCar(other, { coverFrontPlate: true });
      await assert.rejects(attachSource(copy, { model: other, supersample: 1 }), /is not what spin-car was baked from/);
      await assert.rejects(attachSource(copy, { model, supersample: 4 }), /is not what spin-car was baked from/);
      assert.equal(fs.readFileSync(path.join(copy, 'set.json'), 'utf8'), before);
      assert.ok(!fs.existsSync(path.join(copy, 'source')));
    });

    it('refuses, for a set that keeps a source, a model that normalises into another frame', async () => {
      const { attachSource } = await import('../../studio/attach-source.ts');
      const copy = copySet(setDir, fs.mkdtempSync(path.join(tmp, 'attach-zup-')));
      const zup = path.join(tmp, 'zup.glb');
      await writeFixtureCar(zup, { frame: 'z-up-cm' });
      await assert.rejects(attachSource(copy, { model: zup }), /does not normalise into the set's studio frame \(up \+Z, recorded \+Y/);
    });

    it('loadSpinSubject refuses a kept model that does not normalise as recorded', async () => {
      const { loadSpinSubject } = await import('../../baker/spin/load-subject.ts');
      const moved = { ...spin, normalisation: { ...spin.normalisation, offset: [0.01, 0, 0] as [number, number, number] } };
      await assert.rejects(loadSpinSubject(moved), /does not normalise into the studio frame its set was baked in \(offset/);
    });
  });

  describe('geometry and frames', () => {
    it('spinFrameGeometry: narrow at 0 and 180, wide at 90 and 270; plates at the front and the rear only', async () => {
      const { spinFrameGeometry } = await import('../../baker/spin/geometry.ts');
      const g = Object.fromEntries([0, 90, 180, 270].map((y) => [y, spinFrameGeometry(spin, y, 1600, 900)]));
      for (const narrow of [0, 180]) for (const wide of [90, 270]) assert.ok(g[wide]!.box.width > 1.6 * g[narrow]!.box.width, `${wide} vs ${narrow}`);
      // the car turns in place: the widest side view fills 0.86 of the width (the views' rule)
      assert.ok(Math.abs(g[90]!.box.width / 1600 - 0.86) < 0.01, `side fill ${g[90]!.box.width / 1600}`);
      assert.ok(g[0]!.plateQuad && g[180]!.plateQuad);
      assert.equal(g[90]!.plateQuad, null);
      assert.equal(g[270]!.plateQuad, null);
      for (const y of [0, 90, 180, 270]) assert.equal(g[y]!.groundY, g[y]!.box.y + g[y]!.box.height);
    });

    it('a shot frame: its coverage agrees with spinFrameGeometry within 2 px; yaw 90 is a side, as side_left', async () => {
      const [{ createGLRenderer }, { loadSpinSubject }, { createSpinShooter }, { spinFrameGeometry }] = await Promise.all([
        import('../../baker/gl.ts'),
        import('../../baker/spin/load-subject.ts'),
        import('../../baker/spin/shoot-frame.ts'),
        import('../../baker/spin/geometry.ts'),
      ]);
      const gl = createGLRenderer();
      const subject = await loadSpinSubject(spin);
      const shooter = createSpinShooter(gl.renderer, subject, spin, '#DFE1E4');
      const W = 200, H = 113;
      const boxes: Record<number, Box> = {};
      try {
        for (const yaw of [0, 90, 135]) {
          const shot = await shooter.shoot({ yaw, width: W, height: H, samples: 4, supersample: 1, lightDepth: 8 });
          assert.equal(shot.layers.width, W);
          const cov = maskBox(shot.layers.coverage, W, H);
          const g = spinFrameGeometry(spin, yaw, W, H);
          assertNear(cov, g.box, 2, `yaw ${yaw}`);
          assert.equal(shot.record.plate_quad === null, g.plateQuad === null, `yaw ${yaw}: plate quad in the record and the geometry`);
          boxes[yaw] = cov;
          if (yaw === 90) {
            const dir = spinFrameSetDir(path.join(tmp, 'frames'), meta.id, meta.revision, W);
            await writeSpinFrame(dir, 'yaw-090', shot);
            const frame = await readSpinFrame(dir, 'yaw-090');
            assert.deepEqual(frame && { w: frame.width, h: frame.height, plate: frame.plateQuad, shadow: frame.shadow, cov: frame.coverage, depth: frame.lightDepth },
              { w: W, h: H, plate: null, shadow: true, cov: true, depth: { diffuse: 8, specular: 8 } });
            assert.deepEqual(await greyBox(path.join(dir, 'yaw-090', 'coverage.png')), cov);
            assert.equal(fs.readdirSync(dir).length, 1, 'nothing left beside the frame');
          }
        }
      } finally {
        shooter.dispose();
        gl.dispose();
      }
      // yaw 90 shows a side: its silhouette's proportions are side_left's (another elevation and
      // distance, so not the same pixels), not the front's
      const side = await greyBox(path.join(setDir, 'side_left', 'coverage.png'));
      const aspect = (b: Box) => b.width / b.height;
      assert.ok(Math.abs(aspect(boxes[90]!) / aspect(side) - 1) < 0.12, `yaw 90 ${aspect(boxes[90]!)} vs side_left ${aspect(side)}`);
      assert.ok(aspect(boxes[0]!) < 0.6 * aspect(side));
    });
  });

  describe('the frame cache', () => {
    it('readSpinFrame: null when absent or of another baker version; throws when frame.json is corrupt', async () => {
      const dir = spinFrameSetDir(path.join(tmp, 'frames'), meta.id, meta.revision, 200);
      assert.equal(await readSpinFrame(dir, 'yaw-000'), null);
      const { BAKER_VERSION } = await import('../../baker/bake-set.ts');
      assert.ok(await readSpinFrame(dir, 'yaw-090', { bakerVersion: BAKER_VERSION }));
      assert.equal(await readSpinFrame(dir, 'yaw-090', { bakerVersion: BAKER_VERSION + 1 }), null);
      const bad = path.join(dir, 'yaw-090', 'frame.json');
      fs.writeFileSync(bad, '{"width": 200');
      await assert.rejects(readSpinFrame(dir, 'yaw-090'), /frame\.json: invalid JSON/);
    });
  });
});
