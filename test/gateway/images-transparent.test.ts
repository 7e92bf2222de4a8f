/**
 * background=transparent end to end: image JSON → signed URL → gateway → gRPC → renderer → PNG/WebP
 * with alpha, measured against the committed synthetic set's layers (assets/synthetic, 800 px, so a
 * render at 800 maps pixel for pixel onto them).
 */
import { expect } from 'chai';
import path from 'node:path';
import sharp from 'sharp';
import { backendLabel } from './support/backend.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';
import { startTestRenderer, type TestRenderer } from '../support/test-renderer.ts';

const SINGLE = '/v1/makes/aurelia/models/vento/2023';
const SET_DIR = path.resolve('assets/synthetic');

async function grey(view: string, layer: string): Promise<Buffer> {
  return sharp(path.join(SET_DIR, view, `${layer}.png`)).toColourspace('b-w').raw().toBuffer();
}

describe(`image download, transparent background (${backendLabel()})`, function () {
  this.timeout(60_000);
  let gw: TestGateway;
  let renderer: TestRenderer;
  let key: string;
  const local = (u: string) => u.replace('http://localhost:', 'http://127.0.0.1:');

  before(async () => {
    renderer = await startTestRenderer();
    gw = await startTestGateway({ renderer: renderer.client });
    key = (await gw.admin.customer()).key;
  });
  after(async () => {
    await gw?.close();
    await renderer?.close();
  });

  const json = (q: string, view = 'front_left') => gw.getWithKey(key, `${SINGLE}/${view}?${q}`);
  const download = async (url: string) => {
    const res = await fetch(local(url));
    expect(res.status, await res.clone().text().catch(() => '')).to.equal(200);
    return Buffer.from(await res.arrayBuffer());
  };

  describe('happy', () => {
    it('png: opaque car, empty backdrop, the shadow as partial opacity, glass partly see-through', async () => {
      const a = await json('background=transparent&format=png&width=800&color=red&shadow=true', 'side_left');
      expect(a.status).to.equal(200);
      expect(a.body.options.background).to.equal('transparent');
      const buf = await download(a.body.image_url);
      const { data, info } = await sharp(buf).raw().toBuffer({ resolveWithObject: true });
      expect(info.channels).to.equal(4);
      expect(info.width).to.equal(800);
      const [paint, coverage, shadow] = await Promise.all([grey('side_left', 'paint'), grey('side_left', 'coverage'), grey('side_left', 'shadow')]);
      let body = 0, bodyOpaque = 0, empty = 0, emptyClear = 0, under = 0, underPartial = 0, glass = 0, glassMatch = 0;
      for (let i = 0; i < paint.length; i++) {
        const alpha = data[i * 4 + 3]!;
        if (paint[i] === 255) {
          body++;
          if (alpha === 255) bodyOpaque++;
        } else if (coverage[i] === 0 && shadow[i] === 0) {
          empty++;
          if (alpha === 0) emptyClear++;
        } else if (coverage[i] === 0 && shadow[i]! > 40) {
          under++;
          if (alpha > 0 && alpha < 255 && Math.abs(alpha - shadow[i]!) <= 2) underPartial++;
        } else if (coverage[i]! > 60 && coverage[i]! < 200 && paint[i] === 0 && shadow[i] === 0) {
          glass++;
          if (Math.abs(alpha - coverage[i]!) <= 2) glassMatch++;
        }
      }
      expect(body).to.be.greaterThan(10_000);
      expect(bodyOpaque / body, 'car opaque').to.be.above(0.999);
      expect(emptyClear / empty, 'backdrop transparent').to.equal(1);
      expect(under, 'shadow pixels').to.be.greaterThan(1000);
      expect(underPartial / under, 'shadow = its opacity').to.be.above(0.99);
      expect(glass, 'glass pixels').to.be.greaterThan(1000);
      expect(glassMatch / glass, 'glass alpha = its coverage').to.be.above(0.99);
    });

    it('without the shadow the floor is wholly transparent; the car is unchanged', async () => {
      const on = await download((await json('background=transparent&format=png&width=800&shadow=true', 'side_left')).body.image_url);
      const off = await download((await json('background=transparent&format=png&width=800&shadow=false', 'side_left')).body.image_url);
      const a = await sharp(on).raw().toBuffer();
      const b = await sharp(off).raw().toBuffer();
      const [paint, coverage] = await Promise.all([grey('side_left', 'paint'), grey('side_left', 'coverage')]);
      let floorVisible = 0;
      for (let i = 0; i < paint.length; i++) {
        if (coverage[i] === 0 && b[i * 4 + 3] !== 0) floorVisible++;
        if (paint[i] === 255) expect(a.subarray(i * 4, i * 4 + 4)).to.deep.equal(b.subarray(i * 4, i * 4 + 4));
      }
      expect(floorVisible).to.equal(0);
    });

    it('glass shows the page behind: un-mixed from the backdrop, darker than it, where the cabin is not', async () => {
      const t = await download((await json('background=transparent&format=png&width=800&shadow=false', 'side_left')).body.image_url);
      const s = await download((await json('format=png&width=800&shadow=false', 'side_left')).body.image_url);
      const a = await sharp(t).raw().toBuffer();
      const b = await sharp(s).raw().toBuffer();
      const coverage = await grey('side_left', 'coverage');
      const paint = await grey('side_left', 'paint');
      let n = 0;
      let darker = 0;
      for (let i = 0; i < coverage.length; i++) {
        if (paint[i] !== 0 || coverage[i]! < 100 || coverage[i]! > 180) continue;
        n++;
        // the studio picture mixes the pane with the light backdrop; the cut-out keeps only the pane
        if (a[i * 4]! < b[i * 3]! - 20) darker++;
      }
      expect(n).to.be.greaterThan(500);
      expect(darker / n).to.be.above(0.95);
    });

    it('webp keeps the alpha channel; the studio default has none; URLs and ETags differ', async () => {
      const tj = await json('background=transparent&format=webp&width=400');
      const sj = await json('format=webp&width=400');
      expect(tj.body.image_url).to.not.equal(sj.body.image_url);
      expect(sj.body.options).to.not.have.property('background');
      const tr = await fetch(local(tj.body.image_url));
      const sr = await fetch(local(sj.body.image_url));
      expect(tr.headers.get('etag')).to.not.equal(sr.headers.get('etag'));
      expect((await sharp(Buffer.from(await tr.arrayBuffer())).metadata()).hasAlpha).to.equal(true);
      expect((await sharp(Buffer.from(await sr.arrayBuffer())).metadata()).hasAlpha).to.equal(false);
    });

    it('accepts the value in any letter case and an explicit studio', async () => {
      expect((await json('background=TRANSPARENT&format=png')).status).to.equal(200);
      expect((await json('background=studio&format=jpeg')).status).to.equal(200);
    });
  });

  describe('error', () => {
    it('jpeg has no alpha: 400 naming the formats that have one', async () => {
      const a = await json('background=transparent&format=jpeg');
      expect(a.status).to.equal(400);
      expect(a.body).to.have.all.keys('error', 'message');
      expect(a.body.error).to.equal('bad_request');
      expect(a.body.message).to.match(/webp/).and.match(/png/);
    });

    it('an unknown background or one given twice: 400', async () => {
      for (const q of ['background=green', 'background=transparent&background=studio', 'background=']) {
        const a = await json(`${q}&format=png`);
        expect(a.status, q).to.equal(400);
        expect(a.body).to.have.all.keys('error', 'message');
      }
    });

    it('a view whose set has no coverage: a clear 400, never a picture', async () => {
      const rows = await gw.db.query<{ vehicle_id: string }>(
        `UPDATE vehicle_views SET transparent = false WHERE view = 'rear' AND asset_set = 'synthetic' RETURNING vehicle_id`,
      );
      expect(rows.length).to.be.greaterThan(0);
      try {
        const a = await json('background=transparent&format=png', 'rear');
        expect(a.status).to.equal(400);
        expect(a.body).to.deep.equal({ error: 'bad_request', message: 'Invalid background: transparent is not available for this view' });
        expect((await json('format=png', 'rear')).status).to.equal(200);
      } finally {
        await gw.db.query(`UPDATE vehicle_views SET transparent = true WHERE view = 'rear' AND asset_set = 'synthetic'`);
      }
    });
  });

  describe('security', () => {
    it('the background is part of the signature: adding it to a studio URL by hand is refused', async () => {
      const url = (await json('format=png&width=300')).body.image_url as string;
      const file = url.split('/images/')[1]!;
      const [h, p, s] = file.slice(0, file.lastIndexOf('.')).split('.');
      const payload = JSON.parse(Buffer.from(p!, 'base64url').toString('utf8')) as Record<string, unknown>;
      payload.bg = 't';
      const forged = `${url.split('/images/')[0]}/images/${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${s}.png`;
      const res = await fetch(local(forged));
      expect(res.status).to.equal(401);
      expect(Object.keys((await res.json()) as object).sort()).to.deep.equal(['error', 'message']);
    });
  });
});
