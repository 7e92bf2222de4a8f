import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { readSetMeta } from '../../shared/asset-format/read-set.ts';

function digestTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(dir, p)] = crypto.createHash('sha256').update(fs.readFileSync(p)).digest('hex');
    }
  };
  walk(dir);
  return out;
}

async function grey(file: string): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(file).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

describe('studio: baker', function () {
  this.timeout(300_000);
  const requireGl = process.env.CI === 'true' || process.env.REQUIRE_GL === '1';
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let gl: any = null;
  let tmp = '';
  const views = ['front_left', 'side_left', 'top_down'] as const;
  let setDir = '';

  before(async function () {
    const { createGLRenderer } = await import('../../baker/gl.ts');
    try {
      gl = createGLRenderer();
    } catch (e) {
      if (requireGl) throw e;
      console.log(`      (skipped: no WebGL 2 context: ${(e as Error).message}; set REQUIRE_GL=1 or CI=true to fail instead)`);
      this.skip();
    }
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bake-test-'));
  });

  after(() => {
    gl?.dispose();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('bakes a small set deterministically, in format 2 (coverage, calibration, source, backdrop)', async () => {
    const { bakeSet } = await import('../../studio/bake/procedural.ts');
    const { BAKER_VERSION } = await import('../../baker/bake-set.ts');
    const { CALIBRATION_VERSION } = await import('../../baker/calibrate.ts');
    const { findSet } = await import('../../studio/bake/styles.ts');
    const def = findSet('hatchback-b')!;
    const opts = { width: 320, height: 180, views, samples: 4, supersample: 4, lightDepth: 8 as const };
    const a = path.join(tmp, 'a', def.id);
    const b = path.join(tmp, 'b', def.id);
    const ra = await bakeSet(gl.renderer, def, a, opts);
    const rb = await bakeSet(gl.renderer, def, b, opts);
    assert.equal(ra.revision, rb.revision);
    assert.match(ra.revision, new RegExp(`^bake${BAKER_VERSION}-[0-9a-f]{12}-cal${CALIBRATION_VERSION}$`));
    const da = digestTree(a);
    const layers = (v: string, shadow: boolean) =>
      ['base', 'coverage', 'diffuse', 'paint', ...(shadow ? ['shadow'] : []), 'specular'].map((l) => `${v}/${l}.png`);
    assert.deepEqual(Object.keys(da).sort(), [
      ...layers('front_left', true), 'set.json', ...layers('side_left', true), ...layers('top_down', false),
    ].sort());
    assert.deepEqual(digestTree(b), da, 'two bakes of the same inputs differ');

    const json = JSON.parse(fs.readFileSync(path.join(a, 'set.json'), 'utf8'));
    assert.equal(json.format, 2);
    assert.equal(json.id, def.id);
    assert.equal(json.source.kind, 'procedural');
    assert.match(json.neutral_paint, /^#[0-9A-F]{6}$/);
    assert.deepEqual(json.backdrop, { top: [0.86, 0.86, 0.86], bottom: [0.74, 0.74, 0.74] });
    for (const v of views) {
      const view = json.views[v];
      assert.equal(view.coverage, true, `${v}: coverage`);
      assert.ok(view.calibration.diffuse_gain > 0.5 && view.calibration.diffuse_gain < 20, `${v}: diffuse_gain ${view.calibration.diffuse_gain}`);
      assert.ok(view.calibration.specular_floor >= 0 && view.calibration.specular_floor < 0.5, `${v}: specular_floor`);
    }
    // the renderer's loader accepts it
    const meta = await readSetMeta(a);
    assert.equal(meta.views.front_left?.shadow, true);
    assert.equal(meta.views.top_down?.shadow, false);
    assert.equal(meta.views.side_left?.coverage, true);
    assert.ok(meta.views.front_left?.plateQuad, 'front_left shows the front plate');
    assert.equal(meta.views.top_down?.plateQuad, null);
    setDir = a;
  });

  it('supersamples the paint mask: 16 samples a pixel, every level of them on the silhouette', async function () {
    if (!setDir) this.skip();
    // the body's silhouette against the backdrop (paint and coverage partial and equal: no glass in front)
    const levels = new Set<number>();
    for (const v of views) {
      const { data } = await grey(path.join(setDir, v, 'paint.png'));
      const cov = await grey(path.join(setDir, v, 'coverage.png'));
      for (let i = 0; i < data.length; i++) if (data[i]! > 0 && data[i]! < 255 && data[i] === cov.data[i]) levels.add(data[i]!);
    }
    // 4 jitters x 4x MSAA: the levels are k/16 (k = 1..15), and all of them occur
    const expected = new Set(Array.from({ length: 15 }, (_, k) => Math.round(((k + 1) / 16) * 255)));
    for (const l of levels) assert.ok(expected.has(l), `partial mask level ${l} is not a multiple of 1/16`);
    assert.equal(levels.size, 15, `partial mask levels: ${[...levels].sort((p, q) => p - q).join(' ')}`);
  });

  it('has coverage 0 on the backdrop, 255 on the body, partial through the glass, and paint only where there is coverage', async function () {
    if (!setDir) this.skip();
    for (const v of views) {
      const cov = await grey(path.join(setDir, v, 'coverage.png'));
      const paint = await grey(path.join(setDir, v, 'paint.png'));
      const { width: w, height: h } = cov;
      for (const i of [0, w - 1, (h - 1) * w, h * w - 1]) assert.equal(cov.data[i], 0, `${v}: corner ${i} is backdrop`);
      let body = 0;
      for (let i = 0; i < w * h; i++) {
        if (paint.data[i] === 255) {
          body++;
          assert.equal(cov.data[i], 255, `${v}: full paint at ${i} with coverage ${cov.data[i]}`);
        }
        assert.ok(paint.data[i]! <= cov.data[i]! + 1, `${v}: paint ${paint.data[i]} over coverage ${cov.data[i]} at ${i}`);
      }
      assert.ok(body > w * h * 0.05, `${v}: body paint pixels ${body}`);
    }
    // glass: partial coverage inside regions, not only on one-pixel anti-aliased edges
    const cov = await grey(path.join(setDir, 'side_left', 'coverage.png'));
    const { width: w, height: h, data } = cov;
    const partial = (i: number) => data[i]! >= 20 && data[i]! <= 235;
    let inner = 0;
    for (let y = 1; y < h - 1; y++) {
      for (let x = 1; x < w - 1; x++) {
        const i = y * w + x;
        if (partial(i) && partial(i - 1) && partial(i + 1) && partial(i - w) && partial(i + w)) inner++;
      }
    }
    assert.ok(inner >= 30, `side_left: ${inner} pixels of partial coverage inside regions (the glass)`);
  });

  it('puts no shadow on the car: shadow is 0 wherever coverage is full', async function () {
    if (!setDir) this.skip();
    for (const v of ['front_left', 'side_left']) {
      const cov = await grey(path.join(setDir, v, 'coverage.png'));
      const sh = await grey(path.join(setDir, v, 'shadow.png'));
      let floor = 0;
      for (let i = 0; i < cov.data.length; i++) {
        if (cov.data[i] === 255) assert.equal(sh.data[i], 0, `${v}: shadow ${sh.data[i]} on the car at ${i}`);
        else if (sh.data[i]! > 60) floor++;
      }
      assert.ok(floor > 100, `${v}: the floor shadow exists (${floor} pixels)`);
    }
  });
});
