/**
 * Framing (renderer/pipeline/steps/04-frame.ts, shared/framing.ts) on a committed baked set, over gRPC,
 * measured on decoded pictures: `fit` puts every view's vehicle at the same share of the frame and its
 * ground line at the same height; the layout computed from DescribeSet's boxes with the shared geometry
 * matches the non-transparent pixels; the default framing is today's picture, byte for byte and ETag
 * for ETag.
 */
import { expect } from 'chai';
import crypto from 'node:crypto';
import path from 'node:path';
import sharp from 'sharp';
import { frameGeometry, layoutOf, type FramingOptions } from '../../shared/framing.ts';
import type { SetDescription } from '../../shared/render-contract.ts';
import { VIEW_IDS } from '../../shared/views.ts';
import { ENCODER_TAG } from '../../renderer/encode/encode.ts';
import { renderBytes, startTestServer, type TestServer } from './helpers.ts';
import { alphaEdges } from '../support/alpha-box.ts';

/** The bounding box of the pixels with any alpha, as a box. */
async function alphaBox(bytes: Buffer) {
  const { width, height, edges: [x0, y0, x1, y1] } = await alphaEdges(bytes);
  return { width, height, box: { x: x0, y: y0, width: x1 - x0, height: y1 - y0 } };
}

const SET = 'sedan-a';
const WIDTH = 800;
const FIT: FramingOptions = { framing: 'fit', margin: 5, aspect: '16:9' };

/** A box's edges: left, top, right, bottom (what "within 2 px" is measured on). */
const edges = (b: { x: number; y: number; width: number; height: number }) => [b.x, b.y, b.x + b.width, b.y + b.height];


