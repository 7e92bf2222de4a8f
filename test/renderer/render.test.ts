import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import sharp from 'sharp';
import { ServiceError } from '../../shared/errors.ts';
import { NAMED_COLORS } from '../../shared/colors.ts';
import { renderGrpcObject } from '../../shared/render-contract.ts';
import { VIEW_IDS } from '../../shared/views.ts';
import { hueDistance, linearToOklab, oklabLch, srgb8ToOklab } from '../support/color/oklab.ts';
import { hexToLinear, srgbToLinear } from '../../shared/color/srgb.ts';
import type { RenderRequest } from '../../shared/render-request.ts';
import { resizeKernel } from '../../renderer/encode/encode.ts';
import { TEST_SET, TEST_WIDTH, decode, renderBytes, req, startTestServer, type TestServer } from './helpers.ts';

async function expectCode(p: Promise<unknown>, code: string): Promise<ServiceError> {
  try {
    await p;
  } catch (e) {
    expect(e).to.be.instanceOf(ServiceError);
    expect((e as ServiceError).code, (e as Error).message).to.equal(code);
    return e as ServiceError;
  }
  throw new Error(`expected ${code}, got success`);
}

describe('renderer gRPC service (cpu backend)', function () {
  this.timeout(60_000);
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.close();
  });

  it('answers health SERVING (overall and for the render service)', async () => {
    expect(await s.client.health()).to.equal(true);
    const { Health } = renderGrpcObject();
    const h = new (Health as unknown as new (a: string, c: grpc.ChannelCredentials) => grpc.Client & {
      Check(r: unknown, cb: (e: unknown, r: { status: string }) => void): void;
    })(`127.0.0.1:${s.port}`, grpc.credentials.createInsecure());
    const st = await new Promise<string>((res, rej) =>
      h.Check({ service: 'vehicle.render.v1.RenderService' }, (e, r) => (e ? rej(e) : res(r.status))),
    );
    h.close();
    expect(st).to.equal('SERVING');
  });

  it('describes a set: nine views, sizes, shadow and plate quads', async () => {
    const d = await s.client.describeSet(TEST_SET);
    expect(d.id).to.equal(TEST_SET);
    expect(d.revision).to.equal('t1');
    expect(Object.keys(d.views).sort()).to.deep.equal([...VIEW_IDS].sort());
    expect(d.views.top_down.shadow).to.equal(false);
    expect(d.views.front.shadow).to.equal(true);
    expect(d.views.side_left.plateQuad).to.equal(null);
    expect(d.views.front.plateQuad).to.have.length(4);
    expect(d.views.front.width).to.equal(TEST_WIDTH);
    await expectCode(s.client.describeSet('nope'), 'not_found');
  });

  it('gives exactly the requested width, the view aspect, and the requested format', async () => {
    for (const [format, width] of [
      ['png', 200],
      ['webp', 333],
      ['jpeg', 517],
      ['webp', 640],
    ] as const) {
      const { header, bytes, chunks } = await renderBytes(s.client, req({ format, width, view: 'front_left' }));
      const img = await decode(bytes);
      expect(img.format).to.equal(format);
      expect(img.width).to.equal(width);
      expect(img.height).to.equal(Math.round((width * 270) / 480));
      expect(header).to.include({ contentType: `image/${format}`, width, height: img.height, byteLength: bytes.length });
      expect(header.etag).to.match(/^"[A-Za-z0-9_-]{32}"$/);
      for (const c of chunks) expect(c).to.be.at.most(65536);
    }
  });

  it('streams big pictures in chunks of at most 64 KiB', async () => {
    const { bytes, chunks } = await renderBytes(s.client, req({ format: 'png', width: 2400, view: 'front' }));
    expect(bytes.length).to.be.greaterThan(65536);
    expect(chunks.length).to.be.greaterThan(1);
    for (const c of chunks) expect(c).to.be.at.most(65536);
    expect((await decode(bytes)).width).to.equal(2400);
  });

  it('recolours the paint region: Oklab hue and chroma of the requested colour, form kept, no clipping', async () => {
    const layers = await s.internals.store.levelFor(await s.internals.store.getSet(TEST_SET), 'side_left', TEST_WIDTH);
    const full: number[] = [];
    for (let i = 0; i < layers.paint.length; i++) if (layers.paint[i] === 255) full.push(i);
    expect(full.length).to.be.greaterThan(5000);
    for (const [name, hex] of Object.entries(NAMED_COLORS)) {
      const { bytes } = await renderBytes(s.client, req({ color: hex }));
      const { data } = await decode(bytes);
      let la = 0;
      let aa = 0;
      let ba = 0;
      let lmin = Infinity;
      let lmax = -Infinity;
      let clipped = 0;
      for (const i of full) {
        const [L, a, b] = srgb8ToOklab(data[i * 3]!, data[i * 3 + 1]!, data[i * 3 + 2]!);
        la += L;
        aa += a;
        ba += b;
        lmin = Math.min(lmin, L);
        lmax = Math.max(lmax, L);
        if (data[i * 3] === 255 && data[i * 3 + 1] === 255 && data[i * 3 + 2] === 255) clipped++;
      }
      const mean = oklabLch([la / full.length, aa / full.length, ba / full.length]);
      const want = oklabLch(linearToOklab(...hexToLinear(hex)));
      if (want.C > 0.05) {
        expect(hueDistance(mean.h, want.h), `${name} hue ${mean.h.toFixed(1)} vs ${want.h.toFixed(1)}`).to.be.below(8);
        expect(mean.C / want.C, `${name} chroma ${mean.C.toFixed(3)} vs ${want.C.toFixed(3)}`).to.be.within(0.45, 1.25);
      } else {
        expect(mean.C, `${name} stays neutral`).to.be.below(0.02);
      }
      // the body's form and its reflections show even on black; white does not clip
      expect(lmax - lmin, `${name} keeps form`).to.be.greaterThan(0.12);
      expect(clipped / full.length, `${name} clipped share`).to.be.below(0.01);
    }
  });

  it('leaves the studio background unchanged and applies the shadow only when asked', async () => {
    const set = await s.internals.store.getSet(TEST_SET);
    const layers = await s.internals.store.levelFor(set, 'front', TEST_WIDTH);
    const off = await decode((await renderBytes(s.client, req({ view: 'front', shadow: false, color: '#1E4B8C' }))).bytes);
    const on = await decode((await renderBytes(s.client, req({ view: 'front', shadow: true, color: '#1E4B8C' }))).bytes);
    let outside = 0;
    let shadowPx = 0;
    let darker = 0;
    let changedOff = 0;
    let changedOn = 0;
    for (let i = 0; i < layers.paint.length; i++) {
      if (layers.paint[i] !== 0) continue;
      for (let c = 0; c < 3; c++) if (off.data[i * 3 + c] !== layers.base[i * 3 + c]) changedOff++;
      outside++;
      const sh = layers.shadow![i]!;
      if (sh === 0) {
        for (let c = 0; c < 3; c++) if (on.data[i * 3 + c] !== layers.base[i * 3 + c]) changedOn++;
      } else if (sh > 60) {
        shadowPx++;
        const expected = srgbToLinear(layers.base[i * 3 + 1]! / 255) * (1 - sh / 255);
        const got = srgbToLinear(on.data[i * 3 + 1]! / 255);
        if (Math.abs(got - expected) < 0.01) darker++;
      }
    }
    expect(changedOff, 'background pixels changed without shadow').to.equal(0);
    expect(changedOn, 'unshadowed background pixels changed with shadow').to.equal(0);
    expect(outside).to.be.greaterThan(50_000);
    expect(shadowPx).to.be.greaterThan(500);
    expect(darker).to.equal(shadowPx);
  });

  it('warns SHADOW_UNAVAILABLE and PLATE_UNMAPPED where the view lacks them', async () => {
    const a = await renderBytes(s.client, req({ view: 'top_down', shadow: true }));
    expect(a.header.warnings).to.deep.equal(['SHADOW_UNAVAILABLE']);
    const b = await renderBytes(s.client, req({ view: 'side_left', plate: 'AB 123' }));
    expect(b.header.warnings).to.deep.equal(['PLATE_UNMAPPED']);
    const c = await renderBytes(s.client, req({ view: 'front', shadow: true, plate: 'AB 123' }));
    expect(c.header.warnings).to.deep.equal([]);
  });

  it('draws the plate text into the plate quad only, and it changes with the text', async () => {
    const d = await s.client.describeSet(TEST_SET);
    for (const view of ['front', 'front_left', 'rear_right'] as const) {
      const quad = d.views[view].plateQuad!;
      const xs = quad.map((p) => p[0]);
      const ys = quad.map((p) => p[1]);
      const [x0, x1, y0, y1] = [Math.min(...xs) - 3, Math.max(...xs) + 3, Math.min(...ys) - 3, Math.max(...ys) + 3];
      const none = await decode((await renderBytes(s.client, req({ view }))).bytes);
      const a = await decode((await renderBytes(s.client, req({ view, plate: 'AB 123' }))).bytes);
      const b = await decode((await renderBytes(s.client, req({ view, plate: 'XY-9876' }))).bytes);
      let inA = 0;
      let inB = 0;
      let n = 0;
      let outsideChanged = 0;
      for (let y = 0; y < none.height; y++) {
        for (let x = 0; x < none.width; x++) {
          const i = (y * none.width + x) * 3;
          const inside = x >= x0 && x <= x1 && y >= y0 && y <= y1;
          for (let c = 0; c < 3; c++) {
            if (!inside) {
              if (a.data[i + c] !== none.data[i + c]) outsideChanged++;
            } else {
              inA += Math.abs(a.data[i + c]! - none.data[i + c]!);
              inB += Math.abs(a.data[i + c]! - b.data[i + c]!);
              n++;
            }
          }
        }
      }
      expect(outsideChanged, `${view}: pixels changed outside the plate quad`).to.equal(0);
      expect(inA / n, `${view}: plate drawn`).to.be.greaterThan(20);
      expect(inB / n, `${view}: text changes the plate`).to.be.greaterThan(8);
    }
  });

  it('gives the same bytes and ETag for the same request, a new ETag for another', async () => {
    const r = req({ view: 'rear', format: 'webp', plate: 'K 42', shadow: true });
    const a = await renderBytes(s.client, r);
    s.internals.service.clearRenderCache();
    const b = await renderBytes(s.client, r);
    expect(b.bytes.equals(a.bytes)).to.equal(true);
    expect(b.header.etag).to.equal(a.header.etag);
    const c = await renderBytes(s.client, { ...r, color: '#2E7D32' });
    expect(c.header.etag).to.not.equal(a.header.etag);
  });

  it('renders concurrent identical requests once (single flight) and then serves them from the cache', async () => {
    s.internals.service.clearRenderCache();
    const before = s.internals.service.cacheStats().renders.entries;
    const r = req({ view: 'rear_left', width: 700, color: '#E85D04' });
    const all = await Promise.all([1, 2, 3, 4].map(() => renderBytes(s.client, r)));
    for (const x of all) expect(x.bytes.equals(all[0]!.bytes)).to.equal(true);
    expect(s.internals.service.cacheStats().renders.entries).to.equal(before + 1);
    const t0 = performance.now();
    await renderBytes(s.client, r);
    expect(performance.now() - t0).to.be.below(200);
  });

  it('maps bad options to INVALID_ARGUMENT and unknown sets or views to NOT_FOUND', async () => {
    await expectCode(s.client.render(req({ assetSet: 'nope' }), { deadlineMs: 5000 }), 'not_found');
    await expectCode(s.client.render(req({ assetSet: 'twoviews', view: 'rear' }), { deadlineMs: 5000 }), 'not_found');
    await expectCode(s.client.render(req({ view: 'bonnet' as never }), { deadlineMs: 5000 }), 'not_found');
    await expectCode(s.client.render(req({ color: 'red' }), { deadlineMs: 5000 }), 'bad_request');
    await expectCode(s.client.render(req({ width: 199 }), { deadlineMs: 5000 }), 'bad_request');
    await expectCode(s.client.render(req({ width: 2401 }), { deadlineMs: 5000 }), 'bad_request');
    await expectCode(s.client.render(req({ plate: 'AB$1' }), { deadlineMs: 5000 }), 'bad_request');
    await expectCode(s.client.render(req({ plate: '' }), { deadlineMs: 5000 }), 'bad_request');
    await expectCode(s.client.render(req({ assetSet: '../etc' }), { deadlineMs: 5000 }), 'bad_request');
    await expectCode(s.client.render(req({ format: 'gif' as never }), { deadlineMs: 5000 }), 'bad_request');
    // transparent needs an alpha format and a coverage layer
    await expectCode(s.client.render(req({ format: 'jpeg', background: 'transparent' }), { deadlineMs: 5000 }), 'bad_request');
    await expectCode(s.client.render(req({ assetSet: 'twoviews', view: 'front', background: 'transparent' }), { deadlineMs: 5000 }), 'bad_request');
    // a raw call with no format at all
    const { RenderService } = renderGrpcObject();
    const raw = new (RenderService as unknown as new (a: string, c: grpc.ChannelCredentials) => grpc.Client & {
      Render(r: unknown): grpc.ClientReadableStream<unknown>;
    })(`127.0.0.1:${s.port}`, grpc.credentials.createInsecure());
    const code = await new Promise<number>((resolve) => {
      const call = raw.Render({ asset_set: TEST_SET, view: 'front', color: '#FFFFFF', width: 400 });
      call.on('data', () => undefined);
      call.on('error', (e: grpc.ServiceError) => resolve(e.code));
      call.on('end', () => resolve(0));
    });
    raw.close();
    expect(code).to.equal(grpc.status.INVALID_ARGUMENT);
  });

  it('renders a transparent background as straight alpha: opaque car, clear backdrop, shadow as opacity', async () => {
    const set = await s.internals.store.getSet(TEST_SET);
    const layers = await s.internals.store.levelFor(set, 'side_left', TEST_WIDTH);
    const { bytes } = await renderBytes(s.client, req({ background: 'transparent', shadow: true }));
    const { data, info } = await sharp(bytes).raw().toBuffer({ resolveWithObject: true });
    expect(info.channels).to.equal(4);
    let car = 0;
    let clear = 0;
    let shade = 0;
    for (let i = 0; i < layers.paint.length; i++) {
      const a = data[i * 4 + 3]!;
      if (layers.coverage![i] === 255) car += a === 255 ? 1 : 0;
      else if (layers.coverage![i] === 0 && layers.shadow![i] === 0) clear += a === 0 ? 1 : 0;
      else if (layers.coverage![i] === 0 && layers.shadow![i]! > 40) shade += Math.abs(a - layers.shadow![i]!) <= 2 ? 1 : 0;
    }
    expect(car).to.be.greaterThan(5000);
    expect(clear).to.be.greaterThan(5000);
    expect(shade).to.be.greaterThan(500);
  });

  it('maps a passed deadline to DEADLINE_EXCEEDED', async () => {
    await expectCode(s.client.render(req({ view: 'rear_right', width: 2399, color: '#123456' }), { deadlineMs: 1 }), 'deadline_exceeded');
  });

  it('a width between levels is resized without ringing: no pixel outside its source neighbourhood, no alpha specks', async () => {
    // 280 px comes from the 320 px level (the test set: 480, 320, 240)
    const rgba = async (over: Partial<RenderRequest>) => {
      const { data, info } = await sharp((await renderBytes(s.client, req({ view: 'front_left', shadow: true, plate: null, color: '#111111', ...over }))).bytes)
        .ensureAlpha()
        .raw()
        .toBuffer({ resolveWithObject: true });
      return { data, width: info.width, height: info.height };
    };
    for (const background of ['studio', 'transparent'] as const) {
      const level = await rgba({ width: 320, background });
      const out = await rgba({ width: 280, background });
      expect([level.width, out.width]).to.deep.equal([320, 280]);
      const fx = level.width / out.width;
      const fy = level.height / out.height;
      let over = 0;
      let specks = 0;
      for (let y = 0; y < out.height; y++) {
        for (let x = 0; x < out.width; x++) {
          const x0 = Math.max(0, Math.floor(x * fx) - 1), x1 = Math.min(level.width - 1, Math.ceil((x + 1) * fx));
          const y0 = Math.max(0, Math.floor(y * fy) - 1), y1 = Math.min(level.height - 1, Math.ceil((y + 1) * fy));
          for (let c = 0; c < 4; c++) {
            let lo = 255;
            let hi = 0;
            // colour compared premultiplied, as it is resized: a nearly clear pixel's straight colour is
            // its premultiplied one divided by a small alpha, rounding and all
            const at = (d: Buffer, k: number) => (c === 3 ? d[k + 3]! : (d[k + c]! * d[k + 3]!) / 255);
            for (let j = y0; j <= y1; j++) {
              for (let i = x0; i <= x1; i++) {
                const v = at(level.data, (j * level.width + i) * 4);
                lo = Math.min(lo, v);
                hi = Math.max(hi, v);
              }
            }
            const v = at(out.data, (y * out.width + x) * 4);
            if (v > hi + 2 || v < lo - 2) over++;
            if (c === 3 && hi === 0 && v > 0) specks++;
          }
        }
      }
      expect(over, `${background}: values outside their neighbourhood (Lanczos-3 rang here)`).to.equal(0);
      // a level of the output's width, a row taller (levels and outputs round their heights apart), is no enlargement
      expect([resizeKernel(320, 280), resizeKernel(200, 200), resizeKernel(480, 1000)]).to.deep.equal(['linear', 'linear', 'mitchell']);
      expect(specks, `${background}: alpha where the level had none`).to.equal(0);
    }
  });

  it('is as sharp and alias-free at 200 px as a Lanczos downscale of the full-size render', async () => {
    const big = await decode((await renderBytes(s.client, req({ view: 'front_left', width: 2400, plate: null, shadow: true }))).bytes);
    const ref = await sharp(big.data, { raw: { width: big.width, height: big.height, channels: 3 } })
      .resize(200, Math.round((200 * 270) / 480), { kernel: 'lanczos3', fit: 'fill' })
      .raw()
      .toBuffer();
    const small = await decode((await renderBytes(s.client, req({ view: 'front_left', width: 200, plate: null, shadow: true }))).bytes);
    expect(psnr(small.data, ref)).to.be.greaterThan(32);
  });
});

function psnr(a: Uint8Array, b: Uint8Array): number {
  let se = 0;
  for (let i = 0; i < a.length; i++) se += (a[i]! - b[i]!) ** 2;
  return 10 * Math.log10((255 * 255) / (se / a.length));
}
