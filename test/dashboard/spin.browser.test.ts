// The playground's framing controls and spin viewer in Debian's Chromium (playwright-core) against a
// real gateway and a real cpu renderer over gRPC that serves a small glTF car baked with its source
// (makeSpinSet) in a temporary ASSETS_DIR: fit + 1:1 reaches the request and gives a square picture; an
// 8-frame spin at 200 px loads every frame, turns with the keys and by a drag of a measured distance;
// a contract without the spin feature shows the API's refusal. Needs WebGL 2 for the bakes; skipped
// without it unless CI=true or REQUIRE_GL=1 (as test/studio/gltf-gateway.test.ts).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { createGrpcImageRenderer } from '../../gateway/render/grpc-image-renderer.ts';
import { loadRendererConfig } from '../../renderer/config.ts';
import { startRendererServer } from '../../renderer/server.ts';
import { createLogger } from '../../shared/logger.ts';
import { backendLabel } from '../gateway/support/backend.ts';
import { startTestGateway, type TestGateway } from '../gateway/support/gateway-fixture.ts';
import { launchChromium } from '../support/browser.ts';
import { eventually } from '../support/eventually.ts';
import { makeSpinSet } from '../support/spin-set.ts';
import { skipWithoutWebGl } from '../support/webgl.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST_INDEX = path.join(ROOT, 'dashboard', 'dist', 'index.html');
const SET_ID = 'spin-car';
const CONTRACT = { categories: ['sports'], allowed_formats: ['webp', 'png'], rpm_limit: 600, monthly_quota: 5000, active: true };

/** Runs an expression in the page (a string: the test project is type-checked without the DOM library). */
function inPage<T>(page: Page, js: string): Promise<T> {
  return page.evaluate(js) as Promise<T>;
}

