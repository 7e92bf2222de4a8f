/**
 * `npm run bench:download`: where a cache-miss image download spends its time beyond the renderer's own
 * render (issue 31, item 6). Target: the overhead (the client's wall time less the renderer's render)
 * at most 2 ms + 5 % of the render at p50, at 1600 and 2400 px, in every format, on the cpu backend.
 *
 * Process arrangement, as the embedded defaults run it (`npm start` without RENDERER_ADDR):
 * - a renderer process (`renderer/main.ts`, RENDER_BACKEND=cpu, its defaults otherwise: warm-up, one
 *   worker a core, the 256 MiB cache), LOG_LEVEL=info, its stdout read here (the `render` lines);
 * - a gateway process (`<this file> gateway`): startGateway from the service's composition root on port
 *   0, a temporary DATA_DIR (PGlite, the in-process limiter), the demo catalog, LOG_LEVEL=info (the
 *   access log on a pipe read here), the service's gRPC client of that renderer (createGrpcImageRenderer);
 *   it makes an organisation with a contract that never limits the bench and a key;
 * - this process: the client (node:http, one keep-alive connection), one download at a time.
 *
 * Each download is a miss (its own colour). Its parts, each measured inside one process:
 * - `wall`: the client, from the request to the last byte of the body (this process);
 * - `render`: the renderer's own time, from the call's arrival to its header (RenderHeader.render_ms);
 * - `recv→grant`: the gateway from the request's arrival (http.server.request.start) to the render
 *   call (the token verified, the grant checked, a download slot taken);
 * - `gRPC→hdr −render`: the call's start to its header in the gateway, less the renderer's render
 *   (the request and header over gRPC, the handler around the render);
 * - `hdr→last`: the header to the last chunk in the gateway (the bytes over gRPC);
 * - `last→fin`: the last chunk to the response's `finish` (the route writing the body);
 * - `client`: `wall` less the gateway's arrival→finish (the request and response on the wire, the client).
 * Each column is its own p50; `overhead` is the p50 of each download's wall − render, next to the
 * target 2 ms + 5 % of the p50 render. After each miss the same URL is downloaded again (`… hit`: the
 * renderer's cache answers, the same bytes): that row is what the path costs those bytes without a render.
 *
 * BENCH_BEFORE=<commit>: a second renderer and gateway from that commit (`git archive` into a temporary
 * directory, this checkout's node_modules and assets linked in), measured in the same run, download by
 * download alternately (which goes first turns each round): a before/after side by side. The commit
 * must report render_ms (from the commit that added this bench on). BENCH_AFTER=<commit>: the other
 * stack from that commit too, instead of this checkout (whose uncommitted changes would count).
 *
 * Knobs (environment): BENCH_N downloads a case (10), BENCH_WARMUP unmeasured downloads a case (2),
 * BENCH_FORMATS (webp,png,jpeg), BENCH_WIDTHS (1600,2400), BENCH_VIEW (front_left), BENCH_BEFORE, BENCH_AFTER.
 */
import { execSync, fork, spawn, type ChildProcess } from 'node:child_process';
import diagnostics from 'node:diagnostics_channel';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SELF), '../..');
const env = process.env;
const N = Number(env.BENCH_N ?? 10);
const WARMUP = Number(env.BENCH_WARMUP ?? 2);
const FORMATS = (env.BENCH_FORMATS ?? 'webp,png,jpeg').split(',');
const WIDTHS = (env.BENCH_WIDTHS ?? '1600,2400').split(',').map(Number);
const VIEW = env.BENCH_VIEW ?? 'front_left';
const BEFORE = env.BENCH_BEFORE || null;
const AFTER = env.BENCH_AFTER || null;

/** One download's parts as the gateway saw them (performance.now() of the gateway process). */
interface GatewayRecord {
  id: string;
  recvAt: number;
  grantAt?: number;
  callAt?: number;
  headerAt?: number;
  endAt?: number;
  finishAt: number;
  renderMs?: number;
  bytes?: number;
}

