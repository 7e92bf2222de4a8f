import { expect } from 'chai';
import { Webhook } from 'standardwebhooks';
import { backendLabel } from './support/backend.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';
import { WebhookReceiver } from './support/webhook-receiver.ts';

const ENV = {
  WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
  WEBHOOK_RETRY_SCHEDULE_MS: '50',
  WEBHOOK_POLL_MS: '50',
  USAGE_FLUSH_MS: '50',
};

async function thresholdEvents(gw: TestGateway, org: string) {
  return gw.db.query<{ threshold: number; used: number; quota: number; month: string }>(
    `SELECT (data->>'threshold')::int AS threshold, (data->>'used')::int AS used, (data->>'quota')::int AS quota, data->>'month' AS month
       FROM events WHERE org_id = $1 AND type = 'quota.threshold' ORDER BY seq`,
    [org],
  );
}

/** `n` calls at once, spread over the gateways in turn; the statuses. */
async function parallelCalls(gws: TestGateway[], key: string, n: number): Promise<number[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => gws[i % gws.length]!.getWithKey(key, '/v1/colors').then((a) => a.status)));
}

describe(`events: quota thresholds (${backendLabel()})`, function () {
  let a: TestGateway;
  let b: TestGateway;
  const receivers: WebhookReceiver[] = [];
  before(async () => {
    a = await startTestGateway({ env: ENV });
    // a second instance over the same database (and Redis, where the suite runs on it)
    b = await startTestGateway({ db: a.db, dataDir: a.dataDir, seedDemo: false, env: ENV });
  });
  after(async () => {
    await b?.close();
    await a?.close();
    for (const r of receivers) await r.close();
  });

  async function customerWithReceiver(gw: TestGateway) {
    const c = await gw.admin.customer({ monthly_quota: 100, rpm_limit: 100_000 });
    const r = await WebhookReceiver.start();
    receivers.push(r);
    const ep = await gw.admin.call('POST', `/organizations/${c.org}/webhooks`, { url: r.url, events: ['quota.threshold'] });
    expect(ep.status, ep.text).to.equal(201);
    return { ...c, receiver: r, secret: ep.body.secret as string, endpoint: ep.body.id as string };
  }

  it('1,000 parallel calls crossing 80/90/100 % fire each threshold exactly once, delivered once each', async () => {
    const c = await customerWithReceiver(a);
    const statuses = await parallelCalls([a], c.key, 1000);
    expect(statuses.filter((s) => s === 200)).to.have.length(100);
    expect(statuses.filter((s) => s === 429)).to.have.length(900);
    await a.limiter.flush();
    const events = await thresholdEvents(a, c.org);
    const month = new Date().toISOString().slice(0, 7);
    expect(events.map((e) => e.threshold)).to.deep.equal([80, 90, 100]);
    for (const e of events) {
      expect(e).to.include({ quota: 100, month });
      expect(e.used).to.be.at.least(e.threshold);
    }
    await c.receiver.waitFor(3);
    const got = c.receiver.received.map((x) => new Webhook(c.secret).verify(x.body, x.headers) as { type: string; data: { threshold: number } });
    expect(got.map((e) => e.type)).to.deep.equal(['quota.threshold', 'quota.threshold', 'quota.threshold']);
    expect(got.map((e) => e.data.threshold).sort((x, y) => x - y)).to.deep.equal([80, 90, 100]);
    // more calls (refused) and more flushes fire nothing more
    await parallelCalls([a], c.key, 20);
    await a.limiter.flush();
    expect(await thresholdEvents(a, c.org)).to.have.length(3);
  });

  it('two gateway instances sharing the database: each threshold once, each delivery sent once', async () => {
    const c = await customerWithReceiver(a);
    await parallelCalls([a, b], c.key, 1000);
    await Promise.all([a.limiter.flush(), b.limiter.flush()]);
    const events = await thresholdEvents(a, c.org);
    expect(events.map((e) => e.threshold)).to.deep.equal([80, 90, 100]);
    await c.receiver.waitFor(3);
    // both instances' dispatchers ran: a delivery taken twice would show a second attempt
    const end = Date.now() + 5_000;
    let rows: Array<{ status: string; attempts: number }> = [];
    while (Date.now() < end) {
      rows = await a.db.query(`SELECT status, attempts FROM webhook_deliveries WHERE endpoint_id = $1`, [c.endpoint]);
      if (rows.length === 3 && rows.every((r) => r.status === 'delivered')) break;
      await new Promise((r) => setTimeout(r, 30));
    }
    expect(rows.map((r) => [r.status, r.attempts])).to.deep.equal([['delivered', 1], ['delivered', 1], ['delivered', 1]]);
    expect(new Set(c.receiver.received.map((x) => x.headers['webhook-id'])).size).to.equal(3);
    expect(c.receiver.received).to.have.length(3);
  });
});
