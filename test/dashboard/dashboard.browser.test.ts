// The customers' dashboard in Debian's Chromium (playwright-core) against a real gateway and a real
// renderer: sign-in link → contract → key (used from the page, revoked) → usage → playground render →
// keyboard, phone width, password, ban. DASHBOARD_SCREENSHOTS=1 also writes docs/dashboard-<page>.png.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import sharp from 'sharp';
import { loadRendererConfig } from '../../renderer/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { createGrpcImageRenderer } from '../../gateway/render/grpc-image-renderer.ts';
import { startRendererServer } from '../../renderer/server.ts';
import { backendLabel } from '../gateway/support/backend.ts';
import { request, startTestGateway, type TestGateway } from '../gateway/support/gateway-fixture.ts';
import { launchChromium } from '../support/browser.ts';
import { eventually } from '../support/eventually.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST_INDEX = path.join(ROOT, 'dashboard', 'dist', 'index.html');
const SCREENSHOTS = process.env.DASHBOARD_SCREENSHOTS === '1';
const EMAIL = 'ada@example.com';
const PASSWORD = 'correct horse battery staple';

/** Runs an expression in the page (a string: the test project is type-checked without the DOM library). */
function inPage<T>(page: Page, js: string): Promise<T> {
  return page.evaluate(js) as Promise<T>;
}

/**
 * Lists the visible texts whose colour has too little contrast with the background behind them
 * (WCAG 2 relative luminance; the background is the nearest ancestor's opaque background colour).
 */
const CONTRAST_AUDIT = `(() => {
  const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
    .reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
  const background = (el) => {
    for (let e = el; e; e = e.parentElement) {
      const c = rgb(getComputedStyle(e).backgroundColor);
      if (c.length === 3 || c[3] === 1) return c.slice(0, 3);
    }
    return [255, 255, 255];
  };
  const out = [];
  for (const el of document.querySelectorAll('body *')) {
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own || el.closest('.visually-hidden, [disabled], option')) continue;
    const s = getComputedStyle(el);
    const box = el.getBoundingClientRect();
    if (s.visibility === 'hidden' || box.width === 0 || box.height === 0) continue;
    const fg = rgb(s.color);
    const [a, b] = [lum(fg.slice(0, 3)) + 0.05, lum(background(el)) + 0.05];
    const ratio = Math.max(a, b) / Math.min(a, b);
    const size = parseFloat(s.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(s.fontWeight) >= 700);
    if (ratio < (large ? 3 : 4.5)) out.push(el.tagName + ' "' + el.textContent.trim().slice(0, 30) + '" ' + ratio.toFixed(2));
  }
  return out;
})()`;

/**
 * Waits until the playground's picture (of `width`, when given) has decoded. Polled through evaluate (the DevTools protocol):
 * waitForFunction with a string would need eval in the page, which the dashboard's CSP forbids.
 */
async function pictureLoaded(page: Page, ms = 60_000, width?: number): Promise<void> {
  const until = Date.now() + ms;
  // with `width`, the new picture: the one shown before it is complete too, until the new answer replaces it
  const js = `(() => { const i = document.querySelector('[data-testid="playground-image"]'); return !!i && i.complete && i.naturalWidth ${width === undefined ? '> 0' : `=== ${width}`}; })()`;
  while (!(await inPage<boolean>(page, js))) {
    if (Date.now() > until) throw new Error('the playground picture did not load');
    await new Promise((r) => setTimeout(r, 200));
  }
}


