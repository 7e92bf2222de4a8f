/**
 * The typed client against a live gateway (port 0, the suite's backend, a real cpu renderer): the
 * example script walks the catalog and writes a real picture (decoded here); typed errors carry the
 * service's code and request id; a 429 is retried after the wait the gateway names (spent by moving
 * the gateway's limits clock, not the wall clock), and a wait beyond the cap (a spent monthly quota) is not.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect } from 'chai';
import sharp from 'sharp';
import { ApiError, createClient, parseRateLimitReset, parseRetryAfter, retryingFetch } from '../../client/src/index.ts';
import { loadRendererConfig } from '../../renderer/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { createGrpcImageRenderer } from '../../gateway/render/grpc-image-renderer.ts';
import { startRendererServer } from '../../renderer/server.ts';
import { backendLabel } from '../gateway/support/backend.ts';
import { startTestGateway, type TestGateway } from '../gateway/support/gateway-fixture.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const EXAMPLE = path.join(ROOT, 'client', 'examples', 'walk-and-download.ts');
const run = promisify(execFile);

describe(`typed client against a live gateway (${backendLabel()})`, function () {
  this.timeout(120_000);
  let gw: TestGateway;
  let renderer: { port: number; close(): Promise<void> };
  let grpc: ReturnType<typeof createGrpcImageRenderer>;
  let key: string;
  let dir: string;

  before(async () => {
    renderer = await startRendererServer({
      config: { ...loadRendererConfig({ RENDER_BACKEND: 'cpu', RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1' }) },
      logger: createLogger('test-renderer', 'silent'),
    });
    grpc = createGrpcImageRenderer({ addresses: `127.0.0.1:${renderer.port}`, logger: createLogger('c', 'silent') });
    gw = await startTestGateway({ renderer: grpc });
    key = (await gw.admin.customer()).key;
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-client-'));
  });
  after(async () => {
    await gw?.close();
    grpc?.close();
    await renderer?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  describe('the example script', () => {
    it('walks make › model › year › variant › views and writes a real, decodable picture', async () => {
      // no SUVs, so the first model is aurelia › vento, whose newest year (2024) has several variants
      const cars = await gw.admin.customer({ categories: ['passenger-car', 'sports'] });
      const out = path.join(dir, 'car.png');
      const { stdout } = await run(process.execPath, ['--import', 'tsx', EXAMPLE, '--base-url', gw.url, '--out', out, '--format', 'png', '--width', '480', '--view', 'rear'], {
        cwd: ROOT,
        env: { ...process.env, API_KEY: cars.key },
      });
      expect(stdout).to.match(/^make {5}\S.*\nmodel {4}\S.*\nyear {5}\d{4}\n/);
      expect(stdout).to.match(/\nvariant {2}\S.* — \d+ to choose from\n/);
      expect(stdout).to.match(/\nviews {4}[a-z_, ]+\n/);
      expect(stdout).to.match(/image {4}rear, image\/png, \d+ bytes/);
      const meta = await sharp(out).metadata();
      expect(meta.format).to.equal('png');
      expect(meta.width).to.equal(480);
      const stats = await sharp(out).stats();
      expect(stats.channels[0]!.stdev, 'a picture, not a flat fill').to.be.greaterThan(5);
    });

    it('a year with one vehicle answers its views directly (BASE_URL and API_KEY from the environment)', async () => {
      // an organisation that sees only SUVs: aurelia › terra › 2022, one vehicle
      const sports = await gw.admin.customer({ categories: ['suv'] });
      const out = path.join(dir, 'sports.webp');
      const { stdout } = await run(process.execPath, ['--import', 'tsx', EXAMPLE, '--out', out], {
        cwd: ROOT,
        env: { ...process.env, BASE_URL: gw.url, API_KEY: sports.key },
      });
      expect(stdout).to.match(/\nmodel {4}Terra \(terra\)\nyear {5}2022\nviews {4}/);
      expect(stdout).not.to.match(/variant/);
      const meta = await sharp(out).metadata();
      expect(meta.format).to.equal('webp');
      expect(meta.width).to.equal(1200);
    });

    it('a refused key ends with the service\'s code, message and request id, exit status 1', async () => {
      const err = (await run(process.execPath, ['--import', 'tsx', EXAMPLE, '--base-url', gw.url, '--api-key', 'svc_live_notarealkey'], { cwd: ROOT }).catch((e: unknown) => e)) as {
        code: number;
        stderr: string;
      };
      expect(err.code).to.equal(1);
      expect(err.stderr).to.match(/^401 unauthorized: The API key is unknown or revoked \(request [\w-]+\)/);
    });
  });

  describe('typed calls and errors', () => {
    it('answers typed data, and an ApiError with status, code, message and request id', async () => {
      const client = createClient({ baseUrl: gw.url, apiKey: key });
      const me = await client.me();
      expect(me.contract.rpm_limit).to.equal(1000);
      const year = await client.year('aurelia', 'vento', 2023);
      if (!('vehicle' in year)) throw new Error('2023 has one vehicle');
      const batch = await client.vehicleImages(year.vehicle.id, { views: 'front', shadow: false, width: 300 });
      expect(batch.images.map((i) => i.view)).to.deep.equal(['front']);
      expect(batch.images[0]!.options.shadow).to.equal(false);
      const picture = await client.download(batch.images[0]!.image_url.replace('http://localhost:', 'http://127.0.0.1:'));
      expect((await sharp(Buffer.from(picture.bytes)).metadata()).width).to.equal(300);
      const e = await client.models('no-such-make').catch((x: unknown) => x);
      expect(e).to.be.instanceOf(ApiError);
      const err = e as ApiError;
      expect([err.status, err.code, err.message]).to.deep.equal([404, 'not_found', 'Make not found']);
      expect(err.requestId).to.match(/^[\w-]{8,}$/);
      const bad = (await client.image({ make: 'aurelia', model: 'vento', year: 2023, variant: null, view: 'front' }, { color: 'nope' }).catch((x: unknown) => x)) as ApiError;
      expect([bad.status, bad.code]).to.deep.equal([400, 'bad_request']);
    });

    it('reads the wait from Retry-After (seconds or a date) and from the RateLimit header', () => {
      expect(parseRetryAfter('12')).to.equal(12);
      expect(parseRetryAfter(new Date(Date.now() + 30_000).toUTCString())).to.be.within(29, 31);
      expect(parseRetryAfter('soon')).to.equal(null);
      expect(parseRateLimitReset(new Headers({ RateLimit: '"minute";r=0;t=12, "month";r=99;t=5000' }))).to.equal(12);
      expect(parseRateLimitReset(new Headers({ RateLimit: '"minute";r=3;t=12, "month";r=0;t=5000' }))).to.equal(5000);
      expect(parseRateLimitReset(new Headers({ 'RateLimit-Reset': '7' }))).to.equal(7);
      expect(parseRateLimitReset(new Headers({ RateLimit: '"minute";r=3;t=12' }))).to.equal(null);
    });
  });

  describe('429', () => {
    it('a spent per-minute limit is retried after the gateway\'s Retry-After, and the call then succeeds', async () => {
      // The gateway names a wait of up to 63 s (its limit of 20 here). Instead of spending it, the
      // client's sleep moves this gateway's limits clock forward by the wait it was asked for: the retry
      // then meets the limiter exactly where a real wait would have left it, without a minute of wall
      // clock.
      let offset = 0;
      const shifted = await startTestGateway({ renderer: null, limitsClock: () => Date.now() + offset });
      try {
        const c = await shifted.admin.customer({ rpm_limit: 20 });
        const retries: Array<{ attempt: number; delayMs: number }> = [];
        const slept: number[] = [];
        const client = createClient({
          baseUrl: shifted.url,
          apiKey: c.key,
          maxRetries: 2,
          maxRetryDelayMs: 90_000,
          onRetry: (r) => retries.push(r),
          sleep: async (ms) => {
            slept.push(ms);
            offset += ms;
          },
        });
        for (let i = 0; i < 20; i++) await client.colors();
        const refused = await shifted.getWithKey(c.key, '/v1/colors');
        expect(refused.status).to.equal(429);
        const announced = Number(refused.headers.get('retry-after'));
        // at most the rest of this minute and 3 s of the next, where 20 × (60 − e′)/60 + 1 ≤ 20: 63 s
        // when the twenty calls and the refusal all fall in a minute's first second (window.ts)
        expect(announced).to.be.within(1, 63);
        const { colors } = await client.colors();
        expect(colors.length).to.equal(8);
        expect(retries.length).to.equal(1);
        expect(retries[0]!.delayMs).to.be.within(announced * 1000 - 1000, announced * 1000 + 1000);
        expect(slept, 'the client waited the delay it reported before retrying').to.deep.equal([retries[0]!.delayMs]);
      } finally {
        await shifted.close();
      }
    });

    it('without a sleep of its own the client waits the Retry-After on a timer before it retries', async () => {
      // a one-second Retry-After from a server of the test's own: the gateway's are minutes
      let calls = 0;
      const server = http.createServer((_req, res) => {
        calls++;
        if (calls === 1) res.writeHead(429, { 'Retry-After': '1', 'Content-Type': 'application/json' }).end('{"error":"rate_limited","message":"wait"}');
        else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      try {
        const delays: number[] = [];
        const fetchWithRetries = retryingFetch({ onRetry: (r) => delays.push(r.delayMs) });
        const started = Date.now();
        const res = await fetchWithRetries(new Request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`));
        expect(res.status).to.equal(200);
        expect(calls).to.equal(2);
        expect(delays).to.have.length(1);
        expect(delays[0]!).to.be.within(1000, 1250);
        expect(Date.now() - started).to.be.at.least(delays[0]!);
      } finally {
        server.close();
      }
    });

    it('with retries off, or a wait beyond the cap (a spent monthly quota), the 429 is an ApiError at once', async () => {
      const c = await gw.admin.customer({ rpm_limit: 1 });
      const noRetry = createClient({ baseUrl: gw.url, apiKey: c.key, maxRetries: 0 });
      await noRetry.views();
      const e = (await noRetry.views().catch((x: unknown) => x)) as ApiError;
      expect(e).to.be.instanceOf(ApiError);
      expect([e.status, e.code]).to.deep.equal([429, 'rate_limited']);
      expect(e.retryAfterSeconds).to.be.greaterThan(0);

      const q = await gw.admin.customer({ monthly_quota: 1 });
      const retries: unknown[] = [];
      const capped = createClient({ baseUrl: gw.url, apiKey: q.key, maxRetries: 5, onRetry: (r) => retries.push(r) });
      await capped.views();
      const before = (await gw.admin.usage(q.org)).requests;
      const started = Date.now();
      const spent = (await capped.views().catch((x: unknown) => x)) as ApiError;
      expect([spent.status, spent.code]).to.deep.equal([429, 'quota_exceeded']);
      expect(spent.retryAfterSeconds).to.be.greaterThan(3600);
      expect(retries).to.deep.equal([]);
      expect(Date.now() - started).to.be.below(5_000);
      expect((await gw.admin.usage(q.org)).requests).to.equal(before);
    });
  });
});