describe('framing (renderer, committed set)', function () {
  this.timeout(120_000);
  let srv: TestServer;
  let described: SetDescription;

  before(async () => {
    srv = await startTestServer({ assetsDir: path.resolve('assets') });
    described = await srv.client.describeSet(SET);
  });
  after(async () => srv?.close());

  const render = (view: (typeof VIEW_IDS)[number], over: Record<string, unknown> = {}) =>
    renderBytes(srv.client, { assetSet: SET, view, color: '#1E4B8C', shadow: false, plate: null, format: 'png', width: WIDTH, background: 'transparent', ...over }, 60_000);

  it('DescribeSet gives every view its vehicle box and ground line (the box bottom)', () => {
    for (const v of VIEW_IDS) {
      const d = described.views[v];
      expect(d.vehicleBox, v).to.not.equal(null);
      expect(d.groundY, v).to.equal(d.vehicleBox!.y + d.vehicleBox!.height);
      expect(d.vehicleBox!.width, v).to.be.within(100, d.width);
    }
  });

  it('fit: the limiting side is the same share of the frame in all nine views, the ground line at the same height, and the layout is the picture', async () => {
    const rows: string[] = [];
    for (const v of VIEW_IDS) {
      const { header, bytes } = await render(v, { frame: FIT });
      expect([header.width, header.height]).to.deep.equal([WIDTH, 450]);
      const got = await alphaBox(bytes);
      const share = Math.max(got.box.width / got.width, got.box.height / got.height);
      const ground = (got.box.y + got.box.height) / got.height;
      rows.push(`${v} share ${(share * 100).toFixed(1)} % ground ${(ground * 100).toFixed(1)} %`);
      // 1 − 2 × 5 % margin; the ground line on the bottom margin (top_down: centred instead)
      expect(Math.abs(share - 0.9), `${v} share ${share}`).to.be.at.most(0.9 * 0.02);
      if (v === 'top_down') {
        expect(Math.abs(got.box.y + got.box.height / 2 - got.height / 2), `${v} centred`).to.be.at.most(2);
      } else {
        expect(Math.abs(ground - 0.95), `${v} ground ${ground}`).to.be.at.most(0.01);
      }
      const d = described.views[v];
      const layout = layoutOf(frameGeometry(d, v, d.vehicleBox!, WIDTH, FIT), v, d.vehicleBox!, d.groundY!, null);
      const [want, seen] = [edges(layout.vehicle_box), edges(got.box)];
      for (let i = 0; i < 4; i++) expect(Math.abs(want[i]! - seen[i]!), `${v} layout ${want} vs picture ${seen}`).to.be.at.most(2);
      if (v === 'top_down') expect(layout.ground_y).to.equal(null);
      else expect(Math.abs(layout.ground_y! - (got.box.y + got.box.height))).to.be.at.most(2);
    }
    console.log(`      ${rows.join('\n      ')}`);
  });

  it('the layout matches the picture for studio framing at other aspects and margins too', async () => {
    for (const [v, frame] of [
      ['side_left', { framing: 'studio', margin: 5, aspect: '1:1' }],
      ['front', { framing: 'fit', margin: 20, aspect: '4:3' }],
      ['top_down', { framing: 'fit', margin: 0, aspect: '2:1' }],
      ['rear_left', { framing: 'studio', margin: 5, aspect: '16:9' }],
    ] as const) {
      const { header, bytes } = await render(v, { frame, width: 600 });
      const got = await alphaBox(bytes);
      const d = described.views[v];
      const g = frameGeometry(d, v, d.vehicleBox!, 600, frame);
      expect([header.width, header.height], `${v} ${frame.aspect}`).to.deep.equal([g.width, g.height]);
      const layout = layoutOf(g, v, d.vehicleBox!, d.groundY!, null);
      const [want, seen] = [edges(layout.vehicle_box), edges(got.box)];
      for (let i = 0; i < 4; i++) expect(Math.abs(want[i]! - seen[i]!), `${v} ${frame.framing} ${frame.aspect}: layout ${want} vs picture ${seen}`).to.be.at.most(2);
    }
  });

  it('studio at the default aspect is today\'s picture: the same bytes and the same ETag as a request without framing', async () => {
    const plain = await render('front_left', { background: 'studio', shadow: true, frame: undefined });
    const framed = await render('front_left', { background: 'studio', shadow: true, frame: { framing: 'studio', margin: 30, aspect: '16:9' } });
    expect(framed.bytes.equals(plain.bytes)).to.equal(true);
    expect(framed.header.etag).to.equal(plain.header.etag);
    // the key the ETag hashed before framing existed (render-service.ts renderKey)
    const key = JSON.stringify(['v1', SET, described.revision, 'front_left', '#1E4B8C', true, null, 'png', WIDTH, 'studio', 'cpu', ENCODER_TAG]);
    expect(plain.header.etag).to.equal(`"${crypto.hash('sha256', key, 'base64url').slice(0, 32)}"`);
    const fit = await render('front_left', { background: 'studio', shadow: true, frame: FIT });
    expect(fit.header.etag).to.not.equal(plain.header.etag);
  });

  it('the default keeps a shot\'s own aspect when it is not 16:9 (a photographed set at 4:3): no letterbox, the height as before framing', () => {
    const view = { width: 1600, height: 1200 };
    const g = frameGeometry(view, 'front_left', null, 800, { framing: 'studio', margin: 5, aspect: '16:9' });
    expect([g.width, g.height, g.wholeShot]).to.deep.equal([800, 600, true]);
    // an aspect asked for is the frame's, the shot fitted inside it
    const wide = frameGeometry(view, 'front_left', null, 800, { framing: 'studio', margin: 5, aspect: '2:1' });
    expect([wide.width, wide.height, wide.wholeShot]).to.deep.equal([800, 400, false]);
  });

  it('studio at 1:1 is the shot with the backdrop continued above and below it, without a seam', async () => {
    const plain = await sharp((await render('side_left', { background: 'studio', frame: undefined })).bytes).raw().toBuffer();
    const square = await sharp((await render('side_left', { background: 'studio', frame: { framing: 'studio', margin: 5, aspect: '1:1' } })).bytes).raw().toBuffer();
    const top = (800 - 450) / 2; // 175
    expect(square.length).to.equal(800 * 800 * 3);
    // the shot's rows are the default picture's (an 800 px level needs no resize either way)
    expect(square.subarray(top * 800 * 3, (top + 450) * 800 * 3).equals(plain)).to.equal(true);
    // across the shot's first and last rows the backdrop steps as it does inside the shot (≤ 1 code a row)
    for (const y of [top, top + 450]) {
      for (const x of [5, 400, 794]) {
        const a = square[((y - 1) * 800 + x) * 3]!;
        const b = square[(y * 800 + x) * 3]!;
        expect(Math.abs(a - b), `row ${y} column ${x}: ${a} → ${b}`).to.be.at.most(1);
      }
    }
    // and it keeps its direction: lighter towards the top, darker towards the floor
    expect(square[0]!).to.be.at.least(square[top * 800 * 3]!);
    expect(square[(799 * 800) * 3]!).to.be.at.most(square[((top + 449) * 800) * 3]!);
  });

  it('a bad margin or aspect is INVALID_ARGUMENT naming it (the framing is an enum on the wire)', async () => {
    for (const [frame, message] of [
      [{ framing: 'fit', margin: 41 }, 'Invalid margin'],
      [{ framing: 'fit', aspect: '5:4' }, 'Invalid aspect'],
    ] as const) {
      const err = await render('front', { frame }).then(
        () => null,
        (e: Error & { code?: string }) => e,
      );
      expect(err?.code).to.equal('bad_request');
      expect(err?.message).to.contain(message);
    }
  });
});
