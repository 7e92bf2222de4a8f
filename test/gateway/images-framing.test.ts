/**
 * framing, margin, aspect and the layout metadata end to end: image JSON and batch → signed URL →
 * gateway → gRPC → renderer, on the test catalog's committed synthetic set. The layout is computed in
 * the gateway from DescribeSet's vehicle boxes, without decoding anything; here it is checked against
 * the decoded picture's non-transparent pixels.
 */
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { imageEtag } from '../../gateway/http/routes/images.ts';
import { backendLabel } from './support/backend.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';
import { startTestRenderer, type TestRenderer } from '../support/test-renderer.ts';
import { alphaEdges } from '../support/alpha-box.ts';

const SINGLE = '/v1/makes/aurelia/models/vento/2023';


describe(`image framing and layout (${backendLabel()})`, function () {
  this.timeout(60_000);
  let gw: TestGateway;
  let renderer: TestRenderer;
  let key: string;
  let vehicleId: string;
  const local = (u: string) => u.replace('http://localhost:', 'http://127.0.0.1:');

  before(async () => {
    renderer = await startTestRenderer();
    gw = await startTestGateway({ renderer: renderer.client });
    key = (await gw.admin.customer()).key;
    vehicleId = (await gw.getWithKey(key, `${SINGLE}/front`)).body.vehicle.id;
  });
  after(async () => {
    await gw?.close();
    await renderer?.close();
  });

  const json = (q: string, view = 'front_left') => gw.getWithKey(key, `${SINGLE}/${view}?${q}`);
  const download = async (url: string) => {
    const res = await fetch(local(url));
    expect(res.status, await res.clone().text().catch(() => '')).to.equal(200);
    return { bytes: Buffer.from(await res.arrayBuffer()), etag: res.headers.get('etag') };
  };

  it('every bad framing, margin or aspect is a 400 naming the parameter, on the single and the batch call', async () => {
    const cases: [string, string][] = [
      ['framing=zoom', 'Invalid framing: use studio or fit'],
      ['framing=', 'Invalid framing: use studio or fit'],
      ['margin=41', 'Invalid margin: use an integer percent from 0 to 40'],
      ['margin=-1', 'Invalid margin: use an integer percent from 0 to 40'],
      ['margin=5.5', 'Invalid margin: use an integer percent from 0 to 40'],
      ['margin=%205', 'Invalid margin: use an integer percent from 0 to 40'],
      ['aspect=5:4', 'Invalid aspect: use 16:9, 3:2, 4:3, 1:1, 2:1'],
      ['aspect=16x9', 'Invalid aspect: use 16:9, 3:2, 4:3, 1:1, 2:1'],
      ['framing=fit&framing=studio', 'Parameter framing must be given once'],
      ['aspect=1:1&aspect=1:1', 'Parameter aspect must be given once'],
    ];
    for (const [q, message] of cases) {
      for (const a of [await json(q), await gw.getWithKey(key, `/v1/vehicles/${vehicleId}/images?${q}`)]) {
        expect(a.status, q).to.equal(400);
        expect(a.body, q).to.deep.equal({ error: 'bad_request', message });
      }
    }
  });

  it('the default framing signs the URL and ETag of before; framing=studio&aspect=16:9 is the same picture, fit another', async () => {
    const plain = await json('format=png&width=800');
    const explicit = await json('format=png&width=800&framing=studio&aspect=16:9&margin=20');
    expect(explicit.body.image_url).to.equal(plain.body.image_url);
    expect(explicit.body.options).to.include({ framing: 'studio', aspect: '16:9', margin: 20 });
    expect(plain.body.options).to.not.have.any.keys('framing', 'aspect', 'margin');
    const a = await download(plain.body.image_url);
    // the ETag's canonical fields as they were before framing existed
    const payload = jwt.decode(plain.body.image_url.split('/images/')[1].replace(/\.png$/, '')) as jwt.JwtPayload;
    expect(payload).to.not.have.any.keys('fr', 'm', 'a');
    const old = imageEtag({ set: payload.s, revision: payload.r, view: payload.v, color: `#${payload.c}`, shadow: payload.sh === 1, plate: null, format: 'png', width: 800, background: 'studio' });
    expect(a.etag).to.equal(old);
    const fit = await json('format=png&width=800&framing=fit');
    expect(fit.body.image_url).to.not.equal(plain.body.image_url);
    expect((await download(fit.body.image_url)).etag).to.not.equal(old);
  });

  it('single and batch answers carry the layout, and it matches the decoded picture (transparent, fit and studio)', async () => {
    for (const q of ['framing=fit', 'framing=fit&margin=15&aspect=4:3', 'aspect=1:1', '']) {
      const b = await gw.getWithKey(key, `/v1/vehicles/${vehicleId}/images?background=transparent&format=png&shadow=false&width=640&${q}`);
      expect(b.status, q).to.equal(200);
      expect(b.body.images.length).to.equal(9);
      for (const img of b.body.images) {
        const layout = img.layout;
        expect(layout, `${img.view} ${q}`).to.be.an('object');
        const got = await alphaEdges((await download(img.image_url)).bytes);
        expect([got.width, got.height]).to.deep.equal([layout.width, layout.height]);
        const box = layout.vehicle_box;
        const want = [box.x, box.y, box.x + box.width, box.y + box.height];
        for (let i = 0; i < 4; i++) expect(Math.abs(want[i] - got.edges[i]!), `${img.view} ${q}: layout ${want} vs picture ${got.edges}`).to.be.at.most(2);
        if (img.view === 'top_down') expect(layout.ground_y).to.equal(null);
        else expect(layout.ground_y).to.equal(box.y + box.height);
        expect(layout.plate_quad).to.equal(null);
      }
    }
  });

  it('fit puts the ground line at the same height in every view; the plate quad is given where a plate is drawn', async () => {
    const b = await gw.getWithKey(key, `/v1/vehicles/${vehicleId}/images?framing=fit&margin=5&width=800&plate=B%20MW%201234`);
    for (const img of b.body.images) {
      if (img.view !== 'top_down') expect(img.layout.ground_y, img.view).to.equal(428); // ceil(0.95 × 450)
      const drawn = !img.warnings.some((w: { code: string }) => w.code === 'PLATE_UNMAPPED');
      if (drawn) {
        expect(img.layout.plate_quad, img.view).to.have.length(4);
        for (const [x, y] of img.layout.plate_quad) {
          expect(x).to.be.within(img.layout.vehicle_box.x - 1, img.layout.vehicle_box.x + img.layout.vehicle_box.width + 1);
          expect(y).to.be.within(img.layout.vehicle_box.y - 1, img.layout.vehicle_box.y + img.layout.vehicle_box.height + 1);
        }
      } else expect(img.layout.plate_quad, img.view).to.equal(null);
    }
    const single = await json('framing=fit&width=800', 'side_left');
    expect(single.body.layout.ground_y).to.equal(428);
  });

  it('a URL whose framing was changed after signing is refused like any tampering', async () => {
    const url: string = (await json('format=png&framing=fit&margin=10')).body.image_url;
    const file = url.split('/images/')[1]!;
    const [h, p, s] = file.replace(/\.png$/, '').split('.');
    const payload = JSON.parse(Buffer.from(p!, 'base64url').toString());
    expect(payload).to.include({ fr: 'fit', m: 10 });
    for (const forged of [{ ...payload, m: 0 }, { ...payload, a: '1:1' }, (({ fr: _fr, m: _m, ...rest }) => rest)(payload)]) {
      const body = Buffer.from(JSON.stringify(forged)).toString('base64url');
      const res = await fetch(`${gw.url}/images/${h}.${body}.${s}.png`);
      expect(res.status).to.equal(401);
      expect(await res.json()).to.deep.equal({ error: 'unauthorized', message: 'The image token is invalid' });
    }
  });
});
