import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { makeSyntheticSet } from '../support/make-synthetic-set.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';

// The catalog import reads set.json from ASSETS_DIR, the folder the renderer serves, and applies the
// renderer's set-id rule and set.json schema.
describe('catalog import reads the asset sets of ASSETS_DIR', () => {
  let tmp: string;
  let gw: TestGateway;
  const catalog = (assetSet: string) => ({
    format: 'vehicle-catalog/v1',
    categories: [{ slug: 'sports', name: 'Sports' }],
    makes: [{ slug: 'solo', name: 'Solo', models: [{ slug: 'uno', name: 'Uno', years: [{ year: 2025, variants: [
      { slug: null, name: null, category: 'sports', asset_set: assetSet },
    ] }] }] }],
  });

  before(async () => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-assets-dir-'));
    await makeSyntheticSet(path.join(tmp, 'only-here'), { width: 160, views: ['front_left'] });
    await makeSyntheticSet(path.join(tmp, 'broken'), { width: 160, views: ['front_left'] });
    const broken = path.join(tmp, 'broken', 'set.json');
    const json = JSON.parse(fs.readFileSync(broken, 'utf8')) as { views: { front_left: { width: unknown } } };
    json.views.front_left.width = 'wide';
    fs.writeFileSync(broken, JSON.stringify(json));
    gw = await startTestGateway({ env: { ASSETS_DIR: tmp }, seedDemo: false });
  });
  after(async () => {
    await gw?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('imports a catalog naming a set that lives only in ASSETS_DIR', async () => {
    const a = await gw.admin.call('POST', '/catalog/import', catalog('only-here'));
    expect(a.status, a.text).to.equal(200);
    const v = await gw.admin.call('GET', '/catalog/export');
    expect(JSON.stringify(v.body)).to.include('"asset_set":"only-here"');
  });

  it('refuses a set of the checkout that ASSETS_DIR does not hold', async () => {
    const a = await gw.admin.call('POST', '/catalog/import', catalog('synthetic'));
    expect(a.status).to.equal(400);
    expect(a.body.message).to.include('asset_set "synthetic": no such asset set');
  });

  it('names the file and the field of a malformed set.json', async () => {
    const a = await gw.admin.call('POST', '/catalog/import', catalog('broken'));
    expect(a.status).to.equal(400);
    expect(a.body.message).to.include(path.join(tmp, 'broken', 'set.json'));
    expect(a.body.message).to.include('views.front_left.width');
  });

  it('refuses a row naming a set id the renderer would refuse, with the row and the reason', async () => {
    const a = await gw.admin.call('POST', '/catalog/import', catalog('Only_Here'));
    expect(a.status).to.equal(400);
    expect(a.body.message).to.include('makes[0].models[0].years[0].variants[0].asset_set');
    expect(a.body.message).to.include('lower-case letters');
  });
});
