/**
 * Issue 14, part 2: a fair share of rendering. Downloads are unbilled but guarded per organisation
 * (concurrent and per-minute cache-miss renders at the gateway), the renderer's queue is fair between
 * organisations (org id in gRPC metadata), and a client's disconnect cancels its render.
 */
import { expect } from 'chai';
import { ServiceError } from '../../shared/errors.ts';
import { createDownloadGuard } from '../../gateway/limits/download-guard.ts';
import { RenderQueue } from '../../renderer/render-queue.ts';
import type { RendererInternals } from '../../renderer/server.ts';
import { backendLabel } from './support/backend.ts';
import { request, startTestGateway, type Answer, type TestGateway } from './support/gateway-fixture.ts';
import { startTestRenderer, type TestRenderer } from '../support/test-renderer.ts';

const SINGLE = '/v1/makes/aurelia/models/vento/2023';
const local = (u: string) => u.replace('http://localhost:', 'http://127.0.0.1:');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function waitFor(cond: () => boolean, withinMs: number): Promise<number> {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > withinMs) throw new Error(`condition not met within ${withinMs} ms`);
    await sleep(10);
  }
  return Date.now() - t0;
}

function expect429(a: Answer): number {
  expect(a.status, a.text).to.equal(429);
  expect(Object.keys(a.body).sort()).to.deep.equal(['error', 'message']);
  expect(a.body.error).to.equal('rate_limited');
  const retry = Number(a.headers.get('retry-after'));
  expect(retry).to.be.a('number').and.at.least(1);
  return retry;
}

describe('security: the renderer queue is fair between organisations', () => {
  const gate = () => {
    let open!: () => void;
    const p = new Promise<void>((r) => (open = r));
    return { p, open };
  };

  it('serves waiting tenants in turn, not first come first served', async () => {
    const q = new RenderQueue(1, 100);
    const order: string[] = [];
    const first = gate();
    const running = q.run(() => first.p, Infinity, { tenant: 'A' });
    const jobs: Promise<unknown>[] = [];
    for (let i = 0; i < 5; i++) jobs.push(q.run(async () => void order.push(`A${i}`), Infinity, { tenant: 'A' }));
    jobs.push(q.run(async () => void order.push('B0'), Infinity, { tenant: 'B' }));
    first.open();
    await Promise.all([running, ...jobs]);
    expect(order.indexOf('B0')).to.be.at.most(1); // at most one of A's backlog before B
  });

  it("a full queue makes room for a tenant with fewer waiting renders (the largest backlog's newest is refused)", async () => {
    const q = new RenderQueue(1, 3);
    const first = gate();
    const running = q.run(() => first.p, Infinity, { tenant: 'A' });
    const a = [1, 2, 3].map(() => q.run(async () => 'a', Infinity, { tenant: 'A' }).catch((e: unknown) => e));
    const b = q.run(async () => 'b', Infinity, { tenant: 'B' });
    expect(q.queuedFor('B')).to.equal(1);
    expect(q.queuedFor('A')).to.equal(2);
    first.open();
    await running;
    expect(await b).to.equal('b');
    const outcomes = await Promise.all(a);
    const refused = outcomes.filter((x) => x instanceof ServiceError && x.code === 'resource_exhausted');
    expect(refused).to.have.length(1);
    // the tenant with the largest backlog is refused when it asks for more
    const again = gate();
    const r2 = q.run(() => again.p, Infinity, { tenant: 'A' });
    for (let i = 0; i < 3; i++) void q.run(async () => 0, Infinity, { tenant: 'A' }).catch(() => {});
    await q.run(async () => 0, Infinity, { tenant: 'A' }).then(
      () => expect.fail('admitted'),
      (e: unknown) => expect((e as ServiceError).code).to.equal('resource_exhausted'),
    );
    again.open();
    await r2;
  });

  it('an aborted waiter leaves the queue at once', async () => {
    const q = new RenderQueue(1, 10);
    const first = gate();
    const running = q.run(() => first.p);
    const ac = new AbortController();
    const waiting = q.run(async () => 'never', Infinity, { tenant: 'A', signal: ac.signal }).catch((e: unknown) => e);
    expect(q.queued).to.equal(1);
    ac.abort();
    expect(((await waiting) as ServiceError).code).to.equal('unavailable');
    expect(q.queued).to.equal(0);
    first.open();
    await running;
  });
});

