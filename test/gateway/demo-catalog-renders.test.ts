import { expect } from 'chai';
import sharp from 'sharp';
import { NAMED_COLORS } from '../../shared/colors.ts';
import { loadGatewayConfig } from '../../gateway/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { startGateway, type GatewayHandle } from '../../gateway/service.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTestRenderer, type TestRenderer } from '../support/test-renderer.ts';

/**
 * The studio content end to end: the real demo catalog seeded on first start (as a newcomer gets it),
 * and for every asset set it uses, every published view of one of its vehicles downloaded through the
 * gateway in a named colour, decoded and measured.
 */
describe('demo catalog renders through the gateway', function () {
  this.timeout(180_000);
  let gw: GatewayHandle;
  let renderer: TestRenderer;
  let dataDir: string;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-demo-'));
    renderer = await startTestRenderer();
    gw = await startGateway({
      config: loadGatewayConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', SEED_DEMO: 'true' }),
      logger: createLogger('g', 'silent'),
      renderer: renderer.client,
    });
  });
  after(async () => {
    await gw?.close();
    await renderer?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('seeds the demo catalog and a demo key on first start', async () => {
    expect(gw.demoKey).to.match(/^svc_live_/);
    expect(gw.exampleImagePath).to.match(/^\/v1\/makes\//);
    const makes = (await (await fetch(`${gw.url}/v1/makes`, { headers: { 'x-api-key': gw.demoKey! } })).json()) as { makes: unknown[] };
    expect(makes.makes.length).to.be.at.least(12);
  });

  it('gives the demo member a single-use dashboard sign-in link on first start', async () => {
    expect(gw.demoSignIn?.url).to.match(/\/dashboard\/sign-in#token=[\w-]{20,}$/);
    const token = gw.demoSignIn!.url.split('#token=')[1]!;
    const signIn = () =>
      fetch(`${gw.url}/dashboard/api/sign-in/link`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    const first = await signIn();
    expect(first.status).to.equal(200);
    const cookie = first.headers.get('set-cookie')!.split(';')[0]!;
    const session = (await (await fetch(`${gw.url}/dashboard/api/session`, { headers: { cookie } })).json()) as {
      member: { id: string; email: string };
      organization: { name: string };
    };
    expect(session.member).to.include({ id: gw.demoSignIn!.memberId, email: 'demo@example.com' });
    expect(session.organization.name).to.equal('Demo organization');
    expect((await signIn()).status).to.equal(401); // spent
  });

  it('every published view of one vehicle per asset set downloads, in a named colour, as a picture with a car in it', async () => {
    const rows = await gw.db.query<{ set: string; make: string; model: string; year: number; variant: string | null; n: number; views: string[] }>(
      `SELECT DISTINCT ON (v.asset_set) v.asset_set AS set, mk.slug AS make, md.slug AS model, v.year, v.variant_slug AS variant,
              (SELECT count(*)::int FROM vehicles o WHERE o.model_id = v.model_id AND o.year = v.year AND o.published) AS n,
              ARRAY(SELECT vv.view FROM vehicle_views vv WHERE vv.vehicle_id = v.id AND vv.published ORDER BY vv.view) AS views
         FROM vehicles v JOIN models md ON md.id = v.model_id JOIN makes mk ON mk.id = md.make_id
        WHERE v.published ORDER BY v.asset_set, v.id`,
    );
    expect(rows.length).to.be.at.least(7);
    const colors = Object.entries(NAMED_COLORS);
    let i = 0;
    for (const r of rows) {
      for (const view of r.views) {
        const [name] = colors[i++ % colors.length]!;
        const base = `/v1/makes/${r.make}/models/${r.model}/${r.year}${r.n > 1 && r.variant ? `/${r.variant}` : ''}/${view}`;
        const a = await fetch(`${gw.url}${base}?color=${name}&format=png&width=240&plate=AB%20123`, { headers: { 'x-api-key': gw.demoKey! } });
        expect(a.status, `${base} (${r.set})`).to.equal(200);
        const json = (await a.json()) as { image_url: string };
        const img = await fetch(json.image_url.replace('http://localhost:', 'http://127.0.0.1:'));
        expect(img.status, `${r.set}/${view}`).to.equal(200);
        const buf = Buffer.from(await img.arrayBuffer());
        const { data, info } = await sharp(buf).raw().toBuffer({ resolveWithObject: true });
        expect(info.width).to.equal(240);
        // The car is there: a real share of pixels differ clearly from the light studio backdrop.
        let car = 0;
        for (let p = 0; p < data.length; p += info.channels) {
          if (Math.max(data[p]!, data[p + 1]!, data[p + 2]!) < 200) car++;
        }
        expect(car / (info.width * info.height), `${r.set}/${view} shows a car`).to.be.greaterThan(0.03);
      }
    }
  });
});
