import { expect } from 'chai';
import { createLogger } from '../../shared/logger.ts';
import { utcMonth } from '../../gateway/limits/limiter.ts';
import { classifyV1Path } from '../../gateway/usage/kinds.ts';
import { createUsageRecorder, utcDay } from '../../gateway/usage/recorder.ts';
import { backendLabel } from './support/backend.ts';
import { expectError } from './support/dashboard-client.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';
import { captureLog } from '../support/log-capture.ts';

const IMAGE = '/v1/makes/koruna/models/cargo/2020/front_left';
const kindOf = (body: { by_kind: Array<{ kind: string; requests: number }> }, kind: string) => body.by_kind.find((k) => k.kind === kind)!.requests;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WARN = 40; // pino's level number

function previousMonth(now = new Date()): { month: string; days: number } {
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return { month: utcMonth(d.getTime()), days: new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate() };
}

describe(`GET /v1/usage (${backendLabel()})`, function () {
  this.timeout(60_000);
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    await gw?.close();
  });

  it('splits the month per day, key and kind; requests and remaining are the limiter\'s, the call itself included', async () => {
    const c = await gw.admin.customer({ monthly_quota: 1000 });
    const second = await gw.admin.createKey(c.org, 'second');
    for (let i = 0; i < 3; i++) await gw.getWithKey(c.key, '/v1/makes');
    await gw.getWithKey(c.key, '/v1/colors');
    await gw.getWithKey(c.key, '/v1/nowhere'); // a counted 404: catalog
    await gw.getWithKey(second.key, '/v1/search?q=koruna');
    await gw.getWithKey(second.key, '/v1/search?q=cargo');
    expect((await gw.getWithKey(second.key, IMAGE)).status).to.equal(200);

    const a = await gw.getWithKey(c.key, '/v1/usage');
    expect(a.status, a.text).to.equal(200);
    expect(Object.keys(a.body)).to.deep.equal(['month', 'monthly_quota', 'requests', 'remaining', 'days', 'by_key', 'by_kind']);
    const today = new Date();
    expect(a.body.month).to.equal(utcMonth(today.getTime()));
    expect(a.body.monthly_quota).to.equal(1000);
    expect(a.body.requests).to.equal(9);
    expect(a.body.remaining).to.equal(991);
    expect(a.body.requests).to.equal((await gw.admin.usage(c.org)).requests);

    expect(a.body.days).to.have.length(today.getUTCDate());
    expect(a.body.days[0].date).to.equal(`${a.body.month}-01`);
    expect(a.body.days.at(-1)).to.deep.equal({ date: utcDay(today.getTime()), requests: 9 });
    expect(a.body.days.reduce((s: number, d: { requests: number }) => s + d.requests, 0)).to.equal(9);

    expect(a.body.by_kind).to.deep.equal([
      { kind: 'catalog', requests: 5 },
      { kind: 'search', requests: 2 },
      { kind: 'image', requests: 1 },
      { kind: 'batch', requests: 0 },
      { kind: 'spin', requests: 0 },
      { kind: 'account', requests: 1 },
    ]);
    const prefixOf = async (id: string) => (await gw.db.query<{ prefix: string }>('SELECT prefix FROM api_keys WHERE id = $1', [id]))[0]!.prefix;
    expect(a.body.by_key).to.deep.equal([
      { key_id: c.keyId, name: 'test', prefix: await prefixOf(c.keyId), requests: 6 },
      { key_id: second.id, name: 'second', prefix: await prefixOf(second.id), requests: 3 },
    ]);

    // the figures move with every call, this one included
    await gw.getWithKey(second.key, '/v1/me');
    const b = await gw.getWithKey(c.key, '/v1/usage');
    expect(b.body.requests).to.equal(11);
    expect(kindOf(b.body, 'account')).to.equal(3);
    expect(b.body.days.at(-1).requests).to.equal(11);
    expect(b.headers.get('ratelimit')).to.match(/"month";r=989;/);
  });

  it('month=YYYY-MM: a past month lists every day, a future one none; a bad month is a counted 400', async () => {
    const c = await gw.admin.customer();
    const prev = previousMonth();
    const a = await gw.getWithKey(c.key, `/v1/usage?month=${prev.month}`);
    expect(a.status).to.equal(200);
    expect(a.body.month).to.equal(prev.month);
    expect(a.body.requests).to.equal(0);
    expect(a.body.days).to.have.length(prev.days);
    expect(a.body.days.every((d: { requests: number }) => d.requests === 0)).to.equal(true);
    expect(a.body.by_key).to.deep.equal([]);
    const future = await gw.getWithKey(c.key, '/v1/usage?month=2099-12');
    expect(future.body.days).to.deep.equal([]);
    for (const bad of ['2026-13', '2026-1', 'abc', '1999-12', '2026-01-01']) {
      expectError(await gw.getWithKey(c.key, `/v1/usage?month=${bad}`), 400, 'bad_request');
    }
    const twice = await gw.getWithKey(c.key, '/v1/usage?month=2026-01&month=2026-02');
    expect(twice.status).to.equal(400);
    expect(twice.body).to.deep.equal({ error: 'bad_request', message: 'Parameter month must be given once' });
    expect((await gw.admin.usage(c.org)).requests).to.equal(8); // refused parameters are still counted calls
  });

  it('refuses without a key like every /v1 call (401, not counted)', async () => {
    expectError(await gw.get('/v1/usage'), 401, 'unauthorized');
  });

  it('counts are written behind within a second, and another instance over the same database reads them', async () => {
    const c = await gw.admin.customer();
    for (let i = 0; i < 4; i++) await gw.getWithKey(c.key, '/v1/makes');
    await sleep(1500); // USAGE_DAILY_FLUSH_MS defaults to 1000
    const rows = await gw.db.query<{ kind: string; requests: number }>('SELECT kind, requests FROM usage_daily WHERE org_id = $1', [c.org]);
    expect(rows).to.deep.equal([{ kind: 'catalog', requests: 4 }]);
    const [key] = await gw.db.query<{ last_used_at: Date | null }>('SELECT last_used_at FROM api_keys WHERE id = $1', [c.keyId]);
    expect(key!.last_used_at).to.be.instanceOf(Date);

    const other = await startTestGateway({ db: gw.db, dataDir: gw.dataDir, seedDemo: false });
    try {
      const a = await other.getWithKey(c.key, '/v1/usage');
      expect(kindOf(a.body, 'catalog')).to.equal(4);
      expect(kindOf(a.body, 'account')).to.equal(1); // its own call, still pending there
    } finally {
      await other.close(); // flushes on close
    }
    const after = await gw.db.query<{ kind: string; requests: number }>('SELECT kind, requests FROM usage_daily WHERE org_id = $1 ORDER BY kind', [c.org]);
    expect(after).to.deep.equal([{ kind: 'account', requests: 1 }, { kind: 'catalog', requests: 4 }]);
  });

  it('a failed flush keeps its counts and the next one writes them exactly once', async () => {
    const org = await gw.admin.createOrg('Flush org');
    const key = await gw.admin.createKey(org.id, 'k');
    const recorder = createUsageRecorder({ db: gw.db, logger: createLogger('usage-test', 'silent'), flushMs: 0 });
    const now = Date.now();
    recorder.record(org.id, key.id, 'catalog', now);
    recorder.record(org.id, key.id, 'catalog', now);
    recorder.record(org.id, null, 'image', now);
    await gw.db.query('ALTER TABLE usage_daily RENAME TO usage_daily_away');
    try {
      let failed: unknown = null;
      await recorder.flush().catch((e: unknown) => (failed = e));
      expect(failed).to.be.instanceOf(Error);
      expect(recorder.failedFlushes).to.equal(1);
      // what readers see meanwhile: the counts are still pending
      const pending = await recorder.withPending(async (p) => p.filter((d) => d.orgId === org.id).reduce((s, d) => s + d.delta, 0));
      expect(pending).to.equal(3);
    } finally {
      await gw.db.query('ALTER TABLE usage_daily_away RENAME TO usage_daily');
    }
    recorder.record(org.id, key.id, 'catalog', now);
    await recorder.flush();
    await recorder.flush(); // nothing left: nothing written twice
    await recorder.close();
    const rows = await gw.db.query<{ key_id: string | null; kind: string; requests: number }>(
      "SELECT key_id, kind, requests FROM usage_daily WHERE org_id = $1 ORDER BY kind", [org.id],
    );
    expect(rows).to.deep.equal([
      { key_id: key.id, kind: 'catalog', requests: 3 },
      { key_id: null, kind: 'image', requests: 1 },
    ]);
  });

  it('counts of a vanished organisation or key are left out with a warning naming them; the rest are written', async () => {
    const kept = await gw.admin.createOrg('Kept org');
    const keptKey = await gw.admin.createKey(kept.id, 'kept');
    const gone = await gw.admin.createOrg('Gone org');
    const goneKey = await gw.admin.createKey(kept.id, 'gone');
    const log = captureLog();
    const recorder = createUsageRecorder({ db: gw.db, logger: log.logger('usage-test', 'info'), flushMs: 0 });
    const now = Date.now();
    recorder.record(kept.id, keptKey.id, 'catalog', now);
    recorder.record(gone.id, null, 'image', now);
    recorder.record(gone.id, null, 'image', now);
    recorder.record(kept.id, goneKey.id, 'search', now);
    await gw.db.query('DELETE FROM organizations WHERE id = $1', [gone.id]);
    await gw.db.query('DELETE FROM api_keys WHERE id = $1', [goneKey.id]);
    await recorder.close();

    const rows = await gw.db.query<{ org_id: string; kind: string; requests: number }>(
      'SELECT org_id, kind, requests FROM usage_daily WHERE org_id = ANY($1::text[])', [[kept.id, gone.id]],
    );
    expect(rows).to.deep.equal([{ org_id: kept.id, kind: 'catalog', requests: 1 }]);
    const warnings = log.entries(WARN);
    expect(warnings, log.text()).to.have.length(1);
    expect(warnings[0]!.requests).to.equal(3);
    expect(warnings[0]!.dropped).to.have.deep.members([
      { orgId: gone.id, keyId: null, kind: 'image', day: utcDay(now), delta: 2 },
      { orgId: kept.id, keyId: goneKey.id, kind: 'search', day: utcDay(now), delta: 1 },
    ]);
  });

  it('a call recorded after close is not kept silently: a warning names it', async () => {
    const org = await gw.admin.createOrg('Late org');
    const log = captureLog();
    const recorder = createUsageRecorder({ db: gw.db, logger: log.logger('usage-test', 'info'), flushMs: 0 });
    await recorder.close();
    const now = Date.now();
    recorder.record(org.id, null, 'catalog', now);
    const warnings = log.entries(WARN);
    expect(warnings, log.text()).to.have.length(1);
    expect(warnings[0]!.lost).to.deep.equal([{ orgId: org.id, keyId: null, kind: 'catalog', day: utcDay(now), delta: 1 }]);
  });

  it('classifies /v1 paths by kind as the router resolves them', () => {
    const cases: Array<[string, string]> = [
      ['/makes', 'catalog'],
      ['/makes/koruna', 'catalog'],
      ['/makes/koruna/models', 'catalog'],
      ['/makes/koruna/models/cargo', 'catalog'],
      ['/makes/koruna/models/cargo/2020', 'catalog'],
      ['/makes/koruna/models/cargo/2020/lwb', 'catalog'], // a variant
      ['/makes/koruna/models/cargo/2020/front_left', 'image'],
      ['/makes/koruna/models/cargo/2020/lwb/rear', 'image'],
      ['/colors', 'catalog'],
      ['/views', 'catalog'],
      ['/search', 'search'],
      ['/Search', 'search'],
      ['/me', 'account'],
      ['/usage', 'account'],
      ['/vehicles/veh_x/images', 'batch'],
      ['/vehicles/veh_x/spin', 'spin'],
      ['/vehicles/veh_x/Spin', 'spin'],
      ['/nowhere/at/all', 'catalog'],
    ];
    for (const [p, kind] of cases) expect(classifyV1Path(p), p).to.equal(kind);
  });
});