// ------------------------------------------------------------------------------------------------
// Child: the gateway (modules from BENCH_ROOT: this checkout, or the BENCH_BEFORE tree)
// ------------------------------------------------------------------------------------------------
async function gatewayChild(): Promise<void> {
  const root = env.BENCH_ROOT ?? ROOT;
  const mod = <T>(p: string): Promise<T> => import(pathToFileURL(path.join(root, p)).href) as Promise<T>;
  // the gateway's configuration moved from shared/config.ts to gateway/config.ts: a BENCH_BEFORE tree may have either
  const configModule = fs.existsSync(path.join(root, 'gateway/config.ts')) ? 'gateway/config.ts' : 'shared/config.ts';
  const { loadGatewayConfig } = await mod<typeof import('../../gateway/config.ts')>(configModule);
  const { createLogger } = await mod<typeof import('../../shared/logger.ts')>('shared/logger.ts');
  const { createGrpcImageRenderer } = await mod<typeof import('../../gateway/render/grpc-image-renderer.ts')>('gateway/render/grpc-image-renderer.ts');
  const { startGateway } = await mod<typeof import('../../gateway/service.ts')>('gateway/service.ts');

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dl-bench-'));
  const config = loadGatewayConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    SEED_DEMO: 'true',
    LOG_LEVEL: 'info',
    RENDERER_ADDR: env.RENDERER_ADDR!,
    DOWNLOAD_RENDERS_PER_MINUTE: '100000',
  });
  const logger = createLogger('gateway', config.logLevel);
  const grpcRenderer = createGrpcImageRenderer({ addresses: config.rendererAddr!, logger });

  // the parts, keyed by the request id the client sends (X-Request-Id, passed on to the renderer)
  const records = new Map<string, GatewayRecord>();
  diagnostics.subscribe('http.server.request.start', (msg) => {
    const { request, response } = msg as { request: http.IncomingMessage; response: http.ServerResponse };
    const id = request.headers['x-request-id'];
    if (typeof id !== 'string' || !id.startsWith('dl-')) return;
    const rec: GatewayRecord = { id, recvAt: performance.now(), finishAt: 0 };
    records.set(id, rec);
    response.once('finish', () => {
      rec.finishAt = performance.now();
      records.delete(id);
      process.send!({ record: rec });
    });
  });
  const renderer: typeof grpcRenderer = {
    ...grpcRenderer,
    async render(req, o) {
      const rec = o.requestId ? records.get(o.requestId) : undefined;
      if (rec) rec.grantAt = performance.now();
      const out = await grpcRenderer.render(req, o);
      if (rec) {
        rec.callAt = out.timing?.callAt;
        rec.headerAt = out.timing?.headerAt;
        rec.endAt = out.timing?.endAt;
        rec.renderMs = out.header.renderMs;
        rec.bytes = out.header.byteLength;
      }
      return out;
    },
  };
  const gw = await startGateway({ config, logger, renderer });
  process.on('message', (m) => {
    if (m === 'close') void gw.close().then(() => {
      grpcRenderer.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      process.exit(0);
    });
  });

  const admin = async (method: string, p: string, body?: unknown) => {
    const r = await fetch(`${gw.url}/admin/v1${p}`, {
      method,
      headers: { authorization: `Bearer ${gw.adminToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`admin ${method} ${p}: ${r.status} ${await r.text()}`);
    return (await r.json()) as Record<string, unknown>;
  };
  const org = await admin('POST', '/organizations', { name: 'Download bench' });
  await admin('PUT', `/organizations/${org.id}/contract`, {
    categories: ['passenger-car', 'suv', 'light-commercial', 'sports'],
    allowed_formats: ['webp', 'png', 'jpeg'],
    rpm_limit: 1_000_000,
    monthly_quota: 2_000_000_000,
    active: true,
  });
  const { key } = (await admin('POST', `/organizations/${org.id}/keys`, { name: 'bench' })) as { key: string };
  process.send!({ ready: { url: gw.url, key, imagePath: gw.exampleImagePath } });
}

// ------------------------------------------------------------------------------------------------
// The driver
// ------------------------------------------------------------------------------------------------
interface RendererLine {
  ms: number;
  renderMs?: number;
}

interface Stack {
  name: string;
  root: string;
  renderer: ChildProcess;
  gateway: ChildProcess;
  url: string;
  key: string;
  imagePath: string;
  records: Map<string, GatewayRecord>;
  waiting: Map<string, (r: GatewayRecord) => void>;
  rendererLines: Map<string, RendererLine>;
  agent: http.Agent;
}

const median = (xs: number[]) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (s.length === 0) return NaN;
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const f1 = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : '–');

async function freePort(): Promise<number> {
  const { freePort: fp } = await import('../support/ports.ts');
  return fp();
}

/** The tree of BENCH_BEFORE in a temporary directory, with this checkout's node_modules and assets. */
function commitTree(commit: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `dl-bench-${commit.slice(0, 12)}-`));
  execSync(`git archive ${commit} -- . ':(exclude)assets' | tar -x -C ${dir}`, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  fs.symlinkSync(path.join(ROOT, 'assets'), path.join(dir, 'assets'));
  return dir;
}

async function startStack(name: string, root: string): Promise<Stack> {
  const port = await freePort();
  const rendererLines = new Map<string, RendererLine>();
  const renderer = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'renderer', 'main.ts')], {
    cwd: root,
    env: { PATH: env.PATH, HOME: env.HOME, RENDERER_PORT: String(port), RENDERER_HOST: '127.0.0.1', RENDERER_METRICS_PORT: 'off', RENDER_BACKEND: 'cpu', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name}: the renderer did not start`)), 120_000);
    renderer.once('exit', (code) => reject(new Error(`${name}: the renderer exited (${code})`)));
    readline.createInterface({ input: renderer.stdout! }).on('line', (line) => {
      if (line.includes('"msg":"renderer listening"')) {
        clearTimeout(timer);
        resolve();
      }
      if (!line.includes('"msg":"render"')) return;
      const o = JSON.parse(line) as { requestId?: string; ms: number; renderMs?: number };
      if (o.requestId) rendererLines.set(o.requestId, { ms: o.ms, renderMs: o.renderMs });
    });
  });
  const gateway = fork(SELF, ['gateway'], {
    execArgv: ['--import', 'tsx'],
    env: { ...env, BENCH_ROOT: root, RENDERER_ADDR: `127.0.0.1:${port}` },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  gateway.stdout!.resume(); // the access log, read as a log shipper would
  const records = new Map<string, GatewayRecord>();
  const waiting = new Map<string, (r: GatewayRecord) => void>();
  const ready = await new Promise<{ url: string; key: string; imagePath: string }>((resolve, reject) => {
    gateway.once('exit', (code) => reject(new Error(`${name}: the gateway exited (${code})`)));
    gateway.on('message', (m: { ready?: { url: string; key: string; imagePath: string }; record?: GatewayRecord }) => {
      if (m.ready) resolve(m.ready);
      if (m.record) {
        const w = waiting.get(m.record.id);
        if (w) {
          waiting.delete(m.record.id);
          w(m.record);
        } else records.set(m.record.id, m.record);
      }
    });
  });
  gateway.removeAllListeners('exit');
  renderer.removeAllListeners('exit');
  return { name, root, renderer, gateway, ...ready, records, waiting, rendererLines, agent: new http.Agent({ keepAlive: true, maxSockets: 1 }) };
}

function get(stack: Stack, url: string, headers: Record<string, string>): Promise<{ status: number; body: Buffer; wallMs: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const req = http.get(url, { agent: stack.agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks), wallMs: performance.now() - t0 }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

let seq = 0;
/** A colour no earlier download of this run asked for: every download is a miss. */
const freshColour = () => `#${((++seq * 2654435761) >>> 8 & 0xffffff).toString(16).padStart(6, '0')}`;

interface Sample {
  wall: number;
  render: number;
  recvToGrant: number;
  grpcBeforeHeader: number;
  headerToLast: number;
  lastToFinish: number;
  client: number;
  rendererLogMs: number;
  bytes: number;
}

/** A miss (a fresh colour), then the same URL again: the renderer's cache answers, same bytes. */
async function download(stack: Stack, format: string, width: number): Promise<{ miss: Sample; hit: Sample }> {
  const q = new URLSearchParams({ format, width: String(width), color: freshColour() });
  const meta = await get(stack, `${stack.url}${stack.imagePath.replace(/\/[a-z_]+$/, `/${VIEW}`)}?${q}`, { 'x-api-key': stack.key });
  if (meta.status !== 200) throw new Error(`${stack.name}: image JSON ${meta.status} ${meta.body}`);
  const imageUrl = (JSON.parse(meta.body.toString()) as { image_url: string }).image_url.replace('http://localhost:', 'http://127.0.0.1:');
  const miss = await fetchImage(stack, imageUrl, `dl-${seq}`);
  const hit = await fetchImage(stack, imageUrl, `dl-${seq}-hit`);
  return { miss, hit };
}

async function fetchImage(stack: Stack, imageUrl: string, id: string): Promise<Sample> {
  const rec = new Promise<GatewayRecord>((resolve) => {
    const r = stack.records.get(id);
    if (r) resolve(r);
    else stack.waiting.set(id, resolve);
  });
  const res = await get(stack, imageUrl, { 'x-request-id': id });
  if (res.status !== 200) throw new Error(`${stack.name}: download ${res.status} ${res.body.subarray(0, 200)}`);
  const g = await rec;
  stack.records.delete(id);
  // the renderer's line is written right after its call ends; give its pipe a moment
  for (let i = 0; i < 50 && !stack.rendererLines.has(id); i++) await new Promise((r) => setTimeout(r, 2));
  const line = stack.rendererLines.get(id);
  stack.rendererLines.delete(id);
  const render = g.renderMs ?? NaN;
  return {
    wall: res.wallMs,
    render,
    recvToGrant: (g.grantAt ?? NaN) - g.recvAt,
    grpcBeforeHeader: (g.headerAt ?? NaN) - (g.callAt ?? NaN) - render,
    headerToLast: (g.endAt ?? NaN) - (g.headerAt ?? NaN),
    lastToFinish: g.finishAt - (g.endAt ?? NaN),
    client: res.wallMs - (g.finishAt - g.recvAt),
    rendererLogMs: line?.ms ?? NaN,
    bytes: res.body.length,
  };
}

function table(stack: Stack, results: Map<string, Sample[]>): string {
  const rows = [
    '| case | bytes | wall | render | **overhead** | target | recv→grant | gRPC→hdr −render | hdr→last | last→fin | client | renderer log ms |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const [c, s] of results) {
    const render = median(s.map((x) => x.render));
    const over = median(s.map((x) => x.wall - x.render));
    const target = 2 + 0.05 * render;
    if (c.endsWith(' hit')) {
      // the same picture from the renderer's cache: the path's cost for these bytes without a render
      const p = (k: keyof Sample) => f1(median(s.map((x) => x[k])));
      rows.push(`| ${c} | | ${p('wall')} | ${f1(render)} | ${f1(over)} | | ${p('recvToGrant')} | ${p('grpcBeforeHeader')} | ${p('headerToLast')} | ${p('lastToFinish')} | ${p('client')} | |`);
      continue;
    }
    const p = (k: keyof Sample) => f1(median(s.map((x) => x[k])));
    rows.push(
      `| ${c} | ${Math.round(median(s.map((x) => x.bytes)) / 1024)} KiB | ${p('wall')} | ${f1(render)} | **${f1(over)}** ${over <= target ? '✔' : '✘'} | ${f1(target)} | ${p('recvToGrant')} | ${p('grpcBeforeHeader')} | ${p('headerToLast')} | ${p('lastToFinish')} | ${p('client')} | ${p('rendererLogMs')} |`,
    );
  }
  return `${stack.name}, p50 of ${N} misses a case, ms:\n${rows.join('\n')}`;
}

async function drive(): Promise<void> {
  const commit = execSync('git rev-parse --short HEAD', { cwd: ROOT }).toString().trim();
  const dirty = !AFTER && execSync('git status --porcelain -- shared gateway renderer proto', { cwd: ROOT }).toString().trim() ? ' (with uncommitted changes)' : '';
  const cpu = os.cpus()[0]?.model ?? '?';
  console.log(`bench:download on ${commit}${dirty}; ${os.cpus().length} × ${cpu}; Node ${process.version}; load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const stacks: Stack[] = [];
  const trees: string[] = [];
  try {
    if (AFTER) trees.push(commitTree(AFTER));
    stacks.push(await startStack(AFTER ? `after ${AFTER}` : 'this checkout', trees[0] ?? ROOT));
    if (BEFORE) {
      trees.push(commitTree(BEFORE));
      stacks.unshift(await startStack(`before ${BEFORE}`, trees.at(-1)!));
    }
    const cases: [string, number][] = [];
    for (const w of WIDTHS) for (const f of FORMATS) cases.push([f, w]);
    const results = stacks.map(() => new Map<string, Sample[]>());
    for (const [f, w] of cases) {
      for (let i = 0; i < WARMUP; i++) for (const s of stacks) await download(s, f, w);
      for (const r of results) r.set(`${f} ${w}`, []).set(`${f} ${w} hit`, []);
    }
    for (let round = 0; round < N; round++) {
      for (const [f, w] of cases) {
        const order = stacks.map((_, i) => i);
        if (round % 2) order.reverse();
        for (const i of order) {
          const { miss, hit } = await download(stacks[i]!, f, w);
          results[i]!.get(`${f} ${w}`)!.push(miss);
          results[i]!.get(`${f} ${w} hit`)!.push(hit);
        }
      }
    }
    for (let i = 0; i < stacks.length; i++) console.log(`\n${table(stacks[i]!, results[i]!)}`);
    console.log(`\nload at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  } finally {
    for (const s of stacks) {
      s.agent.destroy();
      s.gateway.send('close');
      s.renderer.kill('SIGTERM');
    }
    for (const t of trees) fs.rmSync(t, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'gateway') await gatewayChild();
else await drive();
