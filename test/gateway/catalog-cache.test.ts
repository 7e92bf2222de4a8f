import { expect } from 'chai';
import { MAKES_TTL_MS } from '../../gateway/catalog/catalog-service.ts';
import { REAL_REDIS_URL, backendLabel } from './support/backend.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';

/**
 * The catalog answers that the gateway keeps in memory (the make list, the image call's lookup) follow
 * a publication change at once on the instance that made it, and on another instance over the same
 * database within 1 s when Redis carries the change, within the cache's lifetime otherwise.
 */
// without Redis each instance hears only its own changes: the other's entry expires (plus polling steps)
const BOUND_MS = REAL_REDIS_URL ? 1000 : MAKES_TTL_MS + 500;
const IMAGE = '/v1/makes/aurelia/models/terra/2022/rear';

async function waitFor(check: () => Promise<boolean>, limitMs: number): Promise<number> {
  const start = Date.now();
  for (;;) {
    const elapsed = Date.now() - start;
    if (await check()) return elapsed;
    if (elapsed > limitMs + 2000) throw new Error(`not seen after ${elapsed} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe(`catalog answers kept in memory follow publication changes (${backendLabel()}; bound ${BOUND_MS} ms)`, function () {
  this.timeout(30_000);
  let a: TestGateway;
  let b: TestGateway;
  let key: string;
  before(async () => {
    a = await startTestGateway();
    b = await startTestGateway({ db: a.db, dataDir: a.dataDir, seedDemo: false });
    key = (await a.admin.customer()).key;
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  const makeSlugs = async (gw: TestGateway) => ((await gw.getWithKey(key, '/v1/makes')).body.makes as Array<{ slug: string }>).map((m) => m.slug);
  const vehicleId = async (path: string) => (await a.getWithKey(key, path)).body.vehicle.id as string;

  it('an unpublished view: 404 at once on the same instance, within the bound on another; back to 200 the same way', async () => {
    const id = await vehicleId('/v1/makes/aurelia/models/terra/2022');
    // both instances have the answer cached
    for (const gw of [a, b]) for (let i = 0; i < 2; i++) expect((await gw.getWithKey(key, IMAGE)).status).to.equal(200);

    expect((await a.admin.call('PATCH', `/vehicles/${id}/views/rear`, { published: false })).status).to.equal(200);
    expect((await a.getWithKey(key, IMAGE)).status).to.equal(404);
    expect(await waitFor(async () => (await b.getWithKey(key, IMAGE)).status === 404, BOUND_MS)).to.be.at.most(BOUND_MS);

    expect((await a.admin.call('PATCH', `/vehicles/${id}/views/rear`, { published: true })).status).to.equal(200);
    expect((await a.getWithKey(key, IMAGE)).status).to.equal(200);
    expect(await waitFor(async () => (await b.getWithKey(key, IMAGE)).status === 200, BOUND_MS)).to.be.at.most(BOUND_MS);
  });

  it('a make whose only vehicle is unpublished leaves the make list at once here, within the bound there', async () => {
    const id = await vehicleId('/v1/makes/koruna/models/cargo/2020');
    expect(await makeSlugs(a)).to.include('koruna');
    expect(await makeSlugs(b)).to.include('koruna');

    expect((await a.admin.call('PATCH', `/vehicles/${id}`, { published: false })).status).to.equal(200);
    try {
      expect(await makeSlugs(a)).not.to.include('koruna');
      expect(await waitFor(async () => !(await makeSlugs(b)).includes('koruna'), BOUND_MS)).to.be.at.most(BOUND_MS);
    } finally {
      await a.admin.call('PATCH', `/vehicles/${id}`, { published: true });
    }
    expect(await makeSlugs(a)).to.include('koruna');
    expect(await waitFor(async () => (await makeSlugs(b)).includes('koruna'), BOUND_MS)).to.be.at.most(BOUND_MS);
  });

  it('a lookup under way when the catalog changes does not keep what it read', async () => {
    const id = await vehicleId('/v1/makes/aurelia/models/terra/2022');
    // the lookup and the change race: whichever order they land in, the answer after the change is 404
    const [, patched] = await Promise.all([
      a.getWithKey(key, '/v1/makes/aurelia/models/terra/2022/side_left'),
      a.admin.call('PATCH', `/vehicles/${id}/views/side_left`, { published: false }),
    ]);
    try {
      expect(patched.status).to.equal(200);
      expect((await a.getWithKey(key, '/v1/makes/aurelia/models/terra/2022/side_left')).status).to.equal(404);
    } finally {
      await a.admin.call('PATCH', `/vehicles/${id}/views/side_left`, { published: true });
    }
  });
});
