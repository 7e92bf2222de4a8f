/**
 * Spin frames in the renderer (renderer/spin/, docs/spins.md), over real gRPC with a real frame-baker
 * child shooting on lavapipe: a small glTF car with its 3D source kept (test/support/spin-set.ts), its
 * frames baked on demand, cached on disk and in memory, single-flighted, measured on decoded pictures.
 */
import { expect } from 'chai';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { ServiceError } from '../../shared/errors.ts';
import { readSetMeta } from '../../shared/asset-format/read-set.ts';
import { spinFrameSetDir } from '../../shared/asset-format/spin-frames.ts';
import { frameGeometry, layoutOf } from '../../shared/framing.ts';
import type { RenderRequest } from '../../shared/render-request.ts';
import { connectRenderer, toServiceError } from '../../shared/render-contract.ts';
import { ALL_SPIN_YAWS, spinFitBox, spinYaws } from '../../shared/spin.ts';
import { frameId, type FrameId } from '../../shared/shot-id.ts';
import { spinFrameGeometry } from '../../baker/spin/geometry.ts';
import { alphaEdges } from '../support/alpha-box.ts';
import { eventually } from '../support/eventually.ts';
import { makeSyntheticSet } from '../support/make-synthetic-set.ts';
import { makeSpinSet } from '../support/spin-set.ts';
import { renderBytes, startTestServer, type TestServer } from './helpers.ts';

const WIDTH = 200;
/** The picture of a spin frame at 200 px comes from its 400 px bake, 400×225. */
const BAKE_WIDTH = 400;

