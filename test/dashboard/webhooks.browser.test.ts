// The dashboard's Webhooks page in Debian's Chromium (playwright-core) against a real gateway: a member
// adds an endpoint, sees its signing secret once, and watches a delivery appear in the log; the
// delivery, received by a real HTTP receiver, verifies with that secret (standardwebhooks).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { type Browser, type Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { backendLabel } from '../gateway/support/backend.ts';
import { startTestGateway, type TestGateway } from '../gateway/support/gateway-fixture.ts';
import { WebhookReceiver } from '../gateway/support/webhook-receiver.ts';
import { launchChromium } from '../support/browser.ts';
import { eventually } from '../support/eventually.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIST_INDEX = path.join(ROOT, 'dashboard', 'dist', 'index.html');


describe(`dashboard: Webhooks page in Chromium (${backendLabel()})`, function () {
  this.timeout(120_000);
  let gw: TestGateway;
  let browser: Browser;
  let page: Page;
  let receiver: WebhookReceiver;
  let org: string;
  let memberId: string;
  const pageErrors: string[] = [];

  before(async function () {
    this.timeout(300_000);
    if (!fs.existsSync(DIST_INDEX)) {
      const r = spawnSync(process.execPath, [path.join(ROOT, 'deploy', 'build-dashboard.mjs')], { cwd: ROOT, stdio: 'inherit' });
      if (r.status !== 0) throw new Error('the dashboard build failed');
    }
    receiver = await WebhookReceiver.start();
    gw = await startTestGateway({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_POLL_MS: '100', WEBHOOK_RETRY_SCHEDULE_MS: '100' } });
    org = (await gw.admin.createOrg('Webhook Motors')).id;
    await gw.admin.putContract(org);
    memberId = (await gw.admin.addMember(org, 'hooks@example.com')).id;
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) pageErrors.push(m.text());
    });
  });

  after(async () => {
    await browser?.close();
    await gw?.close();
    await receiver?.close();
  });

  afterEach(() => {
    expect(pageErrors, 'script errors or CSP violations in the page').to.deep.equal([]);
  });

  it('a member adds an endpoint, sees the secret once, and sees a delivery appear in the log', async () => {
    const link = await gw.admin.call('POST', `/members/${memberId}/sign-in-links`);
    expect(link.status, link.text).to.equal(201);
    const base = new URL(link.body.url).origin;
    await page.goto(link.body.url);
    await page.waitForURL(`${base}/dashboard/`);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Webhooks', exact: true }).click();
    await page.waitForURL(`${base}/dashboard/webhooks`);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).to.equal('Webhooks');
    await page.getByText('No endpoint yet').waitFor();

    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('checkbox', { name: 'key.created' }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.getByTestId('new-secret-value').innerText()).trim();
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const row = page.locator('[data-testid="webhooks"] tbody tr');
    await row.first().waitFor(); // the list reloads after the answer
    expect(await row.count()).to.equal(1);
    expect(await row.first().innerText()).to.contain(receiver.url).and.contain('key.created').and.contain('Active');
    // the log of the new endpoint is open, and empty
    await page.getByTestId('no-deliveries').waitFor();

    // hidden, it is gone for good: neither the page nor the API shows it again
    await page.getByRole('button', { name: /hide the secret/ }).click();
    await page.reload();
    await page.locator('[data-testid="webhooks"]').waitFor();
    expect(await page.content()).to.not.contain(secret.slice(6));
    const listed = await gw.admin.call('GET', `/organizations/${org}/webhooks`);
    expect(listed.text).to.not.contain(secret.slice(6));

    // an event: a key created by the operator
    await gw.admin.createKey(org, 'from the operator');
    await receiver.waitFor(1);
    const event = new Webhook(secret).verify(receiver.received[0]!.body, receiver.received[0]!.headers) as { id: string; type: string };
    expect(event.type).to.equal('key.created');

    await page.getByRole('button', { name: `Deliveries of ${receiver.url}` }).click();
    await eventually(async () => {
      await page.getByRole('button', { name: 'Refresh the deliveries' }).click();
      const delivered = page.locator(`[data-testid="deliveries"] tr[data-event-id="${event.id}"] [data-field="status"]`);
      expect(await delivered.innerText({ timeout: 1_000 })).to.equal('delivered');
    });
    expect(await page.locator('[data-testid="deliveries"] tbody tr').first().innerText()).to.contain('key.created').and.contain('HTTP 200');

    // rotate: a new secret, shown once, and deliveries signed by both
    await page.getByRole('button', { name: `Rotate secret of ${receiver.url}` }).click();
    const rotated = (await page.getByTestId('new-secret-value').innerText()).trim();
    expect(rotated).to.match(/^whsec_/).and.not.equal(secret);
    await gw.admin.createKey(org, 'after the rotation');
    await receiver.waitFor(2);
    const second = receiver.received[1]!;
    new Webhook(secret).verify(second.body, second.headers);
    new Webhook(rotated).verify(second.body, second.headers);

    // delete, confirmed
    await page.getByRole('button', { name: `Delete ${receiver.url}` }).click();
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.getByText('No endpoint yet').waitFor();
    expect((await gw.admin.call('GET', `/organizations/${org}/webhooks`)).body.webhooks).to.deep.equal([]);
  });

  it('a private target is refused with the reason on the page when the gateway does not allow them', async () => {
    const strict = await startTestGateway({ db: gw.db, dataDir: gw.dataDir, seedDemo: false });
    try {
      const link = await strict.admin.call('POST', `/members/${memberId}/sign-in-links`);
      const base = new URL(link.body.url).origin;
      await page.goto(link.body.url);
      await page.waitForURL(`${base}/dashboard/`);
      await page.goto(`${base}/dashboard/webhooks`);
      await page.getByLabel('Endpoint URL').fill('https://127.0.0.1/hook');
      await page.getByRole('button', { name: 'Add endpoint' }).click();
      await page.getByText('Webhook endpoint refused: url must not point at a private, loopback or link-local address').waitFor();
      expect(await page.getByTestId('new-secret').count()).to.equal(0);
    } finally {
      await strict.close();
    }
  });
});