describe(`dashboard in Chromium (${backendLabel()})`, function () {
  this.timeout(120_000);
  let gw: TestGateway;
  let renderer: { port: number; close(): Promise<void> };
  let client: ReturnType<typeof createGrpcImageRenderer>;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let org: string;
  let memberId: string;
  let opsKey: string;
  let base: string; // the public base URL the sign-in links point at
  let createdKey = '';
  let createdKeyId = '';
  const pageErrors: string[] = [];

  const signInLink = async (member = memberId) => {
    const a = await gw.admin.call('POST', `/members/${member}/sign-in-links`);
    expect(a.status, a.text).to.equal(201);
    expect(a.body.url).to.match(/\/dashboard\/sign-in#token=[\w-]+/);
    expect(Date.parse(a.body.expires_at)).to.be.greaterThan(Date.now());
    return a.body.url as string;
  };
  const me = async () => {
    const a = await gw.getWithKey(opsKey, '/v1/me');
    expect(a.status).to.equal(200);
    return a.body;
  };
  const fetchFromPage = (pathname: string, key: string) =>
    inPage<{ status: number; body: any }>( // eslint-disable-line @typescript-eslint/no-explicit-any
      page,
      `fetch(${JSON.stringify(pathname)}, { headers: { 'X-Api-Key': ${JSON.stringify(key)} } })
        .then(async (r) => ({ status: r.status, body: await r.json() }))`,
    );
  const ROUTES: Record<string, string> = { Contract: '', Keys: 'keys', Usage: 'usage', Playground: 'playground', Account: 'account' };
  const goTo = async (name: keyof typeof ROUTES & string) => {
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true }).click();
    await page.waitForURL(`${base}/dashboard/${ROUTES[name]}`);
  };
  const heading = () => page.getByRole('heading', { level: 1 }).innerText();
  /** The text a select shows: its selected option's, '' when none is selected (what a member sees as a blank field). */
  const shownIn = (label: string) =>
    page.getByLabel(label, { exact: true }).evaluate((el) => {
      const select = el as unknown as { selectedIndex: number; options: ArrayLike<{ text: string }> };
      return select.selectedIndex < 0 ? '' : select.options[select.selectedIndex]!.text.trim();
    });

  before(async function () {
    this.timeout(300_000);
    if (!fs.existsSync(DIST_INDEX)) {
      const r = spawnSync(process.execPath, [path.join(ROOT, 'deploy', 'build-dashboard.mjs')], { cwd: ROOT, stdio: 'inherit' });
      if (r.status !== 0) throw new Error('the dashboard build failed');
    }
    renderer = await startRendererServer({
      config: { ...loadRendererConfig({ RENDER_BACKEND: 'cpu', RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1' }) },
      logger: createLogger('test-renderer', 'silent'),
    });
    client = createGrpcImageRenderer({ addresses: `127.0.0.1:${renderer.port}`, logger: createLogger('c', 'silent') });
    gw = await startTestGateway({ renderer: client });
    const o = await gw.admin.createOrg('Northwind Motors');
    org = o.id;
    await gw.admin.putContract(org, {
      categories: ['passenger-car', 'suv', 'sports'],
      allowed_formats: ['webp', 'png'],
      rpm_limit: 600,
      monthly_quota: 5000,
    });
    opsKey = (await gw.admin.createKey(org, 'operations')).key;
    memberId = (await gw.admin.addMember(org, EMAIL)).id;
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    // the sign-in links point at the public base URL (localhost): let the copy button use the clipboard there
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(gw.url.replace('127.0.0.1', 'localhost')).origin });
    page = await context.newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      // a CSP violation is reported on the console: the pages must run under the strict policy
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) pageErrors.push(m.text());
    });
  });

  after(async () => {
    await browser?.close();
    await gw?.close();
    client?.close();
    await renderer?.close();
  });

  afterEach(() => {
    expect(pageErrors, 'script errors or CSP violations in the page').to.deep.equal([]);
  });

  it('serves the pages under a strict CSP and sends a signed-out visitor to sign-in', async () => {
    const url = await signInLink();
    base = new URL(url).origin;
    const index = await request(`${gw.url}/dashboard/keys`);
    expect(index.status).to.equal(200);
    const csp = index.headers.get('content-security-policy') ?? '';
    expect(csp).to.include("default-src 'self'");
    expect(csp).not.to.include('unsafe-inline');
    expect(index.text).not.to.match(/<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    expect(index.text).not.to.match(/https?:\/\/(?!localhost|127\.0\.0\.1)/); // nothing from a CDN

    await page.goto(`${base}/dashboard/usage`);
    await page.waitForURL(/\/dashboard\/sign-in$/);
    expect(await heading()).to.equal('Sign in');
  });

  it('a sign-in link signs the member in, leaves no token in the address, and works once', async () => {
    const url = await signInLink();
    // the link is spent before any session check: no unauthenticated /session call (a 401 that would
    // end the new session's client state) races the sign-in
    const calls: string[] = [];
    const onResponse = (r: { url(): string; status(): number; request(): { method(): string } }) => {
      if (r.url().includes('/dashboard/api/')) calls.push(`${r.request().method()} ${new URL(r.url()).pathname} ${r.status()}`);
    };
    page.on('response', onResponse);
    await page.goto(url);
    await page.waitForURL(`${base}/dashboard/`);
    await page.getByTestId('org-name').waitFor();
    page.off('response', onResponse);
    expect(calls, calls.join(', ')).to.include('POST /dashboard/api/sign-in/link 200');
    expect(calls.filter((c) => c.endsWith(' 401')), calls.join(', ')).to.deep.equal([]);
    expect(await heading()).to.equal('Contract');
    expect(page.url()).not.to.include('token');
    expect(await page.getByTestId('org-name').innerText()).to.equal('Northwind Motors');
    const token = new URL(url).hash.replace('#token=', '');
    const again = await request(`${gw.url}/dashboard/api/sign-in/link`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ token }),
    });
    expect(again.status).to.equal(401);
    expect(Object.keys(again.body)).to.have.members(['error', 'message']);
  });

  it('the contract page shows the same figures as GET /v1/me', async () => {
    const m = await me();
    await page.reload();
    await page.getByTestId('contract-figures').waitFor();
    const field = (f: string) => page.locator(`[data-field="${f}"]`).first().innerText();
    const num = async (f: string) => Number((await field(f)).replace(/[^\d]/g, ''));
    expect(await field('active')).to.equal(m.contract.active ? 'Active' : 'Inactive');
    expect(await num('rpm_limit')).to.equal(m.contract.rpm_limit);
    expect(await num('monthly_quota')).to.equal(m.contract.monthly_quota);
    expect(await num('requests')).to.equal(m.usage.requests);
    expect(await num('remaining')).to.equal(m.usage.remaining);
    const categories = await page.locator('[data-field="categories"] li').allInnerTexts();
    expect(categories).to.deep.equal(m.contract.categories.map((c: { name: string }) => c.name));
    const formats = await page.locator('[data-field="allowed_formats"] li').allInnerTexts();
    expect(formats).to.deep.equal(m.contract.allowed_formats);
  });

  it('a key created on the keys page is shown once, works with fetch() from the page, and usage moves', async () => {
    const before = (await me()).usage.requests;
    await goTo('Keys');
    expect(await heading()).to.equal('API keys');
    // spaces alone pass the field's `required`: the page says so and sends nothing
    await page.getByLabel('Key name').fill('   ');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('Give the key a name (1 to 200 characters).').waitFor();
    expect(await page.getByLabel('Key name').getAttribute('maxlength')).to.equal('200');
    await page.getByLabel('Key name').fill('browser-test');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = page.getByTestId('new-key-secret');
    await secret.waitFor();
    createdKey = (await secret.innerText()).trim();
    expect(createdKey).to.match(/^svc_live_\w{30}$/);
    expect(await page.getByTestId('new-key').innerText()).to.match(/will not be shown again/i);
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.getByText('Copied.').waitFor();
    expect(await inPage<string>(page, 'navigator.clipboard.readText()')).to.equal(createdKey);
    const row = page.getByTestId('active-keys').locator('tr', { hasText: 'browser-test' });
    await row.waitFor();
    createdKeyId = (await row.getAttribute('data-key-id')) ?? '';
    expect(await row.innerText()).to.include(createdKey.slice(0, 15));

    // shown once: after a reload the page has only the prefix
    await page.reload();
    await page.getByTestId('active-keys').waitFor();
    expect(await page.content()).not.to.include(createdKey);

    const a = await fetchFromPage('/v1/makes', createdKey);
    expect(a.status).to.equal(200);
    expect(a.body.makes.map((x: { slug: string }) => x.slug)).to.include('aurelia');

    await eventually(async () => {
      await page.reload();
      const lastUsed = await page.getByTestId('active-keys').locator(`tr[data-key-id="${createdKeyId}"] [data-field="last_used_at"]`).innerText();
      expect(lastUsed).not.to.equal('Never');
    });

    await goTo('Usage');
    await page.getByTestId('usage-figures').waitFor();
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      await page.getByRole('button', { name: 'Refresh' }).isEnabled();
      const requests = Number((await page.locator('[data-testid="usage-figures"] [data-field="requests"]').innerText()).replace(/[^\d]/g, ''));
      expect(requests).to.be.greaterThan(before);
      const keyRow = page.getByTestId('by-key').locator(`tr[data-key-id="${createdKeyId}"]`);
      expect(await keyRow.innerText()).to.match(/browser-test[\s\S]*\b1$/);
      const catalogRow = page.getByTestId('by-kind').locator('tr[data-kind="catalog"]');
      expect(Number((await catalogRow.locator('td').innerText()).replace(/[^\d]/g, ''))).to.be.greaterThan(0);
    });
    expect(await page.getByTestId('daily-chart').isVisible()).to.equal(true);
    expect(await page.getByTestId('cumulative-chart').isVisible()).to.equal(true);
    // the chart has drawn: the canvas is no longer blank
    const inked = await inPage<boolean>(
      page,
      `(() => { const c = document.querySelector('[data-testid="cumulative-chart"]');
        const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        for (let i = 3; i < d.length; i += 4) if (d[i] !== 0) return true; return false; })()`,
    );
    expect(inked).to.equal(true);
  });

  it('revoking asks for confirmation (Escape keeps the key), then /v1 refuses the key with 401', async () => {
    await goTo('Keys');
    const revokeButton = page.getByTestId('active-keys').locator(`tr[data-key-id="${createdKeyId}"]`).getByRole('button', { name: /Revoke/ });
    await revokeButton.click();
    const dialog = page.getByRole('dialog', { name: 'Revoke this key?' });
    await dialog.waitFor();
    // focus moves in effects after the dialog opens and closes: a moment later on a loaded machine
    await eventually(async () => {
      expect(await inPage<string>(page, 'document.activeElement.textContent')).to.equal('Cancel');
    });
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    await eventually(async () => {
      expect(await inPage<boolean>(page, 'document.activeElement.textContent.startsWith("Revoke")')).to.equal(true);
    });
    expect((await fetchFromPage('/v1/makes', createdKey)).status).to.equal(200);

    await revokeButton.click();
    await dialog.getByRole('button', { name: 'Revoke key' }).click();
    await page.getByText('is revoked').waitFor();
    const refused = await fetchFromPage('/v1/makes', createdKey);
    expect(refused.status).to.equal(401);
    expect(Object.keys(refused.body)).to.have.members(['error', 'message']);
    // the notice and the reloaded list are two renders: on a loaded machine the list may come a moment later
    await eventually(async () => {
      expect(await page.getByTestId('revoked-keys').locator(`tr[data-key-id="${createdKeyId}"]`).count()).to.equal(1);
    });
    // the Revoke button focus went back to is gone with its row: focus is on the Active keys heading, not lost
    await eventually(async () => {
      expect(await inPage<string>(page, 'document.activeElement.id')).to.equal('active-keys-title');
    });
  });

  it('the playground walks make › model › year › variant and shows the picture, JSON, warnings and curl line', async () => {
    // every /v1 call the page makes is a counted call of the organisation: only the member's choices make them
    const billed: string[] = [];
    const onRequest = (r: { url(): string }) => {
      const u = new URL(r.url());
      if (u.pathname.startsWith('/dashboard/api/v1/')) billed.push(u.pathname.slice('/dashboard/api'.length));
    };
    page.on('request', onRequest);
    // the makes' answer is held until the selects have been read while it is on its way
    let releaseMakes!: () => void;
    const makesHeld = new Promise<void>((r) => (releaseMakes = r));
    await page.route('**/dashboard/api/v1/makes', async (route) => {
      await makesHeld;
      await route.continue();
    });
    await goTo('Playground');
    expect(await page.getByText('against your monthly quota').count()).to.be.greaterThan(0);
    // every select shows its placeholder before it can be used, none is blank
    await eventually(async () => {
      expect(await shownIn('Make')).to.equal('Loading…');
    });
    expect(await shownIn('Model')).to.equal('Choose a make first');
    expect(await shownIn('Year')).to.equal('Choose a model first');
    expect(await shownIn('View')).to.equal('Choose a vehicle first');
    releaseMakes();
    await eventually(async () => {
      expect(await page.getByLabel('Make').locator('option[value="aurelia"]').count()).to.equal(1);
    });
    await page.unroute('**/dashboard/api/v1/makes');
    expect(await shownIn('Make')).to.equal('Choose a make');
    expect(await shownIn('Model')).to.equal('Choose a make first');
    expect(await shownIn('Year')).to.equal('Choose a model first');
    await page.waitForTimeout(300);
    expect(billed.sort(), 'opening the page').to.deep.equal(['/v1/colors', '/v1/makes']);
    await page.getByLabel('Make').selectOption('aurelia');
    await eventually(async () => {
      expect(await page.getByLabel('Model').locator('option[value="vento"]').count()).to.equal(1);
    });
    expect(await shownIn('Model')).to.equal('Choose a model');
    expect(await shownIn('Year')).to.equal('Choose a model first');
    await page.waitForTimeout(200);
    expect(billed.slice(2), 'choosing a make: its models, nothing picked for the member').to.deep.equal(['/v1/makes/aurelia/models']);
    await page.getByLabel('Model').selectOption('vento');
    expect(await shownIn('Year')).to.equal('Choose a year');
    await page.getByLabel('Year').selectOption('2024');
    await eventually(async () => {
      expect(await shownIn('Variant')).to.equal('Choose a variant');
    });
    expect(await shownIn('View')).to.equal('Choose a vehicle first');
    await page.getByLabel('Variant').selectOption('gt');
    await eventually(async () => {
      expect(billed.length).to.equal(5);
    });
    expect(billed.slice(3)).to.deep.equal(['/v1/makes/aurelia/models/vento/2024', '/v1/makes/aurelia/models/vento/2024/gt']);
    page.off('request', onRequest);
    // a custom hex that is not one: said next to the field, the text kept
    await page.getByRole('radio', { name: 'custom' }).check();
    await page.getByLabel('Hex colour').fill('zzz');
    await page.getByLabel('Hex colour').press('Enter');
    await page.getByText('“zzz” is not a hex colour').waitFor();
    expect(await page.getByLabel('Hex colour').getAttribute('aria-invalid')).to.equal('true');
    await page.getByLabel('Hex colour').fill('#1e90ff');
    await page.getByLabel('Hex colour').press('Tab');
    // the change is taken on blur and drawn on the next render: wait for the problem to go, not a fixed moment
    await page.getByText('is not a hex colour').waitFor({ state: 'detached' });
    await page.getByLabel('View').selectOption('side_left');
    await page.getByRole('radio', { name: 'blue' }).check();
    await page.getByLabel('Format').selectOption('png');
    await page.getByLabel('Width (px)').fill('640');
    await page.getByLabel('Plate text (optional)').fill('NW 2024');
    await page.getByRole('button', { name: 'Render' }).click();
    const img = page.getByTestId('playground-image');
    await img.waitFor();
    await pictureLoaded(page, 60_000, 640);
    expect(await img.evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth)).to.equal(640);
    const json = JSON.parse(await page.getByTestId('json-answer').innerText());
    expect(json.options).to.include({ color_name: 'blue', format: 'png', width: 640, plate: 'NW 2024' });
    expect(json.vehicle).to.include({ make_slug: 'aurelia', model_slug: 'vento', year: 2024, variant_slug: 'gt' });
    expect(await page.getByTestId('warnings').innerText()).to.include('PLATE_UNMAPPED');
    const curl = await page.getByTestId('curl-line').innerText();
    expect(curl).to.include('-H "X-Api-Key: $KEY"');
    expect(curl).to.include(`${base}/v1/makes/aurelia/models/vento/2024/gt/side_left?`);
    expect(curl).to.include('width=640');
    expect(curl).not.to.match(/svc_live_/);
    // the curl line's URL is a working /v1 call with the same answer
    const curlUrl = new URL(curl.match(/"(http[^"]+)"$/)![1]!);
    const again = await gw.getWithKey(opsKey, curlUrl.pathname + curlUrl.search);
    expect(again.status).to.equal(200);
    expect(again.body.options).to.deep.equal(json.options);

    // the playground's calls are the organisation's: counted under the key-less "dashboard" row
    await eventually(async () => {
      const u = await gw.getWithKey(opsKey, '/v1/usage');
      expect(u.status).to.equal(200);
      const playground = u.body.by_key.find((k: { key_id: string | null }) => k.key_id === null);
      expect(playground?.requests ?? 0, JSON.stringify(u.body)).to.be.greaterThan(0);
      expect(u.body.by_kind.find((k: { kind: string }) => k.kind === 'image')?.requests ?? 0).to.be.greaterThan(0);
    });
  });

  it('the playground shows a 403 with its message and a 429 with when to try again', async () => {
    const contract = { categories: ['passenger-car', 'suv', 'sports'], allowed_formats: ['webp', 'png'], rpm_limit: 600, monthly_quota: 5000 };
    const alert = page.getByRole('alert');
    try {
      await gw.admin.putContract(org, { ...contract, categories: ['suv'] });
      await eventually(async () => {
        await page.getByRole('button', { name: 'Render' }).click();
        expect(await alert.innerText()).to.equal('Contract does not include this vehicle category');
      });
      await gw.admin.putContract(org, { ...contract, rpm_limit: 1 });
      await eventually(async () => {
        await page.getByRole('button', { name: 'Render' }).click();
        expect(await alert.innerText()).to.match(/exceeded for the dashboard playground\. Try again in \d+ (?:seconds?|minutes?)\.$/);
      });
      // a spent monthly quota waits for the next UTC month: said as a date, not as days of seconds
      await gw.admin.putContract(org, { ...contract, monthly_quota: 1 });
      await eventually(async () => {
        await page.getByRole('button', { name: 'Render' }).click();
        expect(await alert.innerText()).to.match(/\. The quota renews on 1 [A-Z][a-z]+ \d{4} \(UTC\)\.$/);
      });
    } finally {
      await gw.admin.putContract(org, contract);
    }
  });

  it('an organisation without a contract, or with an inactive one, is told so on the contract page and in the playground', async () => {
    const bare = await gw.admin.createOrg('Contractless Cars');
    const m = await gw.admin.addMember(bare.id, 'nocontract@example.com');
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const errors: string[] = [];
    try {
      const p = await other.newPage();
      p.on('pageerror', (e) => errors.push(e.message));
      await p.goto(await signInLink(m.id));
      await p.waitForURL(`${base}/dashboard/`);
      expect(await p.getByTestId('no-contract').innerText()).to.include('no contract');
      expect(await p.getByTestId('org-name').innerText()).to.equal('Contractless Cars');
      await p.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Playground', exact: true }).click();
      expect(await p.getByTestId('playground-no-contract').innerText()).to.include('no contract');
      expect(await p.locator('#pg-make').count()).to.equal(0);
      // an inactive contract is said the same way: no form, no retry that cannot work
      await gw.admin.putContract(bare.id, { active: false });
      await p.reload();
      expect(await p.getByTestId('playground-inactive').innerText()).to.include('not active');
      expect(await p.locator('#pg-make').count()).to.equal(0);
      expect(await p.getByRole('button', { name: 'Try again' }).count()).to.equal(0);
      expect(errors).to.deep.equal([]);
    } finally {
      await other.close();
    }
  });

  it('a failing gateway is said as such: a keys list it could not read is not "no key", a session it could not read is not a sign-out', async () => {
    await page.route('**/dashboard/api/keys', (r) => r.fulfill({ status: 502, contentType: 'text/html', body: '<html>Bad gateway</html>' }));
    try {
      await page.goto(`${base}/dashboard/keys`);
      await page.getByTestId('keys-unknown').waitFor();
      expect(await page.getByRole('alert').innerText()).to.equal('The service answered 502.');
      expect(await page.getByText('No active key').count()).to.equal(0);
    } finally {
      await page.unroute('**/dashboard/api/keys');
    }
    await page.getByRole('button', { name: 'Load the keys again' }).click();
    await page.getByTestId('active-keys').waitFor();

    const unavailable = { error: 'unavailable', message: 'The service is temporarily unavailable, retry shortly' };
    await page.route('**/dashboard/api/session', (r) => r.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify(unavailable) }));
    try {
      await page.goto(`${base}/dashboard/usage`);
      await page.getByRole('button', { name: 'Try again' }).waitFor();
      expect(page.url()).to.equal(`${base}/dashboard/usage`);
      expect(await page.getByRole('alert').innerText()).to.equal(unavailable.message);
    } finally {
      await page.unroute('**/dashboard/api/session');
    }
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.getByTestId('usage-figures').waitFor();
    expect(await heading()).to.equal('Usage');
  });

  it('keyboard alone reaches the skip link, the navigation and the main controls, with a visible focus', async () => {
    // a fresh load: focus starts at the top of the document (a client-side navigation focuses the h1 instead)
    await page.goto(`${base}/dashboard/keys`);
    await page.getByTestId('active-keys').waitFor();
    const seen: { label: string; outline: string; contrast: number }[] = [];
    for (let i = 0; i < 30; i++) {
      await page.keyboard.press('Tab');
      // the outline's contrast against what it is drawn on (outside the element, so the parent's background): WCAG 1.4.11 asks 3:1
      const at = await inPage<{ label: string; outline: string; contrast: number } | null>(
          page,
          `(() => { const e = document.activeElement; if (!e || e === document.body) return null; const s = getComputedStyle(e);
            const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
            const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })
              .reduce((t, v, i) => t + v * [0.2126, 0.7152, 0.0722][i], 0);
            let bg = [255, 255, 255];
            for (let p = e.parentElement; p; p = p.parentElement) { const c = rgb(getComputedStyle(p).backgroundColor); if (c.length === 3 || c[3] === 1) { bg = c.slice(0, 3); break; } }
            const [a, b] = [lum(rgb(s.outlineColor).slice(0, 3)) + 0.05, lum(bg) + 0.05];
            return { label: ((e.id ? '#' + e.id : '') + ' ' + (e.innerText || e.getAttribute('aria-label') || '')).trim(),
                     outline: s.outlineStyle + ' ' + s.outlineWidth, contrast: Math.max(a, b) / Math.min(a, b) }; })()`,
      );
      if (!at) break; // past the last control: focus has left the page
      seen.push(at);
    }
    const labels = seen.map((s) => s.label);
    expect(labels[0]).to.include('Skip to content');
    for (const name of ['Contract', 'Keys', 'Usage', 'Playground', 'Account']) expect(labels.some((l) => l.trim() === name), name).to.equal(true);
    expect(labels.some((l) => l.startsWith('#key-name'))).to.equal(true);
    expect(labels.some((l) => l.includes('Create key'))).to.equal(true);
    expect(labels.some((l) => l.startsWith('Revoke'))).to.equal(true);
    for (const s of seen) {
      expect(s.outline, s.label).not.to.match(/^none/);
      expect(s.contrast, `focus outline of ${s.label}`).to.be.at.least(3);
    }

    // create a key with the keyboard only: the new key panel takes focus
    await page.getByLabel('Key name').focus();
    await page.keyboard.type('keyboard-key');
    await page.keyboard.press('Enter');
    await page.getByTestId('new-key').waitFor();
    // the panel takes focus in an effect after it is drawn: on a loaded machine that is a moment later
    await eventually(async () => {
      expect(await inPage<string>(page, 'document.activeElement.dataset.testid')).to.equal('new-key');
    });

    // the skip link moves focus to the page
    await page.goto(`${base}/dashboard/usage`);
    await page.getByTestId('usage-figures').waitFor();
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await eventually(async () => {
      expect(await inPage<string>(page, 'location.hash')).to.equal('#main');
    });
  });

  it('at 375 px wide no page scrolls sideways', async () => {
    await page.setViewportSize({ width: 375, height: 740 });
    try {
      for (const route of ['', 'keys', 'usage', 'playground', 'account']) {
        await page.goto(`${base}/dashboard/${route}`);
        await page.getByRole('heading', { level: 1 }).waitFor();
        await page.waitForLoadState('networkidle');
        const overflow = await inPage<number>(page, 'document.documentElement.scrollWidth - document.documentElement.clientWidth');
        const wide = await inPage<string[]>(
          page,
          `[...document.querySelectorAll('body *')].filter((e) => e.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
             .map((e) => e.tagName + '.' + e.className + '#' + e.id + ' ' + Math.round(e.getBoundingClientRect().right)).slice(0, 8)`,
        );
        expect(overflow, `/dashboard/${route}: ${wide.join(', ')}`).to.be.at.most(0);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('every text on every page has WCAG AA contrast (4.5:1, 3:1 for large text)', async () => {
    for (const route of ['', 'keys', 'usage', 'playground', 'account']) {
      await page.goto(`${base}/dashboard/${route}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.waitForLoadState('networkidle');
      const low = await inPage<string[]>(page, CONTRAST_AUDIT);
      expect(low, `/dashboard/${route}`).to.deep.equal([]);
    }
  });

  it('account: a password can be set, and the member signs out and back in with it', async () => {
    await page.goto(`${base}/dashboard/account`);
    expect(await heading()).to.equal('Account');
    await page.getByLabel('New password', { exact: true }).fill('short');
    await page.getByLabel('New password again').fill('short');
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('at least 12 characters').first().waitFor();
    await page.getByLabel('New password', { exact: true }).fill(PASSWORD);
    await page.getByLabel('New password again').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password' }).click();
    await page.getByText('Your password is saved.').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/dashboard\/sign-in$/);
    expect(await inPage<number>(page, `fetch('/dashboard/api/session').then((r) => r.status)`)).to.equal(401);

    await page.getByLabel('Email address').fill(EMAIL);
    await page.getByLabel('Password', { exact: true }).fill('not the password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/dashboard/`);
    expect(await heading()).to.equal('Contract');
  });

  it('a banned member is refused: the open session ends and sign-in answers 403', async () => {
    // Start from a page whose calls have all come back. The contract page asks for its figures after its
    // heading shows: a call still in flight when the ban lands is refused first, ends the session and
    // takes the navigation away, and the click below then waits for a link that is gone (seen at load 13).
    await page.goto(`${base}/dashboard/`);
    await page.getByTestId('contract-figures').waitFor();
    const unusedLink = await signInLink();
    await gw.admin.ban(memberId);
    try {
      await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Keys', exact: true }).click();
      await page.waitForURL(/\/dashboard\/sign-in$/);
      await page.getByText('Your session has ended').waitFor();

      await page.goto(unusedLink);
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.innerText()).to.equal('Organization access is disabled');

      await page.getByLabel('Email address').fill(EMAIL);
      await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByText('Organization access is disabled').waitFor();
      // the stale "session has ended" is gone once the attempt has its own answer
      expect(await page.getByText('Your session has ended').count()).to.equal(0);
      expect(page.url()).to.match(/\/dashboard\/sign-in$/);
      expect((await gw.admin.call('POST', `/members/${memberId}/sign-in-links`)).status).to.equal(403);
    } finally {
      await gw.admin.unban(memberId);
    }
  });

  it('screenshots of each page (DASHBOARD_SCREENSHOTS=1)', async function () {
    if (!SCREENSHOTS) this.skip();
    const shots = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const p = await shots.newPage();
    const shoot = async (name: string, mask: Locator[] = []) => {
      await p.waitForLoadState('networkidle');
      const png = await p.screenshot({ fullPage: true, mask, maskColor: '#9ca3af' });
      // a palette PNG keeps the committed pictures small
      const small = await sharp(png).png({ palette: true, quality: 90, compressionLevel: 9, effort: 10 }).toBuffer();
      fs.writeFileSync(path.join(ROOT, 'docs', `dashboard-${name}.png`), small);
    };
    try {
      await p.goto(`${base}/dashboard/sign-in`);
      await p.getByLabel('Email address').waitFor();
      await shoot('sign-in');
      await p.goto(await signInLink());
      await p.waitForURL(`${base}/dashboard/`);
      await p.getByTestId('contract-figures').waitFor();
      await shoot('contract');
      await p.goto(`${base}/dashboard/keys`);
      await p.getByLabel('Key name').fill('website-production');
      await p.getByRole('button', { name: 'Create key' }).click();
      await p.getByTestId('new-key-secret').waitFor();
      await p.locator('body').click({ position: { x: 5, y: 5 } }); // no focus ring in the picture
      await shoot('keys', [p.getByTestId('new-key-secret')]); // the secret of a throw-away gateway, masked all the same
      await p.goto(`${base}/dashboard/usage`);
      await p.getByTestId('by-kind').waitFor();
      await shoot('usage');
      await p.goto(`${base}/dashboard/playground`);
      await p.getByLabel('Make').selectOption('aurelia');
      await p.getByLabel('Model').selectOption('vento');
      await p.getByLabel('Year').selectOption('2023');
      await p.getByLabel('View').selectOption('front_left');
      await p.getByRole('radio', { name: 'red' }).check();
      await p.getByLabel('Width (px)').fill('800');
      await p.getByRole('button', { name: 'Render' }).click();
      await pictureLoaded(p);
      await shoot('playground');
      await p.setViewportSize({ width: 375, height: 740 });
      await shoot('playground-phone');
      await p.setViewportSize({ width: 1280, height: 800 });
      await p.goto(`${base}/dashboard/account`);
      await p.getByLabel('New password', { exact: true }).waitFor();
      await shoot('account');
    } finally {
      await shots.close();
    }
  });
});