describe('security: the download guard counts cache-miss renders per organisation', () => {
  const refusal = async (p: Promise<unknown>): Promise<ServiceError> => {
    try {
      await p;
    } catch (e) {
      expect(e).to.be.instanceOf(ServiceError);
      return e as ServiceError;
    }
    return expect.fail('admitted');
  };

  it('admits up to the minute limit, counts hits only when they miss, refuses with a Retry-After', async () => {
    const g = createDownloadGuard({ concurrent: 2, perMinute: 3, queued: 0 });
    const t = 60_000 * 1000 + 10_000;
    const at = { nowMs: t };
    for (let i = 0; i < 3; i++) (await g.admit('A', false, at)).release(true, t);
    const over = await refusal(g.admit('A', false, at));
    expect(over.code).to.equal('rate_limited');
    // Retry-After is when one more fits: 50 s to the next minute, where 3 × (60 − e′)/60 + 1 ≤ 3 at e′ = 20 s
    expect(over.headers).to.deep.equal({ 'Retry-After': '70' });
    (await g.admit('A', true, at)).release(false, t); // a presumed hit that was one is not held back nor counted
    (await g.admit('B', false, at)).release(true, t); // another organisation is not affected
    const held = [await g.admit('C', true, at), await g.admit('C', true, at)];
    // with no room to wait, a third in flight is refused at once
    expect((await refusal(g.admit('C', true, at))).headers).to.deep.equal({ 'Retry-After': '1' });
    for (const h of held) h.release(false, t);
    expect(g.inFlight('C')).to.equal(0);
    // the previous minute weighs in: at 30 s into the next minute 3 × 0.5 = 1.5, so one more fits
    const next = t - 10_000 + 60_000 + 30_000;
    (await g.admit('A', false, { nowMs: next })).release(true, next);
    const again = await refusal(g.admit('A', false, { nowMs: next }));
    // 3 × (60 − e′)/60 + 1 + 1 ≤ 3 at e′ = 40 s: 10 s from now
    expect(again.headers).to.deep.equal({ 'Retry-After': '10' });
  });

  it('reads its minute from the clock it is given (the limits clock), not the wall clock', async () => {
    let now = 60_000 * 2000 + 5_000;
    const g = createDownloadGuard({ concurrent: 2, perMinute: 2, queued: 0, clock: () => now });
    for (let i = 0; i < 2; i++) (await g.admit('A', false)).release(true);
    // 2 × (60 − e′)/60 + 1 ≤ 2 at e′ = 30 s into the next minute: 55 s + 30 s from now
    expect((await refusal(g.admit('A', false))).headers).to.deep.equal({ 'Retry-After': '85' });
    now += 85_000;
    (await g.admit('A', false)).release(true);
    // a release is counted in the clock's minute too: one read off the wall clock would land in another
    // minute and forget the previous minute's two
    now = 60_000 * 3000 + 5_000;
    for (let i = 0; i < 2; i++) (await g.admit('A', false)).release(true);
    now += 60_000;
    (await g.admit('A', true)).release(false);
    expect((await refusal(g.admit('A', false))).code).to.equal('rate_limited');
  });

  it('over the renders in flight, downloads wait their turn (first come, first served), up to the queue and its wait', async () => {
    const g = createDownloadGuard({ concurrent: 2, perMinute: 1000, queued: 3, waitMs: 300 });
    const running = [await g.admit('A', false), await g.admit('A', false)];
    const order: number[] = [];
    const waiting = [0, 1, 2].map((i) => g.admit('A', false).then((t) => (order.push(i), t)));
    expect(g.waiting('A')).to.equal(3);
    // the queue is full: the next is refused at once, and another organisation is not held up
    expect((await refusal(g.admit('A', false))).headers).to.deep.equal({ 'Retry-After': '1' });
    (await g.admit('B', false)).release(true);
    running[0]!.release(true);
    running[1]!.release(true);
    const granted = await Promise.all(waiting.slice(0, 2));
    expect(order).to.deep.equal([0, 1]);
    expect(g.inFlight('A')).to.equal(2);
    expect(granted[0]!.waitedMs).to.be.at.least(0);
    // the third waits too long: 429 Retry-After 1, and it gave back its place in the minute
    const late = await refusal(waiting[2]!);
    expect(late.headers).to.deep.equal({ 'Retry-After': '1' });
    expect(g.waiting('A')).to.equal(0);
    for (const t of granted) t.release(true);
    expect(g.inFlight('A')).to.equal(0);
  });

  it('a waiting download whose client went away leaves the queue, and its minute place is given back', async () => {
    const g = createDownloadGuard({ concurrent: 1, perMinute: 2, queued: 4, waitMs: 5_000 });
    const first = await g.admit('A', false);
    const ac = new AbortController();
    const waiting = g.admit('A', false, { signal: ac.signal });
    expect(g.waiting('A')).to.equal(1);
    ac.abort();
    expect((await refusal(waiting)).code).to.equal('unavailable');
    expect(g.waiting('A')).to.equal(0);
    first.release(true);
    // two misses fit the minute: the cancelled one took nothing
    (await g.admit('A', false)).release(true);
    expect((await refusal(g.admit('A', false))).code).to.equal('rate_limited');
  });
});

