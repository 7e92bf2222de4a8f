import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { backendLabel } from './support/backend.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';
import { WebhookReceiver } from './support/webhook-receiver.ts';
import { captureLog } from '../support/log-capture.ts';
import { expectError, signedInCustomer } from './support/dashboard-client.ts';

/** Fast retries and timeouts, so no test waits on the wall clock for more than a moment. */
const FAST = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE_MS: '50',
  WEBHOOK_TIMEOUT_MS: '2000',
  WEBHOOK_POLL_MS: '50',
};

describe(`events: webhooks (${backendLabel()})`, function () {
  let gw: TestGateway;
  const log = captureLog();
  const secrets: string[] = [];
  const receivers: WebhookReceiver[] = [];
  const receiver = async () => {
    const r = await WebhookReceiver.start();
    receivers.push(r);
    return r;
  };
  before(async () => {
    gw = await startTestGateway({ env: FAST, logger: log.logger('gateway', 'info') });
  });
  after(async () => {
    await gw?.close();
    for (const r of receivers) await r.close();
  });

  async function endpoint(org: string, url: string, events?: string[]) {
    const a = await gw.admin.call('POST', `/organizations/${org}/webhooks`, { url, ...(events ? { events } : {}) });
    expect(a.status, a.text).to.equal(201);
    secrets.push(a.body.secret);
    return a.body as { id: string; url: string; events: string[]; secret: string; created_at: string };
  }

  it('delivers key.created signed per Standard Webhooks; the receiver\'s check refuses a tampered body and an old timestamp', async () => {
    const r = await receiver();
    const org = await gw.admin.createOrg();
    const ep = await endpoint(org.id, r.url);
    expect(ep.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(ep.secret.slice(6), 'base64')).to.have.length(32);
    expect(ep.events).to.deep.equal([]);
    // the list never shows a secret
    const list = await gw.admin.call('GET', `/organizations/${org.id}/webhooks`);
    expect(list.status).to.equal(200);
    expect(list.body.webhooks).to.have.length(1);
    expect(list.text).to.not.contain(ep.secret.slice(6, 20));
    expect(list.body.webhooks[0]).to.not.have.property('secret');

    const key = await gw.admin.createKey(org.id, 'ci');
    await r.waitFor(1);
    const got = r.received[0]!;
    const wh = new Webhook(ep.secret);
    const event = wh.verify(got.body, got.headers) as { id: string; type: string; organization_id: string; data: unknown; created_at: string };
    expect(event.type).to.equal('key.created');
    expect(event.id).to.equal(got.headers['webhook-id']);
    expect(event.id).to.match(/^evt_\d{16}$/);
    expect(event.organization_id).to.equal(org.id);
    expect(event.data).to.deep.equal({ key_id: key.id, name: 'ci' });
    expect(Object.keys(event).sort()).to.deep.equal(['created_at', 'data', 'id', 'organization_id', 'type']);
    expect(got.headers['content-type']).to.equal('application/json');

    expect(() => wh.verify(got.body.replace('"ci"', '"cj"'), got.headers)).to.throw();
    const old = new Date(Date.now() - 10 * 60_000);
    const oldHeaders = { ...got.headers, 'webhook-timestamp': String(Math.floor(old.getTime() / 1000)), 'webhook-signature': wh.sign(event.id, old, got.body) };
    expect(() => wh.verify(got.body, oldHeaders)).to.throw(/timestamp/i);
    // a secret of another endpoint does not verify it either
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(got.body, got.headers)).to.throw();
  });

  it('a receiver answering 500, 500, 200 gets the event three times with one webhook-id', async () => {
    const r = (await receiver()).answer(500, 500, 200);
    const org = await gw.admin.createOrg();
    const ep = await endpoint(org.id, r.url, ['key.revoked']);
    const key = await gw.admin.createKey(org.id); // key.created: not subscribed
    await gw.admin.revokeKey(key.id);
    await r.waitFor(3);
    const ids = new Set(r.received.map((x) => x.headers['webhook-id']));
    expect(ids.size).to.equal(1);
    for (const x of r.received) expect((new Webhook(ep.secret).verify(x.body, x.headers) as { type: string }).type).to.equal('key.revoked');
    const log = await waitForDelivery(ep.id, 'delivered');
    expect(log).to.deep.include({ status: 'delivered', attempts: 3, last_status: 200, type: 'key.revoked' });
  });

  it('a stalling receiver is timed out (WEBHOOK_TIMEOUT_MS) and the event retried', async () => {
    const r = (await receiver()).answer('stall');
    const org = await gw.admin.createOrg();
    const ep = await endpoint(org.id, r.url);
    await gw.admin.createKey(org.id);
    await r.waitFor(2);
    expect(r.received[0]!.headers['webhook-id']).to.equal(r.received[1]!.headers['webhook-id']);
    const log = await waitForDelivery(ep.id, 'delivered');
    expect(log.attempts).to.equal(2);
  });

  it('a 410 answer disables the endpoint', async () => {
    const r = (await receiver()).answer(410);
    const org = await gw.admin.createOrg();
    const ep = await endpoint(org.id, r.url);
    await gw.admin.createKey(org.id);
    const log = await waitForDelivery(ep.id, 'failed');
    expect(log.last_status).to.equal(410);
    const list = await gw.admin.call('GET', `/organizations/${org.id}/webhooks`);
    expect(list.body.webhooks[0].disabled_at).to.be.a('string');
    // nothing more is sent to it
    await gw.admin.createKey(org.id);
    const before = r.received.length;
    const other = await receiver();
    await endpoint(org.id, other.url);
    await gw.admin.createKey(org.id);
    await other.waitFor(1);
    expect(r.received.length).to.equal(before);
  });

  it('rotate-secret: for the overlap both secrets sign each delivery', async () => {
    const r = await receiver();
    const org = await gw.admin.createOrg();
    const ep = await endpoint(org.id, r.url);
    const rot = await gw.admin.call('POST', `/webhooks/${ep.id}/rotate-secret`);
    expect(rot.status, rot.text).to.equal(200);
    expect(rot.body.secret).to.match(/^whsec_/).and.not.equal(ep.secret);
    secrets.push(rot.body.secret);
    const overlap = Date.parse(rot.body.previous_secret_expires_at) - Date.now();
    expect(overlap).to.be.within(23.9 * 3_600_000, 24 * 3_600_000 + 60_000);
    await gw.admin.createKey(org.id);
    await r.waitFor(1);
    const got = r.received[0]!;
    expect(got.headers['webhook-signature']!.split(' ')).to.have.length(2);
    new Webhook(ep.secret).verify(got.body, got.headers);
    new Webhook(rot.body.secret).verify(got.body, got.headers);
  });

  it('delete removes the endpoint; unknown ids are 404 JSON; at most 5 endpoints', async () => {
    const r = await receiver();
    const org = await gw.admin.createOrg();
    const eps = [];
    for (let i = 0; i < 5; i++) eps.push(await endpoint(org.id, `${r.url}?n=${i}`));
    const sixth = await gw.admin.call('POST', `/organizations/${org.id}/webhooks`, { url: r.url });
    expect(sixth.status).to.equal(403);
    expect(sixth.body).to.deep.equal({ error: 'forbidden', message: 'An organization can have at most 5 webhook endpoints; delete one to create another' });
    const del = await gw.admin.call('DELETE', `/webhooks/${eps[0]!.id}`);
    expect(del.status).to.equal(200);
    expect(del.body).to.deep.equal({ id: eps[0]!.id, deleted: true });
    expect((await gw.admin.call('DELETE', `/webhooks/${eps[0]!.id}`)).body).to.deep.equal({ error: 'not_found', message: 'Webhook endpoint not found' });
    expect((await gw.admin.call('POST', '/webhooks/whk_nope/rotate-secret')).status).to.equal(404);
    expect((await gw.admin.call('GET', '/organizations/org_nope/webhooks')).status).to.equal(404);
    const bad = await gw.admin.call('POST', `/organizations/${org.id}/webhooks`, { url: r.url, events: ['key.exploded'] });
    expect(bad.status).to.equal(400);
    expect(bad.body.error).to.equal('bad_request');
    expect(Object.keys(bad.body).sort()).to.deep.equal(['error', 'message']);
  });

  it('contract.updated carries the contract as /v1/me shows it; bans write access.disabled and the last unban access.restored', async () => {
    const r = await receiver();
    const org = await gw.admin.createOrg();
    await endpoint(org.id, r.url, ['contract.updated', 'access.disabled', 'access.restored']);
    await gw.admin.putContract(org.id, { rpm_limit: 77, monthly_quota: 5000, categories: ['suv', 'sports'], allowed_formats: ['png', 'webp'] });
    const key = await gw.admin.createKey(org.id);
    const me = await gw.getWithKey(key.key, '/v1/me');
    const a = await gw.admin.addMember(org.id, 'a@example.com');
    const b = await gw.admin.addMember(org.id, 'b@example.com');
    await gw.admin.ban(a.id);
    await gw.admin.ban(a.id); // already banned: no second event
    await gw.admin.ban(b.id);
    await gw.admin.unban(a.id); // b still banned: access stays disabled
    await gw.admin.unban(b.id);
    await r.waitFor(4);
    const events = r.events().sort((x, y) => (x.id < y.id ? -1 : 1));
    expect(events.map((e) => e.type)).to.deep.equal(['contract.updated', 'access.disabled', 'access.disabled', 'access.restored']);
    expect(events[0]!.data).to.deep.equal(me.body.contract);
    expect(events[1]!.data).to.deep.equal({ reason: 'member_banned', member_id: a.id });
    expect(events[2]!.data).to.deep.equal({ reason: 'member_banned', member_id: b.id });
    expect(events[3]!.data).to.deep.equal({ member_id: b.id });
  });

  it('GET /v1/events: the organisation\'s events oldest first, paged by after/limit, each call counted', async () => {
    const c = await gw.admin.customer();
    const other = await gw.admin.customer();
    for (let i = 0; i < 3; i++) await gw.admin.createKey(c.org, `k${i}`);
    const all = await gw.getWithKey(c.key, '/v1/events');
    expect(all.status, all.text).to.equal(200);
    expect(all.body.events.map((e: { type: string }) => e.type)).to.deep.equal(['contract.updated', 'key.created', 'key.created', 'key.created', 'key.created']);
    for (const e of all.body.events) expect(e.organization_id).to.equal(c.org);
    const ids = all.body.events.map((e: { id: string }) => e.id);
    expect([...ids].sort()).to.deep.equal(ids);
    expect(all.body.next).to.equal(ids.at(-1));
    const page = await gw.getWithKey(c.key, `/v1/events?after=${ids[1]}&limit=2`);
    expect(page.body.events.map((e: { id: string }) => e.id)).to.deep.equal(ids.slice(2, 4));
    expect(page.body.next).to.equal(ids[3]);
    const end = await gw.getWithKey(c.key, `/v1/events?after=${ids.at(-1)}`);
    expect(end.body).to.deep.equal({ events: [], next: ids.at(-1) });
    // another organisation's feed never shows these
    const theirs = await gw.getWithKey(other.key, '/v1/events');
    for (const e of theirs.body.events) expect(e.organization_id).to.equal(other.org);
    for (const q of ['after=12', 'limit=0', 'limit=x', 'after=evt_1&after=evt_2']) {
      const a = await gw.getWithKey(c.key, `/v1/events?${q}`);
      expect(a.status, q).to.equal(400);
      expect(Object.keys(a.body).sort(), q).to.deep.equal(['error', 'message']);
    }
    expect((await gw.getWithKey(c.key, '/v1/events?limit=1000')).status).to.equal(200);
    // three reads, four refused queries (a counted 400, like any /v1 call's) and the clamped limit
    expect((await gw.admin.usage(c.org)).requests).to.equal(3 + 4 + 1);
  });

  it('the dashboard API manages the session\'s own organisation\'s endpoints only', async () => {
    const r = await receiver();
    const mine = await signedInCustomer(gw);
    const theirs = await signedInCustomer(gw);
    const created = await mine.client.call('POST', '/webhooks', { url: r.url, events: ['key.revoked'] });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.secret).to.match(/^whsec_/);
    secrets.push(created.body.secret);
    expect((await mine.client.call('GET', '/webhooks')).body.webhooks.map((w: { id: string }) => w.id)).to.deep.equal([created.body.id]);
    expect((await theirs.client.call('GET', '/webhooks')).body.webhooks).to.deep.equal([]);
    // another organisation's endpoint is not found, whatever the call
    expectError(await theirs.client.call('DELETE', `/webhooks/${created.body.id}`), 404, 'not_found');
    expectError(await theirs.client.call('POST', `/webhooks/${created.body.id}/rotate-secret`), 404, 'not_found');
    expectError(await theirs.client.call('GET', `/webhooks/${created.body.id}/deliveries`), 404, 'not_found');
    // state-changing calls need the session's CSRF token, as every dashboard call does
    expectError(await mine.client.call('POST', '/webhooks', { url: r.url }, { 'x-csrf-token': 'wrong' }), 403, 'forbidden');
    await gw.admin.revokeKey(mine.keyId);
    await r.waitFor(1);
    const log = await mine.client.call('GET', `/webhooks/${created.body.id}/deliveries`);
    expect(log.body.deliveries[0]).to.include({ type: 'key.revoked' });
    expect((await mine.client.call('DELETE', `/webhooks/${created.body.id}`)).body).to.deep.equal({ id: created.body.id, deleted: true });
  });

  it('concurrent changes of one organisation (keys created and revoked, bans, contract) all commit, each with its one event', async () => {
    const c = await gw.admin.customer();
    const keys = await Promise.all(Array.from({ length: 6 }, (_, i) => gw.admin.createKey(c.org, `k${i}`)));
    const members = await Promise.all(Array.from({ length: 3 }, (_, i) => gw.admin.addMember(c.org, `p${i}@example.com`)));
    const calls = [
      ...keys.map((k) => gw.admin.call('POST', `/keys/${k.id}/revoke`)),
      ...Array.from({ length: 6 }, (_, i) => gw.admin.call('POST', `/organizations/${c.org}/keys`, { name: `n${i}` })),
      ...members.map((m) => gw.admin.call('POST', `/members/${m.id}/ban`)),
      gw.admin.call('PUT', `/organizations/${c.org}/contract`, { categories: ['suv'], allowed_formats: ['png'], rpm_limit: 10, monthly_quota: 10, active: true }),
    ];
    const answers = await Promise.all(calls);
    expect(answers.map((a) => a.status).filter((s) => s >= 300), answers.map((a) => a.text).join('\n')).to.deep.equal([]);
    const rows = await gw.db.query<{ type: string; n: number }>(
      'SELECT type, count(*)::int AS n FROM events WHERE org_id = $1 GROUP BY type ORDER BY type',
      [c.org],
    );
    expect(rows).to.deep.equal([
      { type: 'access.disabled', n: 3 },
      { type: 'contract.updated', n: 2 },
      { type: 'key.created', n: 1 + 6 + 6 },
      { type: 'key.revoked', n: 6 },
    ]);
  });

  it('the log tells each attempt (event, endpoint, target origin, status) and never a secret', () => {
    const lines = log.entries().filter((e) => String(e.msg).startsWith('webhooks:'));
    expect(lines.some((e) => e.msg === 'webhooks: delivered' && typeof e.event === 'string' && typeof e.endpoint === 'string')).to.equal(true);
    expect(lines.some((e) => e.msg === 'webhooks: the receiver answered 410 Gone; endpoint disabled')).to.equal(true);
    expect(secrets.length).to.be.greaterThan(5);
    const text = log.text();
    for (const s of secrets) {
      expect(text).to.not.contain(s.slice(6));
      expect(text).to.not.contain(Buffer.from(s.slice(6), 'base64').toString('hex'));
    }
  });

  async function waitForDelivery(endpointId: string, status: string) {
    const end = Date.now() + 10_000;
    for (;;) {
      const a = await gw.admin.call('GET', `/webhooks/${endpointId}/deliveries`);
      const d = a.body.deliveries?.[0];
      if (d?.status === status) return d;
      if (Date.now() > end) throw new Error(`no ${status} delivery: ${a.text}`);
      await new Promise((r) => setTimeout(r, 30));
    }
  }
});

