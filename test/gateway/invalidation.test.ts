import { expect } from 'chai';
import { REAL_REDIS_URL, backendLabel } from './support/backend.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';

/**
 * Two gateway instances over one database: a change made through instance A must reach instance B's
 * auth cache within 1 s when Redis carries the invalidation, within the cache's TTL (and a second for
 * the request that sees it) otherwise. With Redis the TTL is a minute, so that only the invalidation
 * can meet the bound; without, 1 s (AUTH_CACHE_TTL_MS; 4 s by default), so that the run does not wait
 * out the default four times.
 */
const TTL_MS = REAL_REDIS_URL ? 60_000 : 1000;
const BOUND_MS = REAL_REDIS_URL ? 1000 : TTL_MS + 1000;

async function waitForStatus(gw: TestGateway, key: string, status: number, limitMs: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    const a = await gw.getWithKey(key, '/v1/colors');
    const elapsed = Date.now() - start;
    if (a.status === status) return elapsed;
    if (elapsed > limitMs + 2000) throw new Error(`still ${a.status} after ${elapsed} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe(`auth cache invalidation across instances (${backendLabel()}; bound ${BOUND_MS} ms)`, function () {
  this.timeout(30_000);
  let a: TestGateway;
  let b: TestGateway;
  before(async () => {
    const env = { AUTH_CACHE_TTL_MS: String(TTL_MS) };
    a = await startTestGateway({ env });
    b = await startTestGateway({ db: a.db, dataDir: a.dataDir, seedDemo: false, env });
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  const prime = async (key: string) => {
    // Fill B's cache with a positive answer first, so that only an invalidation (or TTL) can change it.
    expect((await b.getWithKey(key, '/v1/colors')).status).to.equal(200);
    expect((await b.getWithKey(key, '/v1/colors')).status).to.equal(200);
  };

  it('a revocation on one instance is refused on the other within the bound', async () => {
    const c = await a.admin.customer();
    await prime(c.key);
    await a.admin.revokeKey(c.keyId);
    expect(await waitForStatus(b, c.key, 401, BOUND_MS)).to.be.at.most(BOUND_MS);
  });

  it('a ban on one instance is refused on the other within the bound', async () => {
    const c = await a.admin.customer();
    const m = await a.admin.addMember(c.org, 'ban@example.com');
    await prime(c.key);
    await a.admin.ban(m.id);
    expect(await waitForStatus(b, c.key, 403, BOUND_MS)).to.be.at.most(BOUND_MS);
  });

  it('an unban on one instance is served on the other within the bound', async () => {
    const c = await a.admin.customer();
    const m = await a.admin.addMember(c.org, 'unban@example.com');
    await a.admin.ban(m.id);
    await waitForStatus(b, c.key, 403, BOUND_MS); // B has cached the banned state
    expect((await b.getWithKey(c.key, '/v1/colors')).status).to.equal(403);
    await a.admin.unban(m.id);
    expect(await waitForStatus(b, c.key, 200, BOUND_MS)).to.be.at.most(BOUND_MS);
  });

  it('a contract change on one instance applies on the other within the bound', async () => {
    const c = await a.admin.customer();
    await prime(c.key);
    await a.admin.putContract(c.org, { active: false });
    expect(await waitForStatus(b, c.key, 403, BOUND_MS)).to.be.at.most(BOUND_MS);
  });
});