describe(`security: a fair share of rendering, end to end (${backendLabel()})`, function () {
  this.timeout(90_000);
  let gw: TestGateway;
  let renderer: TestRenderer;
  let internals!: RendererInternals;
  let slowMs = 0;
  let composites = 0;
  // the limits' clock runs with real time, shifted where a test needs a calendar minute to itself
  let clockShift = 0;
  const limitsNow = () => Date.now() + clockShift;

  before(async () => {
    renderer = await startTestRenderer({ env: { RENDER_WORKERS: '1', RENDER_QUEUE_MAX: '1' } });
    internals = renderer.internals;
    // a slow first step on demand (stands in for a big render), and a count of composites
    const levelFor = internals.store.levelFor.bind(internals.store);
    internals.store.levelFor = async (...args: Parameters<typeof levelFor>) => {
      if (slowMs > 0) await sleep(slowMs);
      return levelFor(...args);
    };
    const composite = internals.backend.composite.bind(internals.backend);
    internals.backend.composite = async (job) => {
      composites++;
      return composite(job);
    };
    gw = await startTestGateway({ renderer: renderer.client, limitsClock: limitsNow, env: { DOWNLOAD_RENDERS_PER_MINUTE: '5', DOWNLOAD_CONCURRENT_RENDERS: '2', DOWNLOAD_QUEUED_RENDERS: '1' } });
  });
  after(async () => {
    slowMs = 0;
    await gw?.close();
    await renderer?.close();
  });
  afterEach(() => {
    slowMs = 0;
  });

  let colour = 0x100000;
  const urlFor = async (key: string) => {
    const a = await gw.getWithKey(key, `${SINGLE}/front_left?format=png&width=200&color=${(colour++).toString(16)}`);
    expect(a.status, a.text).to.equal(200);
    return local(a.body.image_url as string);
  };

  describe('happy', () => {
    it('a second organisation downloads while the first replays cache-miss URLs past its minute limit', async () => {
      const a = await gw.admin.customer();
      const b = await gw.admin.customer();
      // one second into a calendar minute of the limits' clock, so that the weighted window is exactly the
      // count for the rest of the test
      clockShift = Math.ceil(limitsNow() / 60_000) * 60_000 + 1_000 - Date.now();
      const served: string[] = [];
      const answers: number[] = [];
      let refused: Answer | null = null;
      let refusedWithin: [number, number] = [0, 0]; // the clock just before and after the first refusal
      for (let i = 0; i < 8; i++) {
        const u = await urlFor(a.key);
        const t0 = limitsNow();
        const r = await request(u);
        answers.push(r.status);
        if (r.status === 200) served.push(u);
        else if (!refused) [refused, refusedWithin] = [r, [t0, limitsNow()]];
      }
      expect(answers.slice(0, 5)).to.deep.equal([200, 200, 200, 200, 200]);
      expect(answers.slice(5)).to.deep.equal([429, 429, 429]);
      // Retry-After is when a retry fits (the rpm limit's arithmetic, window.ts), not the next calendar
      // minute: with 5 of 5 counted this minute, the next minute still weighs them, and one more fits once
      // 5 × (60000 − e′)/60000 + 1 ≤ 5, i.e. 12 s into it: 72 s minus the time elapsed in this minute.
      // (A sliding minute can so need up to two calendar minutes: at most 120 s for a limit of 1.)
      const wait = (at: number) => Math.ceil((72_000 - (at % 60_000)) / 1000);
      expect(expect429(refused!)).to.be.within(wait(refusedWithin[1]), wait(refusedWithin[0]));
      // a URL already served (a cache hit) still downloads; so does the other organisation's first
      expect((await request(served[0]!)).status).to.equal(200);
      const t0 = Date.now();
      expect((await request(await urlFor(b.key))).status).to.equal(200);
      expect(Date.now() - t0).to.be.below(5000);
      // downloads are not billed: the organisation's usage counts only its /v1 calls
      const usage = await gw.admin.usage(a.org);
      expect(usage.requests).to.be.at.most(8);
    });
  });

  describe('error', () => {
    it('over the renders in flight a download waits for a slot and is served; with the wait full it is 429 with Retry-After: 1 and the JSON body', async () => {
      const c = await gw.admin.customer();
      const urls = [await urlFor(c.key), await urlFor(c.key), await urlFor(c.key), await urlFor(c.key)];
      slowMs = 600;
      const first = [request(urls[0]!), request(urls[1]!)];
      await waitFor(() => internals.queue.running + internals.queue.queued >= 2, 5000);
      const third = request(urls[2]!); // waits at the gateway for one of the two
      const fourth = await request(urls[3]!); // the organisation's one waiting place is taken
      expect(expect429(fourth)).to.equal(1);
      // what an operator sees meanwhile: two in flight, one waiting, a refusal for want of room
      const text = await gw.metrics.metrics();
      const value = (re: RegExp) => Number(re.exec(text)?.[1] ?? NaN);
      expect(value(/^gateway_image_download_renders_in_flight (\d+)$/m)).to.equal(2);
      expect(value(/^gateway_image_downloads_waiting (\d+)$/m)).to.equal(1);
      expect(value(/^gateway_image_downloads_refused_total\{reason="queue_full"\} (\d+)$/m)).to.be.at.least(1);
      const done = await Promise.all([...first, third]);
      expect(done.map((d) => d.status)).to.deep.equal([200, 200, 200]);
    });

    it("a full renderer queue makes room for another organisation's render (the flooding one gets 503)", async () => {
      const a = await gw.admin.customer();
      const b = await gw.admin.customer();
      const ua = [await urlFor(a.key), await urlFor(a.key)];
      const ub = await urlFor(b.key);
      slowMs = 700;
      const flood = ua.map((u) => request(u));
      await waitFor(() => internals.queue.running === 1 && internals.queue.queued === 1, 5000);
      const other = await request(ub);
      expect(other.status, other.text).to.equal(200);
      const statuses = (await Promise.all(flood)).map((x) => x.status).sort();
      expect(statuses).to.deep.equal([200, 503]);
    });
  });

  describe('security', () => {
    it("a client's disconnect cancels the render: a waiting one leaves the queue, a running one stops between steps", async () => {
      const a = await gw.admin.customer();
      const b = await gw.admin.customer();
      const running = await urlFor(a.key);
      const queued = await urlFor(b.key);
      slowMs = 1500;
      const before = composites;
      const acRunning = new AbortController();
      const acQueued = new AbortController();
      const p1 = fetch(running, { signal: acRunning.signal }).catch(() => null);
      await waitFor(() => internals.queue.running === 1, 5000);
      const p2 = fetch(queued, { signal: acQueued.signal }).catch(() => null);
      await waitFor(() => internals.queue.queued === 1, 5000);
      acQueued.abort();
      const left = await waitFor(() => internals.queue.queued === 0, 2000);
      expect(left).to.be.below(1000);
      acRunning.abort();
      await Promise.all([p1, p2]);
      // the running render finishes its slow first step, sees nobody waits, and stops there
      await waitFor(() => internals.service.computing === 0 && internals.queue.running === 0, 5000);
      expect(composites).to.equal(before);
      slowMs = 0;
      // the renderer is free: a new download is served at once
      const t0 = Date.now();
      const fresh = await request(await urlFor(b.key));
      expect(fresh.status).to.equal(200);
      expect(Date.now() - t0).to.be.below(3000);
    });

    it('the same picture asked for right after its only client left is rendered anew, not refused', async () => {
      const a = await gw.admin.customer();
      const b = await gw.admin.customer();
      const q = `format=png&width=200&color=${(colour++).toString(16)}`;
      const ua = local((await gw.getWithKey(a.key, `${SINGLE}/front_left?${q}`)).body.image_url as string);
      const ub = local((await gw.getWithKey(b.key, `${SINGLE}/front_left?${q}`)).body.image_url as string);
      slowMs = 800;
      const ac = new AbortController();
      const gone = fetch(ua, { signal: ac.signal }).catch(() => null);
      await waitFor(() => internals.queue.running === 1, 5000);
      ac.abort();
      await gone;
      await sleep(50); // the cancellation has reached the renderer; the render is still in its slow step
      const again = await request(ub);
      expect(again.status, again.text).to.equal(200);
    });

    it('in the renderer: a caller joining a render that every earlier caller left gets a fresh render', async () => {
      const req = { assetSet: 'synthetic', view: 'front_left', color: '#123457', shadow: false, plate: null, format: 'png', width: 200, background: 'studio' } as const;
      slowMs = 600;
      const ac = new AbortController();
      const first = internals.service.render(req, { signal: ac.signal, tenant: 'A' }).catch((e: unknown) => e);
      await waitFor(() => internals.queue.running === 1, 5000);
      ac.abort();
      expect(((await first) as ServiceError).code).to.equal('unavailable');
      const second = await internals.service.render(req, { tenant: 'B' });
      expect(second.bytes.length).to.be.greaterThan(0);
    });

    it('HEAD renders nothing for a picture the gateway already served', async () => {
      const c = await gw.admin.customer();
      const u = await urlFor(c.key);
      expect((await request(u)).status).to.equal(200);
      const before = composites;
      const inQueue = internals.queue.running;
      const head = await fetch(u, { method: 'HEAD' });
      expect(head.status).to.equal(200);
      expect(Number(head.headers.get('content-length'))).to.be.greaterThan(0);
      expect(composites).to.equal(before);
      expect(internals.queue.running).to.equal(inQueue);
    });
  });
});