describe(`events: webhook targets (${backendLabel()})`, () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ seedDemo: false });
  });
  after(async () => {
    await gw?.close();
  });

  it('without WEBHOOK_ALLOW_PRIVATE_TARGETS, http and private, loopback and link-local targets (also by name) are refused', async () => {
    const org = await gw.admin.createOrg();
    for (const url of [
      'http://127.0.0.1:8080/hook',
      'http://10.0.0.1/hook',
      'https://10.0.0.1/hook',
      'https://127.0.0.1/hook',
      'https://[::1]/hook',
      'https://169.254.169.254/latest',
      'https://192.168.1.10/',
      'https://[::ffff:127.0.0.1]/',
      'https://localhost:8443/hook', // a name resolving to loopback
      'https://user:pw@example.com/',
      'not a url',
    ]) {
      const a = await gw.admin.call('POST', `/organizations/${org.id}/webhooks`, { url });
      expect(a.status, url).to.equal(400);
      expect(a.body.error, url).to.equal('bad_request');
      expect(a.body.message, url).to.match(/^Webhook endpoint refused: /);
    }
    expect((await gw.admin.call('GET', `/organizations/${org.id}/webhooks`)).body.webhooks).to.deep.equal([]);
  });
});

describe(`events: the retry window (${backendLabel()})`, () => {
  let gw: TestGateway;
  let r: WebhookReceiver;
  before(async () => {
    r = await WebhookReceiver.start();
    gw = await startTestGateway({ seedDemo: false, env: { ...FAST, WEBHOOK_RETRY_WINDOW_MS: '400' } });
  });
  after(async () => {
    await gw?.close();
    await r?.close();
  });

  it('a receiver that keeps failing is retried until the window ends, then the delivery is marked failed', async () => {
    r.then = 503;
    const org = await gw.admin.createOrg();
    const ep = await gw.admin.call('POST', `/organizations/${org.id}/webhooks`, { url: r.url });
    await gw.admin.createKey(org.id);
    const end = Date.now() + 10_000;
    let d: { status: string; attempts: number; last_status: number | null } | undefined;
    while (Date.now() < end) {
      d = (await gw.admin.call('GET', `/webhooks/${ep.body.id}/deliveries`)).body.deliveries[0];
      if (d?.status === 'failed') break;
      await new Promise((res) => setTimeout(res, 50));
    }
    expect(d).to.include({ status: 'failed', last_status: 503 });
    expect(d!.attempts).to.be.at.least(2);
    expect(r.received.length).to.equal(d!.attempts);
    expect(new Set(r.received.map((x) => x.headers['webhook-id'])).size).to.equal(1);
    // the endpoint stays enabled: only a 410 disables it
    expect((await gw.admin.call('GET', `/organizations/${org.id}/webhooks`)).body.webhooks[0].disabled_at).to.equal(null);
  });
});
