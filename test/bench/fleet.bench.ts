/**
 * npm run bench:fleet [-- --misses 60] [-- --concurrency 8] [-- --width 800] [-- --format webp]
 *
 * End-to-end image downloads on this machine through two gateways (in this process, one shared
 * database, requests alternating between them) and one, then two renderer processes
 * (`node --import tsx renderer/main.ts`, cpu backend, RENDER_WORKERS=1 each): downloads per second of
 * cache misses (each a new colour) and of cache hits (the same URLs again), p50/p99 latency, and the
 * scaling from one renderer to two. Figures: docs/performance.md, "Fleet".
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../shared/logger.ts';
import { createGrpcImageRenderer } from '../../gateway/render/grpc-image-renderer.ts';
import { startTestGateway, type TestGateway } from '../gateway/support/gateway-fixture.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const arg = (name: string, def: string) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1]! : def);
const MISSES = Number(arg('misses', '60'));
const CONCURRENCY = Number(arg('concurrency', '8'));
const WIDTH = Number(arg('width', '800'));
const FORMAT = arg('format', 'webp');
const SINGLE = '/v1/makes/aurelia/models/vento/2023';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

function startRenderer(port: number): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'renderer', 'main.ts')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, RENDERER_PORT: String(port), RENDERER_HOST: '127.0.0.1', RENDERER_METRICS_PORT: 'off', RENDER_BACKEND: 'cpu', RENDER_WORKERS: '1', RENDER_CACHE_MB: '256', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const timer = setTimeout(() => reject(new Error('renderer did not start')), 120_000);
    // LOG_LEVEL=warn hides "listening": poll the port instead
    const poll = setInterval(() => {
      const s = net.connect(port, '127.0.0.1', () => {
        s.end();
        clearInterval(poll);
        clearTimeout(timer);
        resolve(child);
      });
      s.on('error', () => {});
    }, 200);
    child.once('exit', (code) => {
      clearInterval(poll);
      reject(new Error(`renderer exited (${code})`));
    });
  });
}

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

async function run(urls: string[]): Promise<{ perSecond: number; p50: number; p99: number; failed: number }> {
  const lat: number[] = [];
  let failed = 0;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < urls.length) {
        const url = urls[next++]!;
        const s = performance.now();
        const res = await fetch(url);
        const buf = await res.arrayBuffer();
        if (res.status !== 200 || buf.byteLength === 0) failed++;
        lat.push(performance.now() - s);
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  return { perSecond: urls.length / seconds, p50: pct(lat, 50), p99: pct(lat, 99), failed };
}

async function phase(renderers: number[], label: string, colourBase: number) {
  const addresses = renderers.map((p) => `127.0.0.1:${p}`).join(',');
  const clients = [0, 1].map(() => createGrpcImageRenderer({ addresses, logger: createLogger('bench', 'silent') }));
  const env = { DOWNLOAD_CONCURRENT_RENDERS: '1000', DOWNLOAD_RENDERS_PER_MINUTE: '1000000' };
  const a = await startTestGateway({ renderer: clients[0]!, env });
  const b = await startTestGateway({ renderer: clients[1]!, env, db: a.db, dataDir: a.dataDir, seedDemo: false });
  const gws: TestGateway[] = [a, b];
  try {
    const key = (await a.admin.customer({ rpm_limit: 1_000_000, monthly_quota: 2_000_000_000 })).key;
    const urls: string[] = [];
    for (let i = 0; i < MISSES; i++) {
      const gw = gws[i % 2]!;
      const color = (colourBase + i * 7919).toString(16).padStart(6, '0').slice(-6);
      const j = await gw.getWithKey(key, `${SINGLE}/front_left?format=${FORMAT}&width=${WIDTH}&color=${color}`);
      if (j.status !== 200) throw new Error(`image JSON ${j.status} ${j.text}`);
      // download through the gateway that did not sign it: any gateway serves any URL
      urls.push(String(j.body.image_url).replace(/^http:\/\/localhost:\d+/, gws[(i + 1) % 2]!.url));
    }
    const misses = await run(urls);
    const hits = await run(urls);
    return { label, misses, hits };
  } finally {
    await b.close();
    await a.close();
    for (const c of clients) c.close();
  }
}

const ports = [await freePort(), await freePort()];
const procs = await Promise.all(ports.map(startRenderer));
try {
  console.log(`bench:fleet — ${os.cpus().length} cores (${os.cpus()[0]?.model ?? '?'}), node ${process.version}`);
  console.log(`two gateways, cpu renderers with 1 worker each, ${MISSES} downloads ${FORMAT} ${WIDTH} px, concurrency ${CONCURRENCY}\n`);
  // warm both renderers' layer caches (decoded layers at this width) so both phases measure renders, not loads
  await phase([ports[0]!], 'warm-up 1', 0x010101);
  await phase([ports[1]!], 'warm-up 2', 0x020202);
  const one = await phase([ports[0]!], 'one renderer', 0x300000);
  const two = await phase(ports, 'two renderers', 0x700000);
  const f = (x: number) => x.toFixed(1);
  console.log('| renderers | misses/s | miss p50 ms | miss p99 ms | hits/s | hit p50 ms | hit p99 ms | failed |');
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const r of [one, two]) {
    console.log(`| ${r.label} | ${f(r.misses.perSecond)} | ${f(r.misses.p50)} | ${f(r.misses.p99)} | ${f(r.hits.perSecond)} | ${f(r.hits.p50)} | ${f(r.hits.p99)} | ${r.misses.failed + r.hits.failed} |`);
  }
  console.log(`\nscaling one → two renderers: misses ×${(two.misses.perSecond / one.misses.perSecond).toFixed(2)}, hits ×${(two.hits.perSecond / one.hits.perSecond).toFixed(2)}`);
} finally {
  for (const p of procs) p.kill('SIGTERM');
}
process.exit(0);