describe(`security: a client that leaves a download while its grant is checked (${backendLabel()})`, function () {
  this.timeout(60_000);
  let gw: TestGateway;
  let renderer: TestRenderer;
  let slowQueryMs = 0;

  before(async () => {
    renderer = await startTestRenderer();
    // grants checked against the database every time, two renders in flight, nobody waits
    gw = await startTestGateway({ renderer: renderer.client, env: { AUTH_CACHE_TTL_MS: '1', DOWNLOAD_CONCURRENT_RENDERS: '2', DOWNLOAD_QUEUED_RENDERS: '0' } });
    // a stalled database on demand: every query waits first
    const query = gw.db.query.bind(gw.db);
    gw.db.query = (async (...args: Parameters<typeof query>) => {
      if (slowQueryMs > 0) await sleep(slowQueryMs);
      return query(...args);
    }) as typeof gw.db.query;
  });
  after(async () => {
    slowQueryMs = 0;
    await gw?.close();
    await renderer?.close();
  });

  it('holds no render slot afterwards: the organisation downloads again at once', async () => {
    const c = await gw.admin.customer();
    const urls: string[] = [];
    for (let i = 0; i < 3; i++) {
      const a = await gw.getWithKey(c.key, `${SINGLE}/front_left?format=png&width=1200&color=${(0x200000 + i).toString(16)}`);
      urls.push(local(a.body.image_url as string));
    }
    slowQueryMs = 700;
    // two clients give up while their grants are being checked
    await Promise.all(
      urls.slice(0, 2).map(async (u) => {
        const ac = new AbortController();
        setTimeout(() => ac.abort(), 200);
        await fetch(u, { signal: ac.signal }).catch(() => undefined);
      }),
    );
    await sleep(2_000); // their grant checks end and their handlers go on without them
    slowQueryMs = 0;
    for (const u of [urls[2]!, urls[0]!]) {
      const a = await request(u);
      expect(a.status, a.text).to.equal(200);
    }
  });
});
