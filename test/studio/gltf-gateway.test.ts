/**
 * A glTF car from file to picture: baked with `npm run bake -- gltf` (a small car built in the test),
 * imported with `npm run studio -- import` into an empty ASSETS_DIR, referenced by a catalog,
 * and rendered through a real gateway and renderer (cpu back end) in a named colour with a plate, and
 * with a transparent background. Needs WebGL 2 for the bake; skipped without it unless CI=true or
 * REQUIRE_GL=1.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { loadGatewayConfig } from '../../gateway/config.ts';
import { loadRendererConfig } from '../../renderer/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { writeFixtureCar } from '../support/gltf-car.ts';
import { skipWithoutWebGl } from '../support/webgl.ts';

const run = promisify(execFile);

describe('studio: a baked glTF set renders through the gateway', function () {
  this.timeout(240_000);
  let tmp = '';
  let assetsDir = '';
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  let gw: any = null;
  let renderer: { port: number; close(): Promise<void> } | null = null;
  let client: { close(): void } | null = null;

  before(async function () {
    await skipWithoutWebGl(this);
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'gltf-gw-'));
    assetsDir = path.join(tmp, 'assets');
    fs.mkdirSync(assetsDir);
    const model = path.join(tmp, 'Test Car.glb');
    await writeFixtureCar(model);
    const { runGltfCli } = await import('../../studio/bake/gltf/cli.ts');
    const code = await runGltfCli([model, '--out', path.join(tmp, 'baked'), '--width', '480', '--views', 'front_left,side_right,rear', '--quiet']);
    assert.equal(code, 0);
  });

  after(async () => {
    await gw?.close();
    client?.close();
    await renderer?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  it('is accepted by npm run studio -- import', async () => {
    const setDir = path.join(tmp, 'baked', 'test-car');
    assert.ok(fs.existsSync(path.join(setDir, 'set.json')), 'the set id comes from the file name');
    const r = await run(process.execPath, ['--import', 'tsx', 'studio/main.ts', 'import', setDir], { env: { ...process.env, ASSETS_DIR: assetsDir } });
    assert.equal(JSON.parse(r.stdout).imported, 'test-car');
    assert.ok(fs.existsSync(path.join(assetsDir, 'test-car', 'front_left', 'coverage.png')));
  });

  it('renders in a named colour with the plate drawn, and transparent', async () => {
    const { startRendererServer } = await import('../../renderer/server.ts');
    const { createGrpcImageRenderer } = await import('../../gateway/render/grpc-image-renderer.ts');
    const { startGateway } = await import('../../gateway/service.ts');
    renderer = await startRendererServer({
      config: loadRendererConfig({ RENDER_BACKEND: 'cpu', RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', ASSETS_DIR: assetsDir }),
      logger: createLogger('r', 'silent'),
    });
    client = createGrpcImageRenderer({ addresses: `127.0.0.1:${renderer.port}`, logger: createLogger('c', 'silent') });
    const catalog = path.join(tmp, 'catalog.json');
    fs.writeFileSync(catalog, JSON.stringify({
      format: 'vehicle-catalog/v1',
      categories: [{ slug: 'sports', name: 'Sports' }],
      makes: [{ slug: 'testa', name: 'Testa', models: [{ slug: 'blocco', name: 'Blocco', years: [{ year: 2024, variants: [
        { slug: null, name: null, category: 'sports', asset_set: 'test-car', published: true, unpublished_views: [] },
      ] }] }] }],
    }));
    gw = await startGateway({
      config: loadGatewayConfig({ PORT: '0', HOST: '127.0.0.1', DATA_DIR: path.join(tmp, 'data'), ASSETS_DIR: assetsDir, LOG_LEVEL: 'silent', SEED_DEMO: 'true' }),
      logger: createLogger('g', 'silent'),
      renderer: client as never,
      demoCatalogFile: catalog,
    });
    assert.equal(gw.exampleImagePath, '/v1/makes/testa/models/blocco/2024/front_left');
    const get = async (p: string) => {
      const a = await fetch(`${gw.url}${p}`, { headers: { 'x-api-key': gw.demoKey } });
      assert.equal(a.status, 200, `${p}: ${await a.clone().text()}`);
      const json = (await a.json()) as { image_url: string; warnings?: Array<{ code: string }> };
      const img = await fetch(json.image_url.replace('http://localhost:', 'http://127.0.0.1:'));
      assert.equal(img.status, 200);
      return { json, img: await sharp(Buffer.from(await img.arrayBuffer())).raw().toBuffer({ resolveWithObject: true }) };
    };
    const red = await get('/v1/makes/testa/models/blocco/2024/front_left?color=red&format=png&width=480&plate=AB%20123');
    assert.ok(!(red.json.warnings ?? []).some((w) => w.code === 'PLATE_UNMAPPED'), 'front_left maps the plate');
    const { data, info } = red.img;
    let redPx = 0;
    for (let p = 0; p < data.length; p += info.channels) if (data[p]! > 120 && data[p + 1]! < 70 && data[p + 2]! < 70) redPx++;
    assert.ok(redPx / (info.width * info.height) > 0.05, `the body is red (${redPx} px)`);
    const side = await get('/v1/makes/testa/models/blocco/2024/side_right?color=blue&format=png&width=480&plate=AB%20123');
    assert.ok((side.json.warnings ?? []).some((w) => w.code === 'PLATE_UNMAPPED'), 'the side view has no plate');
    const clear = await get('/v1/makes/testa/models/blocco/2024/rear?color=black&format=png&width=480&background=transparent');
    assert.equal(clear.img.info.channels, 4);
    const c = clear.img.data;
    assert.equal(c[3], 0, 'the corner is transparent');
    let opaque = 0;
    for (let p = 3; p < c.length; p += 4) if (c[p] === 255) opaque++;
    assert.ok(opaque / (clear.img.info.width * clear.img.info.height) > 0.1, 'the car is opaque');
  });
});