describe('spin frames (renderer, baked on demand by the frame-baker child)', function () {
  this.timeout(600_000);
  let dir: string;
  let framesDir: string;
  let setId: string;
  let srv: TestServer;
  const SYNTHETIC = 'plainset';

  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'spin-test-'));
    framesDir = path.join(dir, 'frames');
    const assets = path.join(dir, 'assets');
    await fs.mkdir(assets);
    setId = path.basename(await makeSpinSet(assets));
    await makeSyntheticSet(path.join(assets, SYNTHETIC), { width: 320, revision: 't1', views: ['front', 'side_left'] });
    // one jittered render a pass: the frames are measured, not looked at, and lavapipe is slow
    srv = await startTestServer({ assetsDir: assets, spin: { framesDir, supersample: 1, queueMax: 64 } });
  });
  after(async () => {
    await srv?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  const frame = (yaw: number, over: Partial<RenderRequest> = {}): RenderRequest => ({
    assetSet: setId,
    view: frameId(yaw),
    color: '#B0302A',
    shadow: false,
    plate: null,
    format: 'png',
    width: WIDTH,
    background: 'transparent',
    ...over,
  });
  const stats = () => srv.internals.spin.stats();

  it('DescribeSet gives the spin set every yaw\'s geometry at 1600×900, and a set without a 3D source none', async () => {
    const d = await srv.client.describeSet(setId);
    expect(d.spin).to.not.equal(null);
    expect([d.spin!.width, d.spin!.height]).to.deep.equal([1600, 900]);
    expect([...d.spin!.frames.keys()]).to.deep.equal(Array.from({ length: 72 }, (_, i) => i * 5));
    for (const f of d.spin!.frames.values()) {
      expect(f.vehicleBox.width, `yaw ${f.yawDegrees}`).to.be.within(100, 1600);
      expect(f.groundY).to.equal(f.vehicleBox.y + f.vehicleBox.height);
    }
    expect(d.spin!.frames.get(0)!.plateQuad, 'front plate at yaw 0').to.have.length(4);
    expect(d.spin!.frames.get(90)!.plateQuad, 'no plate from the side').to.equal(null);
    expect((await srv.client.describeSet(SYNTHETIC)).spin).to.equal(null);
  });

  it('a 12-frame spin at 200 px: every frame decodes at its size, successive frames differ, the car is narrow at 0 and 180 and wide at 90 and 270', async () => {
    const widths = new Map<number, number>();
    let previous: Buffer | null = null;
    for (const yaw of spinYaws(12)) {
      const { header, bytes } = await renderBytes(srv.client, frame(yaw), 300_000);
      expect([header.width, header.height], `yaw ${yaw}`).to.deep.equal([WIDTH, 113]);
      const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      expect([info.width, info.height]).to.deep.equal([WIDTH, 113]);
      if (previous) expect(data.equals(previous), `yaw ${yaw} differs from the frame before`).to.equal(false);
      previous = data;
      const { edges } = await alphaEdges(bytes);
      widths.set(yaw, edges[2] - edges[0]);
      if (process.env.SPIN_TEST_PNG_DIR) await fs.writeFile(path.join(process.env.SPIN_TEST_PNG_DIR, `${frameId(yaw)}.png`), bytes);
    }
    const narrow = Math.max(widths.get(0)!, widths.get(180)!);
    const wide = Math.min(widths.get(90)!, widths.get(270)!);
    expect(wide, `silhouette widths ${JSON.stringify([...widths])}`).to.be.greaterThan(1.5 * narrow);
    expect(stats().baked).to.equal(12);
    // the frames are in the frame cache on disk, whole
    const files = await fs.readdir(spinFrameSetDir(framesDir, setId, (await srv.client.describeSet(setId)).revision, BAKE_WIDTH));
    expect(files.filter((f) => f.startsWith('yaw-')).sort()).to.deep.equal(spinYaws(12).map((y) => frameId(y)));
  });

  it('another colour, plate or format of a baked frame is a plain composite: no second bake', async () => {
    const before = stats().baked;
    for (const over of [{ color: '#1E4B8C' }, { color: '#2E8B57', plate: 'AB 123', background: 'studio' as const, format: 'jpeg' as const }]) {
      const { header } = await renderBytes(srv.client, frame(30, over), 60_000);
      expect(header.width).to.equal(WIDTH);
    }
    expect(stats().baked).to.equal(before);
  });

  it('20 parallel renders of one cold frame (20 colours: 20 pictures) bake it once', async () => {
    const before = stats();
    const colours = Array.from({ length: 20 }, (_, i) => `#${(0x103050 + i * 0x020406).toString(16).toUpperCase()}`);
    const got = await Promise.all(colours.map((color) => renderBytes(srv.client, frame(45, { color }), 300_000)));
    for (const g of got) expect(g.header.width).to.equal(WIDTH);
    expect(new Set(got.map((g) => g.header.etag)).size).to.equal(20);
    expect(stats().baked - before.baked).to.equal(1);
    expect(stats().failed).to.equal(before.failed);
  });

  it('the layout from the projected geometry is the picture: fit and studio framing, within 2 px of the alpha box', async () => {
    const meta = await readSetMeta(path.join(srv.config.assetsDir, setId));
    for (const [yaw, f] of [
      [90, { framing: 'fit', margin: 5, aspect: '16:9' }],
      [135, { framing: 'fit', margin: 10, aspect: '1:1' }],
      [30, { framing: 'studio', margin: 5, aspect: '16:9' }],
    ] as const) {
      const { header, bytes } = await renderBytes(srv.client, frame(yaw, { width: 400, frame: f }), 300_000);
      // the gateway's way: DescribeSet's geometry at 1600×900 through the shared framing functions,
      // framed on the box of the whole turn
      const g = spinFrameGeometry(meta.spin!, yaw, 1600, 900);
      const turn = spinFitBox(ALL_SPIN_YAWS.map((y) => spinFrameGeometry(meta.spin!, y, 1600, 900).box))!;
      const geo = frameGeometry({ width: 1600, height: 900 }, frameId(yaw) as FrameId, g.box, 400, f, turn);
      const layout = layoutOf(geo, frameId(yaw) as FrameId, g.box, g.groundY, g.plateQuad);
      expect([header.width, header.height]).to.deep.equal([layout.width, layout.height]);
      const { edges } = await alphaEdges(bytes);
      const b = layout.vehicle_box;
      const want = [b.x, b.y, b.x + b.width, b.y + b.height];
      for (let i = 0; i < 4; i++) expect(Math.abs(edges[i]! - want[i]!), `yaw ${yaw} ${f.framing} edge ${i}: picture ${edges} layout ${want}`).to.be.at.most(2);
    }
  });

  it('fit keeps the vehicle\'s size and floor as it turns: one scale for every frame, each frame\'s ground line on the margin, the widest frame filling the width less the margins', async () => {
    const f = { framing: 'fit', margin: 5, aspect: '16:9' } as const;
    const boxes = new Map<number, number[]>();
    for (const yaw of [0, 90, 180, 270]) {
      const { bytes } = await renderBytes(srv.client, frame(yaw, { width: 400, frame: f, shadow: false }), 300_000);
      boxes.set(yaw, (await alphaEdges(bytes)).edges);
    }
    const height = (e: number[]) => e[3]! - e[1]!;
    const width = (e: number[]) => e[2]! - e[0]!;
    // front and side: the same car at one scale is about as tall from both (a frame's own box gave 406 against 232 px)
    for (const yaw of [90, 180, 270]) {
      expect(height(boxes.get(yaw)!) / height(boxes.get(0)!), `height at ${yaw} against 0`).to.be.within(0.9, 1.1);
      expect(Math.abs(boxes.get(yaw)![3]! - boxes.get(0)![3]!), `floor at ${yaw} against 0 (px of 225)`).to.be.at.most(225 * 0.01 + 1);
    }
    // side on, the car is at its widest: the width less the two margins (5 % of 400 each), within 2 px
    expect(Math.abs(width(boxes.get(90)!) - 360)).to.be.at.most(3);
    expect(width(boxes.get(0)!)).to.be.lessThan(width(boxes.get(90)!) * 0.7);
  });

  it('a render whose deadline the bake outlasts answers unavailable with a retry hint; the bake goes on and the retry is a composite', async () => {
    // cold 1600 px frames ahead of it in the baker's queue, so the bake certainly outlasts the short deadline
    const ahead = [205, 210, 215].map((yaw) => renderBytes(srv.client, frame(yaw, { width: 1600 }), 300_000));
    await eventually(async () => {
      expect(stats().queued + stats().running).to.be.at.least(1);
    }, 60_000, 20);
    const before = stats().baked;
    let err: unknown = null;
    try {
      await renderBytes(srv.client, frame(200), 1200);
    } catch (e) {
      err = e;
    }
    await Promise.all(ahead);
    expect(err).to.be.instanceOf(ServiceError);
    expect((err as ServiceError).code).to.equal('unavailable');
    expect(Number((err as ServiceError).headers?.['Retry-After'])).to.be.within(1, 60);
    await eventually(async () => {
      expect(stats().baked).to.equal(before + 4);
    }, 300_000, 250);
    const { header } = await renderBytes(srv.client, frame(200), 60_000);
    expect(header.width).to.equal(WIDTH);
    expect(stats().baked).to.equal(before + 4);
  });

  it('a frame of a set without a 3D source is not_found, and so is an id that is no frame', async () => {
    for (const [set, view] of [[SYNTHETIC, 'yaw-090'], [setId, 'yaw-007'], [setId, 'yaw-360']] as const) {
      const e = await renderBytes(srv.client, { ...frame(0), assetSet: set, view: view as FrameId }, 10_000).then(
        () => null,
        (x: unknown) => x,
      );
      expect((e as ServiceError)?.code, `${set} ${view}`).to.equal('not_found');
    }
  });

  it('frames found on disk are not baked again: a fresh renderer on the same frame cache reads them', async () => {
    const other = await startTestServer({ assetsDir: srv.config.assetsDir, spin: { framesDir, supersample: 1, queueMax: 64 } });
    try {
      const { header } = await renderBytes(other.client, frame(90, { color: '#123456' }), 60_000);
      expect(header.width).to.equal(WIDTH);
      expect(other.internals.spin.stats()).to.include({ baked: 0, disk: 1 });
    } finally {
      await other.close();
    }
  });

  it('a frame baker that dies during a bake fails that render with unavailable, and the next bake starts a new one', async () => {
    const baker = srv.internals.spin;
    const failedBefore = baker.stats().failed;
    // one call, no pool: the gateway's pool would try again on UNAVAILABLE (and get the frame)
    const conn = connectRenderer(`127.0.0.1:${srv.port}`);
    const pending = conn.render(frame(250), new Date(Date.now() + 300_000), { deadlineMs: 300_000 }).then(
      () => null,
      (e: unknown) => toServiceError(e),
    );
    await eventually(async () => {
      expect(baker.stats().running).to.equal(1);
    }, 60_000, 20);
    const pid = baker.childPid!;
    expect(pid).to.be.a('number');
    process.kill(pid, 'SIGKILL');
    const e = await pending;
    conn.close();
    expect((e as ServiceError)?.code).to.equal('unavailable');
    expect(baker.stats().failed).to.equal(failedBefore + 1);
    const { header } = await renderBytes(srv.client, frame(250), 300_000);
    expect(header.width).to.equal(WIDTH);
    expect(baker.childPid).to.not.equal(pid);
  });
});