/** Polls through the DevTools protocol: waitForFunction would need eval in the page, which the CSP forbids. */
async function until(page: Page, js: string, what: string, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await inPage<boolean>(page, js))) {
    if (Date.now() > end) throw new Error(`${what}: not within ${ms / 1000} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe(`dashboard: playground framing and spin viewer in Chromium (${backendLabel()})`, function () {
  this.timeout(240_000);
  let tmp = '';
  let gw: TestGateway;
  let renderer: { port: number; close(): Promise<void> } | null = null;
  let client: ReturnType<typeof createGrpcImageRenderer> | null = null;
  let browser: Browser | null = null;
  let page: Page;
  let org = '';
  const consoleErrors: string[] = [];
  /** Console lines a test expects (the 403 it provokes is logged by Chromium as a failed resource). */
  let expectedConsole: RegExp | null = null;

  const putContract = async (features: string[]) => {
    const a = await gw.admin.call('PUT', `/organizations/${org}/contract`, { ...CONTRACT, features });
    expect(a.status, a.text).to.equal(200);
  };
  const position = () => page.getByTestId('spin-position').innerText();

  before(async function () {
    this.timeout(600_000);
    await skipWithoutWebGl(this);
    if (!fs.existsSync(DIST_INDEX)) {
      const r = spawnSync(process.execPath, [path.join(ROOT, 'deploy', 'build-dashboard.mjs')], { cwd: ROOT, stdio: 'inherit' });
      if (r.status !== 0) throw new Error('the dashboard build failed');
    }
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'spin-browser-'));
    const assetsDir = path.join(tmp, 'assets');
    fs.mkdirSync(assetsDir);
    await makeSpinSet(assetsDir, SET_ID);
    const catalog = path.join(tmp, 'catalog.json');
    fs.writeFileSync(
      catalog,
      JSON.stringify({
        format: 'vehicle-catalog/v1',
        categories: [{ slug: 'sports', name: 'Sports' }],
        makes: [{ slug: 'testa', name: 'Testa', models: [{ slug: 'blocco', name: 'Blocco', years: [{ year: 2024, variants: [
          { slug: null, name: null, category: 'sports', asset_set: SET_ID, published: true, unpublished_views: [] },
        ] }] }] }],
      }),
    );
    renderer = await startRendererServer({
      config: loadRendererConfig({ RENDER_BACKEND: 'cpu', RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', ASSETS_DIR: assetsDir }),
      logger: createLogger('test-renderer', 'silent'),
    });
    client = createGrpcImageRenderer({ addresses: `127.0.0.1:${renderer.port}`, logger: createLogger('c', 'silent') });
    gw = await startTestGateway({ renderer: client, catalogFile: catalog, env: { ASSETS_DIR: assetsDir } });
    org = (await gw.admin.createOrg('Turntable Motors')).id;
    await putContract(['spin']);
    const member = await gw.admin.addMember(org, 'spin@example.com');
    const link = await gw.admin.call('POST', `/members/${member.id}/sign-in-links`);
    expect(link.status, link.text).to.equal(201);

    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 }, hasTouch: true })).newPage();
    page.on('pageerror', (e) => consoleErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && !(expectedConsole && expectedConsole.test(m.text()))) consoleErrors.push(m.text());
    });
    const base = new URL(link.body.url).origin;
    await page.goto(link.body.url);
    await page.waitForURL(`${base}/dashboard/`);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Playground', exact: true }).click();
    await page.waitForURL(`${base}/dashboard/playground`);
    await page.getByLabel('Make').locator('option[value="testa"]').waitFor({ state: 'attached' });
    await page.getByLabel('Make').selectOption('testa');
    await page.getByLabel('Model').locator('option[value="blocco"]').waitFor({ state: 'attached' });
    await page.getByLabel('Model').selectOption('blocco');
    await page.getByLabel('Year').selectOption('2024');
    await page.getByLabel('View').locator('option[value="front_left"]').waitFor({ state: 'attached' });
  });

  after(async () => {
    await browser?.close();
    await gw?.close();
    client?.close();
    await renderer?.close();
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  afterEach(() => {
    expect(consoleErrors, 'console errors, script errors or CSP violations in the page').to.deep.equal([]);
  });

  it('the framing controls reach the image call and its curl line: fit at 1:1 gives a square picture', async () => {
    // the margin only counts with fit: disabled, keeping its default, until fit is chosen
    expect(await page.getByLabel('Framing').inputValue()).to.equal('studio');
    expect(await page.getByLabel('Aspect').inputValue()).to.equal('16:9');
    expect(await page.getByLabel('Margin (%)').isDisabled()).to.equal(true);
    expect(await page.getByLabel('Margin (%)').inputValue()).to.equal('5');
    await page.getByLabel('Framing').selectOption('fit');
    expect(await page.getByLabel('Margin (%)').isEnabled()).to.equal(true);
    await page.getByLabel('Margin (%)').fill('10');
    await page.getByLabel('Aspect').selectOption('1:1');
    await page.getByLabel('Format').selectOption('png');
    await page.getByLabel('Width (px)').fill('300');
    await page.getByRole('button', { name: 'Render' }).click();
    await page.getByTestId('playground-image').waitFor();
    await until(page, `(() => { const i = document.querySelector('[data-testid="playground-image"]'); return !!i && i.complete && i.naturalWidth > 0; })()`, 'the picture');
    const size = await inPage<[number, number]>(page, `(() => { const i = document.querySelector('[data-testid="playground-image"]'); return [i.naturalWidth, i.naturalHeight]; })()`);
    expect(size).to.deep.equal([300, 300]);
    const curl = await page.getByTestId('curl-line').innerText();
    expect(curl).to.include('/v1/makes/testa/models/blocco/2024/front_left?');
    expect(curl).to.include('framing=fit').and.include('margin=10').and.include('aspect=1%3A1');
    const json = JSON.parse(await page.getByTestId('json-answer').innerText());
    expect(json.options).to.include({ framing: 'fit', margin: 10, aspect: '1:1', width: 300 });
    expect([json.layout.width, json.layout.height]).to.deep.equal([300, 300]);
    // back to the default picture for the spin below
    await page.getByLabel('Framing').selectOption('studio');
    await page.getByLabel('Aspect').selectOption('16:9');
  });

  it('an 8-frame spin at 200 px loads every frame, then turns with the keys, a measured drag and Home', async () => {
    await page.getByLabel('Frames', { exact: true }).selectOption('8');
    await page.getByLabel('Width (px)').fill('200');
    await page.getByRole('button', { name: 'Spin' }).click();
    const viewer = page.getByTestId('spin-viewer');
    await viewer.waitFor();
    // cold frames are baked on demand by the renderer: on two CPU cores that takes a while
    await page.getByTestId('spin-progress').filter({ hasText: '8 of 8 frames' }).waitFor({ timeout: 180_000 });
    expect(await page.getByTestId('spin-progress').innerText()).to.equal('8 of 8 frames');

    const json = JSON.parse(await page.getByTestId('json-answer').innerText());
    expect(json.frames.map((f: { yaw_degrees: number }) => f.yaw_degrees)).to.deep.equal([0, 45, 90, 135, 180, 225, 270, 315]);
    expect(json.options).to.include({ width: 200 });
    const curl = await page.getByTestId('curl-line').innerText();
    expect(curl).to.match(new RegExp(`/v1/vehicles/${json.vehicle.id}/spin\\?frames=8&`));
    const urls: string[] = json.frames.map((f: { image_url: string }) => f.image_url);
    const shown = async () => {
      const img = page.getByTestId('spin-frame');
      return {
        index: Number(await img.getAttribute('data-frame-index')),
        // drawn from the decoded download (an object URL); the frame's own URL is on the element too
        src: await img.getAttribute('data-frame-url'),
        decoded: /^blob:/.test((await img.getAttribute('src')) ?? ''),
        size: await img.evaluate((el) => [(el as unknown as { naturalWidth: number }).naturalWidth, (el as unknown as { naturalHeight: number }).naturalHeight]),
      };
    };
    const expectFrame = async (index: number, yaw: number) => {
      const text = `Frame ${index + 1} of 8, yaw ${yaw}°`;
      expect(await position()).to.equal(text);
      expect(await viewer.getAttribute('aria-valuetext')).to.equal(text);
      const s = await shown();
      expect(s.index).to.equal(index);
      expect(s.src).to.equal(urls[index]);
      expect(s.decoded).to.equal(true);
      expect(s.size).to.deep.equal([200, json.frames[index].layout.height]);
    };
    await expectFrame(0, 0);

    // the keyboard: the viewer is next in the tab order after the Spin button, with a visible focus outline
    await page.getByLabel('Frames', { exact: true }).focus();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Tab');
    expect(await inPage<string>(page, 'document.activeElement.dataset.testid')).to.equal('spin-viewer');
    expect(await inPage<string>(page, 'getComputedStyle(document.activeElement).outlineStyle')).not.to.equal('none');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expectFrame(2, 90);
    await page.keyboard.press('Home');
    await expectFrame(0, 0);
    await page.keyboard.press('ArrowLeft'); // round the turntable
    await expectFrame(7, 315);
    await page.keyboard.press('ArrowRight');
    await expectFrame(0, 0);

    // a drag: the viewer's whole width is one turn, rightwards to higher yaw
    const box = (await viewer.boundingBox())!;
    const y = box.y + box.height / 2;
    const x0 = box.x + box.width / 2;
    await page.mouse.move(x0, y);
    await page.mouse.down();
    await page.mouse.move(x0 + box.width / 4, y, { steps: 6 }); // a quarter turn: 2 frames
    await expectFrame(2, 90);
    await page.mouse.move(x0 - (3 * box.width) / 8, y, { steps: 10 }); // back past the start: −3 frames
    await expectFrame(5, 225);
    await page.mouse.up();
    // nothing selected or dragged away by the gesture
    expect(await inPage<string>(page, 'String(window.getSelection())')).to.equal('');
    await expectFrame(5, 225);
    // the drag left the keys working from where it ended
    expect(await inPage<string>(page, 'document.activeElement.dataset.testid')).to.equal('spin-viewer');
    await page.keyboard.press('Home');
    await expectFrame(0, 0);

    // a finger (touch events through the DevTools protocol): the same pointer events, the same rule
    const cdp = await page.context().newCDPSession(page);
    const touch = (type: string, x?: number) =>
      cdp.send('Input.dispatchTouchEvent', { type: type as 'touchStart', touchPoints: x === undefined ? [] : [{ x, y }] });
    await touch('touchStart', x0);
    for (let k = 1; k <= 6; k++) await touch('touchMove', x0 - (k * box.width) / 24); // leftwards, a quarter
    await touch('touchEnd');
    await expectFrame(6, 270);
    await cdp.detach();
    await page.keyboard.press('Home');
    await expectFrame(0, 0);
  });

  it('a frame that cannot be loaded is tried once more, then marked, and can be asked for again; no broken picture is ever shown', async () => {
    // another colour: new frame URLs, none of them in the browser's memory yet
    await page.getByRole('radio', { name: 'blue' }).check();
    let target!: (url: string) => void;
    const failing = new Promise<string>((r) => (target = r));
    const hits: string[] = [];
    await page.route('**/images/**', async (route) => {
      const url = route.request().url();
      if (url === (await failing)) {
        hits.push(url);
        await route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":"unavailable","message":"test"}' });
      } else await route.continue();
    });
    expectedConsole = /status of 503/;
    try {
      const answered = page.waitForResponse((r) => r.url().includes('/spin?'));
      await page.getByRole('button', { name: 'Spin' }).click();
      const answer = await (await answered).json();
      target(answer.frames[3].image_url);
      await page.getByTestId('spin-progress').filter({ hasText: '7 of 8 frames, 1 could not be loaded' }).waitFor({ timeout: 180_000 });
      expect(hits, 'the failed frame is asked twice').to.have.length(2);
      const viewer = page.getByTestId('spin-viewer');
      await viewer.focus();
      for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
      expect(await position()).to.equal('Frame 4 of 8, yaw 135° (this frame could not be loaded)');
      // the last frame drawn stays: frame 3, decoded
      const img = page.getByTestId('spin-frame');
      expect(await img.getAttribute('data-frame-index')).to.equal('2');
      const broken = await inPage<number>(page, `[...document.querySelectorAll('[data-testid="spin-viewer"] img')].filter((i) => !i.complete || i.naturalWidth === 0).length`);
      expect(broken).to.equal(0);
      await page.keyboard.press('ArrowRight');
      expect(await position()).to.equal('Frame 5 of 8, yaw 180°');
      expect(await img.getAttribute('data-frame-index')).to.equal('4');
      // the renderer answers again: the marked frame is asked for on demand, the others are not
      await page.unroute('**/images/**');
      const asked: string[] = [];
      const onRequest = (r: { url(): string }) => void (r.url().includes('/images/') && asked.push(r.url()));
      page.on('request', onRequest);
      await page.getByRole('button', { name: 'Load the missing frames again' }).click();
      await page.getByTestId('spin-progress').filter({ hasText: /^8 of 8 frames$/ }).waitFor();
      page.off('request', onRequest);
      expect(asked).to.deep.equal([answer.frames[3].image_url]);
      await viewer.focus();
      await page.keyboard.press('ArrowLeft');
      expect(await position()).to.equal('Frame 4 of 8, yaw 135°');
      expect(await img.getAttribute('data-frame-index')).to.equal('3');
    } finally {
      expectedConsole = null;
      await page.unroute('**/images/**');
    }
  });

  it('a frame the renderer is still shooting (503 with Retry-After) is waited for and comes without a click', async () => {
    // another colour again: frame URLs the browser has not fetched yet
    await page.getByRole('radio', { name: 'green' }).check();
    let target!: (url: string) => void;
    const pendingFrame = new Promise<string>((r) => (target = r));
    const hits: string[] = [];
    await page.route('**/images/**', async (route) => {
      const url = route.request().url();
      if (url === (await pendingFrame) && hits.push(url) <= 2) {
        // as the gateway answers while the renderer bakes a cold frame past the download's deadline
        await route.fulfill({ status: 503, headers: { 'Retry-After': '1', 'Access-Control-Allow-Origin': '*', 'Access-Control-Expose-Headers': 'Retry-After' }, contentType: 'application/json', body: '{"error":"unavailable","message":"The frame is being shot; retry shortly"}' });
      } else await route.continue();
    });
    expectedConsole = /status of 503/;
    try {
      const answered = page.waitForResponse((r) => r.url().includes('/spin?'));
      await page.getByRole('button', { name: 'Spin' }).click();
      const answer = await (await answered).json();
      target(answer.frames[2].image_url);
      await page.getByTestId('spin-progress').filter({ hasText: /^8 of 8 frames$/ }).waitFor({ timeout: 180_000 });
      expect(hits, 'asked until it came: twice pending, then the picture').to.have.length(3);
    } finally {
      expectedConsole = null;
      await page.unroute('**/images/**');
    }
  });

  it('a contract without the spin feature: the playground shows the API\'s refusal', async () => {
    await putContract([]);
    expectedConsole = /status of 403/;
    try {
      const alert = page.getByRole('alert');
      await eventually(async () => {
        await page.getByRole('button', { name: 'Spin' }).click();
        expect(await alert.innerText()).to.equal('Spin is not included in this contract');
      });
    } finally {
      expectedConsole = null;
      await putContract(['spin']);
    }
  });
});
