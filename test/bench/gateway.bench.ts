/**
 * `npm run bench:gateway`: the gateway's throughput and latency next to a bare Express handler, on a
 * 100,000-variant synthetic catalog, in one run; prints its section of docs/performance-gateway.md (and
 * writes it there only when asked: BENCH_DOC).
 *
 * Process arrangement (the same for both servers, so that the ratio compares handlers, not set-ups):
 * - this process only drives the load (autocannon, in its main thread) and writes the report;
 * - the gateway runs in a child process (`<this file> gateway`): startGateway from the service's
 *   composition root with the service's own logger (shared/logger.ts) at info level, its stdout (the
 *   request log) on a pipe read by `wc -l` in a process of its own (as a log shipper would read it;
 *   the count shows one line per request), PORT 0 on 127.0.0.1, a temporary DATA_DIR, SEED_DEMO=false;
 *   it imports the synthetic catalog and makes an organisation and key before it reports ready;
 * - the bare Express baseline (bare-express.ts) runs in another child process (`<this file> bare`),
 *   answering the very JSON body that the gateway's `GET /v1/makes` answered;
 * - with BENCH_CASES containing `floor`, the floor (floor-express.ts) in a third: only what every
 *   authenticated call must do (key HMAC, one Redis limiter call, one log line on a pipe, same bytes);
 * - with BENCH_AB=NAME=value, a second gateway child with that environment variable, on the first
 *   one's data directory and database, measured in the same rounds (A then B, B then A, alternately,
 *   after one unmeasured round): an A/B comparison of a switch read from the environment.
 * The cases alternate, BENCH_ROUNDS times: bare, makes, image JSON, bare, makes, image JSON, …; each
 * ratio is taken against the bare run of its own round, and the report gives the median ratio. Each
 * case also reports the CPU time per request of its server, of Redis (INFO cpu) and of the client.
 *
 * Storage is the embedded defaults (PGlite + in-process limiter) unless DATABASE_URL / REDIS_URL are
 * set in the environment, exactly as for the service (use a fresh, empty database: the catalog is
 * imported into it).
 *
 * Knobs (environment): BENCH_VARIANTS (100000), BENCH_DURATION seconds per case (10), BENCH_WARMUP
 * seconds per case (2), BENCH_CONNECTIONS (10), BENCH_ROUNDS (3), BENCH_SEED (1), BENCH_SEARCH (1; 0
 * skips the three search cases), BENCH_CASES (makes,image; add floor), BENCH_AB, BENCH_CPU_PROF (a
 * directory: the gateway children run with --cpu-prof and write their profiles under a/ and b/ there),
 * BENCH_DOC (unset: write nothing, the section is printed; a path, e.g. docs/performance-gateway.md:
 * replace this storage's section there: a tracked document changes only when someone asks it to).
 * Search latency measured on its own is `npm run bench:search`.
 */
import { execSync, fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';

const SELF = fileURLToPath(import.meta.url);
const ROOT = path.resolve(path.dirname(SELF), '../..');
const env = process.env;
const num = (name: string, def: number) => (env[name] ? Number(env[name]) : def);
const VARIANTS = num('BENCH_VARIANTS', 100_000);
const DURATION = num('BENCH_DURATION', 10);
const WARMUP = num('BENCH_WARMUP', 2);
const CONNECTIONS = num('BENCH_CONNECTIONS', 10);
const ROUNDS = num('BENCH_ROUNDS', 3);
const SEED = num('BENCH_SEED', 1);
const SEARCH = env.BENCH_SEARCH !== '0';
/** BENCH_CASES: which gateway cases run each round (default "makes,image"; e.g. "makes" to profile one). */
const CASES = new Set((env.BENCH_CASES ?? 'makes,image').split(','));
const CPU_PROF = env.BENCH_CPU_PROF || null;
/** BENCH_AB=NAME=value: a second gateway child with that environment variable, measured in the same rounds. */
const AB = env.BENCH_AB || null;
const DOC = env.BENCH_DOC && env.BENCH_DOC !== '-' ? path.resolve(env.BENCH_DOC) : null;

const log = (...a: unknown[]) => console.log(...a);
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));
const redactUrl = (u: string) => u.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');
const median = (xs: number[]) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** What the gateway child reports once it is listening with the catalog imported. */
interface GatewayReady {
  url: string;
  key: string;
  dbKind: string;
  limiterMode: string;
  imagePath: string;
  searchPaths: Array<{ name: string; path: string }>;
  summary: { vehicles: number; makes: number; models: number; views: number };
  importMs: number;
  dataDir: string;
}

// ------------------------------------------------------------------------------------------------
// Child: the gateway
// ------------------------------------------------------------------------------------------------
async function gatewayChild(): Promise<void> {
  const { loadGatewayConfig } = await import('../../gateway/config.ts');
  const { createLogger } = await import('../../shared/logger.ts');
  const { createFileAssetSetDirectory } = await import('../../gateway/catalog/asset-sets.ts');
  const { validateCatalog } = await import('../../gateway/catalog/catalog-file.ts');
  const { importCatalog } = await import('../../gateway/catalog/import.ts');
  const { startGateway } = await import('../../gateway/service.ts');
  const { syntheticCatalog, syntheticVariants, SYNTHETIC_CATEGORIES } = await import('./synthetic-catalog.ts');

  // BENCH_ATTACH_DIR: a second gateway (BENCH_AB) on the first one's data directory and database, which
  // it neither imports into nor removes
  const attachDir = env.BENCH_ATTACH_DIR || null;
  const dataDir = attachDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-'));
  const config = loadGatewayConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    SEED_DEMO: 'false',
    LOG_LEVEL: 'info',
    ...(env.DATABASE_URL ? { DATABASE_URL: env.DATABASE_URL } : {}),
    ...(env.REDIS_URL ? { REDIS_URL: env.REDIS_URL } : {}),
  });
  // The service's logger, on stdout, which the parent sends to a pipe with a reader: every request line
  // is formatted and written as in production.
  const logger = createLogger('gateway', config.logLevel);
  const gw = await startGateway({ config, logger, renderer: null });
  const stop = async () => {
    await gw.close();
    if (!attachDir) fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0); // flushes the --cpu-prof profile
  };
  process.on('message', (m) => {
    if (m === 'close') void stop();
  });
  if (env.REDIS_URL && !(await gw.limiter.ready(5000))) throw new Error(`Redis at ${env.REDIS_URL} is not reachable`);
  if (attachDir) {
    process.send!({ ready: { url: gw.url, dbKind: gw.db.kind, limiterMode: gw.limiter.mode(), dataDir } });
    return;
  }

  const catalog = validateCatalog(syntheticCatalog({ variants: VARIANTS, seed: SEED }));
  const t = performance.now();
  const summary = await importCatalog(gw.db, createFileAssetSetDirectory(path.join(ROOT, 'assets')), catalog);
  const importMs = performance.now() - t;
  // Leave PostgreSQL settled rather than vacuuming 900,000 fresh rows in the background of the first
  // round (what autovacuum would otherwise do there): a server that has run for a while is in this state.
  if (gw.db.kind === 'postgres') await gw.db.query('VACUUM ANALYZE');

  // An organisation with a contract that never limits the benchmark.
  const admin = async (method: string, p: string, body?: unknown) => {
    const r = await fetch(`${gw.url}/admin/v1${p}`, {
      method,
      headers: { authorization: `Bearer ${gw.adminToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!r.ok) throw new Error(`admin ${method} ${p}: ${r.status} ${await r.text()}`);
    return (await r.json()) as Record<string, unknown>;
  };
  const org = await admin('POST', '/organizations', { name: 'Benchmark' });
  await admin('PUT', `/organizations/${org.id}/contract`, {
    categories: SYNTHETIC_CATEGORIES.map((c) => c.slug),
    allowed_formats: ['webp', 'png', 'jpeg'],
    rpm_limit: 1_000_000,
    monthly_quota: 2_000_000_000,
    active: true,
  });
  const { key } = (await admin('POST', `/organizations/${org.id}/keys`, { name: 'bench' })) as { key: string };

  const variants = [...syntheticVariants(catalog)];
  const target = variants.find((v, i) => i > variants.length / 3 && v.variant.published && !v.variant.unpublished_views.includes('front_left'))!;
  const imagePath = `/v1/makes/${target.make.slug}/models/${target.model.slug}/${target.year}/${target.variant.slug}/front_left?color=red&plate=AB%20123`;
  const s = variants[Math.floor(variants.length * 0.6)]!;
  const searchPaths = [
    { name: 'search "make prefix + year"', q: `${s.make.name.slice(0, 3).toLowerCase()} ${s.year}` },
    { name: 'search "model name"', q: s.model.name },
    { name: 'search "make model trim"', q: `${s.make.name} ${s.model.name} ${s.variant.name!.split(' ').at(-1)}` },
  ].map((c) => ({ name: c.name, path: `/v1/search?q=${encodeURIComponent(c.q)}` }));

  const ready: GatewayReady = {
    url: gw.url,
    key,
    dbKind: gw.db.kind,
    limiterMode: gw.limiter.mode(),
    imagePath,
    searchPaths,
    summary: { vehicles: summary.vehicles, makes: summary.makes, models: summary.models, views: summary.views },
    importMs,
    dataDir,
  };
  // The synthetic catalog (hundreds of MB of objects) is garbage now; collect it here rather than in the
  // first round, as a gateway that has been up a while has no import garbage either.
  catalog.makes.length = 0;
  variants.length = 0;
  (globalThis as { gc?: () => void }).gc?.();
  process.send!({ ready });
}

// ------------------------------------------------------------------------------------------------
// Child: the bare Express baseline
// ------------------------------------------------------------------------------------------------
async function bareChild(): Promise<void> {
  const { startBareExpress } = await import('./bare-express.ts');
  process.once('message', async (m: { body: unknown }) => {
    const bare = await startBareExpress(m.body);
    process.on('message', (msg) => {
      if (msg === 'close') void bare.close().then(() => process.exit(0));
    });
    process.send!({ url: bare.url });
  });
}

// ------------------------------------------------------------------------------------------------
// Child: the floor (floor-express.ts: only what every authenticated call must do)
// ------------------------------------------------------------------------------------------------
async function floorChild(): Promise<void> {
  const { startFloorExpress } = await import('./floor-express.ts');
  process.once('message', async (m: { body: string; key: string }) => {
    const floor = await startFloorExpress({ body: Buffer.from(m.body), key: m.key, redisUrl: env.REDIS_URL || null });
    process.on('message', (msg) => {
      if (msg === 'close') void floor.close().then(() => process.exit(0));
    });
    process.send!({ url: floor.url });
  });
}

// ------------------------------------------------------------------------------------------------
// Parent: the load and the report
// ------------------------------------------------------------------------------------------------
/**
 * The reader of a gateway's stdout: `wc -l` in a process of its own, on a pipe, as a log shipper would
 * read it (a write to /dev/null costs the writer less than a write to a pipe with a reader, and its
 * reader's work is on this machine too). It also counts the request log's lines.
 */
interface LogReader {
  stdin: ChildProcess['stdin'];
  /** Resolves with the number of lines once every writer has closed the pipe. */
  lines: Promise<number>;
}
function logReader(): LogReader {
  const wc = spawn('wc', ['-l'], { stdio: ['pipe', 'pipe', 'inherit'] });
  let out = '';
  wc.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const lines = new Promise<number>((resolve) => wc.once('close', () => resolve(Number(out.trim()))));
  return { stdin: wc.stdin, lines };
}

function spawnChild(role: 'gateway' | 'bare' | 'floor', extraExecArgv: string[] = [], opts: { stdout?: LogReader; env?: NodeJS.ProcessEnv } = {}): ChildProcess {
  const child = fork(SELF, [role], {
    execArgv: ['--import', 'tsx', ...extraExecArgv],
    // stdout (the gateway's request log) to its reader's pipe; errors and warnings stay visible
    stdio: ['ignore', opts.stdout ? opts.stdout.stdin! : 'ignore', 'inherit', 'ipc'],
    env: opts.env ?? process.env,
  });
  // The child holds its own copy of the pipe (a socket pair): close ours without shutting it down
  // (end() would), so that the reader sees the end when the child exits.
  opts.stdout?.stdin!.destroy();
  return child;
}

function nextMessage<T>(child: ChildProcess, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`${what}: the child exited (${code}) before answering`));
    child.once('exit', onExit);
    child.once('message', (m) => {
      child.off('exit', onExit);
      resolve(m as T);
    });
  });
}

async function stopChild(child: ChildProcess | null): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.send('close');
  const t = setTimeout(() => child.kill('SIGKILL'), 30_000);
  await exited;
  clearTimeout(t);
}

function machine() {
  const cpu = /model name\s*:\s*(.+)/.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? os.cpus()[0]?.model ?? '?';
  let nproc = String(os.availableParallelism());
  try {
    nproc = execSync('nproc', { encoding: 'utf8' }).trim();
  } catch {
    /* keep availableParallelism */
  }
  return { nproc, cpu, node: process.version, memGiB: (os.totalmem() / 2 ** 30).toFixed(1) };
}
const loadavg = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');

interface CaseResult {
  name: string;
  round: number;
  path: string;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  bad: number;
  bodyBytes: number;
  /** CPU time of the server's process (user + system) per answered request, in µs. */
  cpuUsPerReq: number;
  /** CPU time of this process (autocannon, the client) per answered request, in µs. */
  clientCpuUsPerReq: number;
  /** CPU time of the Redis server per answered request, in µs (INFO cpu; 0 without Redis). */
  redisCpuUsPerReq: number;
}

/** The Redis server's CPU time so far (user + system, µs), or 0 without REDIS_URL. */
let redisInfo: Redis | null = null;
async function redisCpuUs(): Promise<number> {
  if (!env.REDIS_URL) return 0;
  redisInfo ??= new Redis(env.REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1 });
  const info = await redisInfo.info('cpu');
  const get = (k: string) => Number(new RegExp(`^${k}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return (get('used_cpu_sys') + get('used_cpu_user')) * 1e6;
}

/** User + system CPU time of a process so far, in µs (/proc/<pid>/stat, clock ticks). */
function processCpuUs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
  return (ticks * 1e6) / CLOCK_TICKS;
}
const CLOCK_TICKS = (() => {
  try {
    return Number(execSync('getconf CLK_TCK', { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

async function cannon(name: string, round: number, pid: number, url: string, headers: Record<string, string>, shownPath: string): Promise<CaseResult> {
  // A quick check first: a case that does not answer 200 measures nothing useful.
  const probe = await fetch(url, { headers });
  const text = await probe.text();
  if (probe.status !== 200) throw new Error(`${name}: ${url} answered ${probe.status}: ${text.slice(0, 300)}`);
  const opts = { url, headers, connections: CONNECTIONS };
  if (WARMUP > 0) await autocannon({ ...opts, duration: WARMUP });
  const cpu0 = processCpuUs(pid);
  const client0 = process.cpuUsage();
  const redis0 = await redisCpuUs();
  const r = await autocannon({ ...opts, duration: DURATION });
  const cpu = processCpuUs(pid) - cpu0;
  const client = process.cpuUsage(client0);
  const redisCpu = (await redisCpuUs()) - redis0;
  const res: CaseResult = {
    name,
    round,
    path: shownPath,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    bad: r.non2xx + r.errors + r.timeouts,
    bodyBytes: Buffer.byteLength(text),
    cpuUsPerReq: cpu / Math.max(1, r.requests.total),
    clientCpuUsPerReq: (client.user + client.system) / Math.max(1, r.requests.total),
    redisCpuUsPerReq: redisCpu / Math.max(1, r.requests.total),
  };
  log(`  ${`${name} #${round}`.padEnd(36)} ${res.rps.toFixed(0).padStart(7)} req/s  p50 ${ms(res.p50).padStart(6)} ms  p99 ${ms(res.p99).padStart(6)} ms  server CPU ${res.cpuUsPerReq.toFixed(0).padStart(4)} µs/req  Redis ${res.redisCpuUsPerReq.toFixed(0).padStart(3)} µs/req  client ${res.clientCpuUsPerReq.toFixed(0).padStart(4)} µs/req  (${res.requests} requests, ${res.bad} non-2xx/errors; body ${res.bodyBytes} B)`);
  return res;
}

async function main() {
  const databaseUrl = env.DATABASE_URL || null;
  const redisUrl = env.REDIS_URL || null;
  const backend = `${databaseUrl ? 'PostgreSQL' : 'PGlite (embedded)'} + ${redisUrl ? 'Redis limiter' : 'in-process limiter'}`;
  const sectionId = databaseUrl && redisUrl ? 'postgres-redis' : !databaseUrl && !redisUrl ? 'embedded' : databaseUrl ? 'postgres-memory' : 'pglite-redis';
  const m = machine();
  const started = new Date();
  const loadAtStart = loadavg();
  log(`gateway benchmark: ${backend}`);
  log(`  DATABASE_URL=${databaseUrl ? redactUrl(databaseUrl) : '(unset: embedded PGlite)'}  REDIS_URL=${redisUrl ?? '(unset: in-process limiter)'}`);
  log(`  machine: ${m.nproc} cores (nproc), ${m.cpu}, ${m.memGiB} GiB, node ${m.node}, load ${loadAtStart}`);

  let gwChild: ChildProcess | null = null;
  let gwChildB: ChildProcess | null = null;
  let floorChildProc: ChildProcess | null = null;
  let bareChildProc: ChildProcess | null = null;
  const readers: Array<{ name: string; reader: LogReader; requests: () => number }> = [];
  try {
    if (CPU_PROF) fs.mkdirSync(CPU_PROF, { recursive: true });
    const profArgs = (tag: string) => (CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(CPU_PROF, tag)}`] : []);
    const readerA = logReader();
    gwChild = spawnChild('gateway', ['--expose-gc', ...profArgs('a')], { stdout: readerA });
    const { ready: gw } = await nextMessage<{ ready: GatewayReady }>(gwChild, 'gateway');
    log(`  gateway (pid ${gwChild.pid}) on ${gw.url}: database ${gw.dbKind}, limiter ${gw.limiterMode}`);
    log(`  catalog: ${gw.summary.vehicles} variants, ${gw.summary.makes} makes, ${gw.summary.models} models, ${gw.summary.views} views; imported in ${(gw.importMs / 1000).toFixed(1)} s`);
    const auth = { 'x-api-key': gw.key };
    let answeredA = 0;
    readers.push({ name: 'gateway', reader: readerA, requests: () => answeredA });
    // BENCH_AB=NAME=value: a second gateway with that variable set, on the same data and database,
    // measured in the same rounds (an A/B comparison of a switch read from the environment)
    let gwB: { url: string } | null = null;
    let answeredB = 0;
    if (AB) {
      const [k, ...v] = AB.split('=');
      const readerB = logReader();
      gwChildB = spawnChild('gateway', ['--expose-gc', ...profArgs('b')], { stdout: readerB, env: { ...process.env, BENCH_ATTACH_DIR: gw.dataDir, [k!]: v.join('=') } });
      gwB = (await nextMessage<{ ready: { url: string } }>(gwChildB, 'gateway B')).ready;
      readers.push({ name: `gateway B (${AB})`, reader: readerB, requests: () => answeredB });
      log(`  gateway B (pid ${gwChildB.pid}, ${AB}) on ${gwB.url}`);
    }

    const makesBody = await (await fetch(`${gw.url}/v1/makes`, { headers: auth })).json();
    bareChildProc = spawnChild('bare');
    bareChildProc.send({ body: makesBody });
    const bare = await nextMessage<{ url: string }>(bareChildProc, 'bare');
    log(`  bare Express (pid ${bareChildProc.pid}) on ${bare.url}`);
    let floor: { url: string } | null = null;
    let answeredFloor = 0;
    if (CASES.has('floor')) {
      const readerF = logReader();
      floorChildProc = spawnChild('floor', [], { stdout: readerF });
      floorChildProc.send({ body: JSON.stringify(makesBody), key: gw.key });
      floor = await nextMessage<{ url: string }>(floorChildProc, 'floor');
      readers.push({ name: 'floor', reader: readerF, requests: () => answeredFloor });
      log(`  floor Express (pid ${floorChildProc.pid}) on ${floor.url}`);
    }

    log(`\nautocannon: ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s per case, ${ROUNDS} rounds; load ${loadavg()}`);
    const rounds: Array<{ bare: CaseResult; floor: CaseResult | null; makes: CaseResult | null; image: CaseResult | null; makesB: CaseResult | null; imageB: CaseResult | null }> = [];
    // each probe and warm-up answers requests too: counted for the log-line check below
    const counted = (r: CaseResult | null, b: boolean) => {
      if (r) b ? (answeredB += r.requests) : (answeredA += r.requests);
      return r;
    };
    // With B, one unmeasured round first: the first gateway has just imported the catalog, the second not.
    for (let i = gwB ? 0 : 1; i <= ROUNDS; i++) {
      const b = await cannon('bare Express', i, bareChildProc.pid!, bare.url, {}, 'GET /bare');
      const fl = floor ? await cannon('floor (key, Redis, log line)', i, floorChildProc!.pid!, floor.url, auth, 'GET /floor') : null;
      if (fl) answeredFloor += fl.requests;
      // with B, the order of A and B swaps from one round to the next
      const order = gwB && i % 2 === 0 ? [true, false] : [false, true];
      const res: Record<string, CaseResult | null> = {};
      for (const isB of gwB ? order : [false]) {
        const url = isB ? gwB!.url : gw.url;
        const pid = isB ? gwChildB!.pid! : gwChild.pid!;
        const tag = isB ? ' [B]' : '';
        res[`makes${tag}`] = CASES.has('makes') ? counted(await cannon(`GET /v1/makes${tag}`, i, pid, `${url}/v1/makes`, auth, 'GET /v1/makes'), isB) : null;
        res[`image${tag}`] = CASES.has('image') ? counted(await cannon(`image JSON${tag}`, i, pid, `${url}${gw.imagePath}`, auth, `GET ${gw.imagePath}`), isB) : null;
      }
      const mk = res.makes ?? null;
      const im = res.image ?? null;
      if (i > 0) rounds.push({ bare: b, floor: fl, makes: mk, image: im, makesB: res['makes [B]'] ?? null, imageB: res['image [B]'] ?? null });
      log(`  round ${i}: ${fl ? `floor/bare ${(fl.rps / b.rps).toFixed(2)}, ` : ''}makes/bare ${mk ? (mk.rps / b.rps).toFixed(2) : '-'}, image/bare ${im ? (im.rps / b.rps).toFixed(2) : '-'}` +
        (gwB ? `; B: makes/bare ${res['makes [B]'] ? (res['makes [B]'].rps / b.rps).toFixed(2) : '-'}, image/bare ${res['image [B]'] ? (res['image [B]'].rps / b.rps).toFixed(2) : '-'}` : ''));
    }
    const search: CaseResult[] = [];
    if (SEARCH) for (const s of gw.searchPaths) search.push(counted(await cannon(s.name, 1, gwChild.pid!, `${gw.url}${s.path}`, auth, `GET ${s.path}`), false)!);
    const loadAtEnd = loadavg();
    // the servers stop here: the readers count the request log's lines once every writer has gone
    redisInfo?.disconnect();
    redisInfo = null;
    await stopChild(gwChildB);
    await Promise.all([stopChild(bareChildProc), stopChild(floorChildProc), stopChild(gwChild)]);
    const logCounts: string[] = [];
    for (const r of readers) logCounts.push(`${r.name}: ${await r.reader.lines} lines on stdout for ${r.requests()} timed requests (plus probes, warm-ups and start-up lines)`);
    for (const l of logCounts) log(`  ${l}`);

    const makesRatio = median(rounds.flatMap((r) => (r.makes ? [r.makes.rps / r.bare.rps] : [])));
    const imageRatio = median(rounds.flatMap((r) => (r.image ? [r.image.rps / r.bare.rps] : [])));
    const medBare = median(rounds.map((r) => r.bare.rps));
    const floorRatio = median(rounds.flatMap((r) => (r.floor ? [r.floor.rps / r.bare.rps] : [])));
    const makesFloor = median(rounds.flatMap((r) => (r.floor && r.makes ? [r.makes.rps / r.floor.rps] : [])));
    if (floor) log(`  floor / bare = ${floorRatio.toFixed(2)}; GET /v1/makes / floor = ${makesFloor.toFixed(2)}`);
    log(`\n  median ratio over ${ROUNDS} rounds: authenticated GET /v1/makes / bare = ${makesRatio.toFixed(2)} (target ≥ 0.80), image JSON / bare = ${imageRatio.toFixed(2)} (target ≥ 0.50)`);
    if (gwB) {
      const mB = median(rounds.flatMap((r) => (r.makesB ? [r.makesB.rps / r.bare.rps] : [])));
      const iB = median(rounds.flatMap((r) => (r.imageB ? [r.imageB.rps / r.bare.rps] : [])));
      type Round = (typeof rounds)[number];
      const cpu = (f: (r: Round) => CaseResult | null, g: (c: CaseResult) => number) => median(rounds.flatMap((r) => (f(r) ? [g(f(r)!)] : []))).toFixed(0);
      const both = (c: CaseResult) => c.cpuUsPerReq + c.redisCpuUsPerReq;
      log(`  A/B (${AB}): makes/bare A ${makesRatio.toFixed(2)} B ${mB.toFixed(2)}; image/bare A ${imageRatio.toFixed(2)} B ${iB.toFixed(2)}`);
      log(`    median CPU µs/request, gateway / Redis / both: makes A ${cpu((r) => r.makes, (c) => c.cpuUsPerReq)} / ${cpu((r) => r.makes, (c) => c.redisCpuUsPerReq)} / ${cpu((r) => r.makes, both)}, ` +
        `B ${cpu((r) => r.makesB, (c) => c.cpuUsPerReq)} / ${cpu((r) => r.makesB, (c) => c.redisCpuUsPerReq)} / ${cpu((r) => r.makesB, both)}; ` +
        `image A ${cpu((r) => r.image, (c) => c.cpuUsPerReq)} / ${cpu((r) => r.image, (c) => c.redisCpuUsPerReq)} / ${cpu((r) => r.image, both)}, ` +
        `B ${cpu((r) => r.imageB, (c) => c.cpuUsPerReq)} / ${cpu((r) => r.imageB, (c) => c.redisCpuUsPerReq)} / ${cpu((r) => r.imageB, both)}`);
    }
    log(`  load average at the end: ${loadAtEnd}`);

    const knobs = Object.entries(env).filter(([k, v]) => k.startsWith('BENCH_') && k !== 'BENCH_DOC' && v).map(([k, v]) => `${k}=${v} `);
    const command = `${databaseUrl ? `DATABASE_URL=${redactUrl(databaseUrl)} ` : ''}${redisUrl ? `REDIS_URL=${redisUrl} ` : ''}${knobs.join('')}npm run bench:gateway`;
    const row = (r: CaseResult, base: number) =>
      `| ${r.name} | ${r.round} | ${r.rps.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p99)} | ${(r.rps / base).toFixed(2)} | ${r.cpuUsPerReq.toFixed(0)} | ${redisUrl ? r.redisCpuUsPerReq.toFixed(0) : '-'} | ${r.clientCpuUsPerReq.toFixed(0)} | ${r.bad} | ${r.bodyBytes} |`;
    const met = (x: number, t: number) => (x >= t ? 'met' : 'missed');
    const section = [
      `<!-- section:${sectionId} -->`,
      `## ${backend}`,
      '',
      `- Date: ${started.toISOString()}`,
      `- Command: \`${command}\``,
      `- Machine: ${m.nproc} cores (\`nproc\`), ${m.cpu}, ${m.memGiB} GiB RAM, Node ${m.node}; load average ${loadAtStart} at the start, ${loadAtEnd} at the end (a shared machine: other jobs may have run meanwhile)`,
      `- Catalog: ${gw.summary.vehicles.toLocaleString('en')} variants (${gw.summary.makes} makes, ${gw.summary.models} models, ${gw.summary.views.toLocaleString('en')} views), synthetic seed ${SEED}; import ${(gw.importMs / 1000).toFixed(1)} s${databaseUrl ? ', then VACUUM ANALYZE' : ''}`,
      `- Load: autocannon ${CONNECTIONS} connections from the parent process; the gateway, the bare Express app${floor ? ' and the floor' : ''} each in a child process of their own, the gateway's${floor ? ' and the floor\'s' : ''} stdout (the request log) on a pipe read by \`wc -l\`; ${WARMUP} s warm-up then ${DURATION} s per case; ${ROUNDS} rounds alternating bare${floor ? ', floor' : ''}, makes, image JSON`,
      `- Request log: ${logCounts.join('; ')}`,
      `- Image JSON path: \`GET ${gw.imagePath}\``,
      '',
      '| case | round | requests/s | p50 ms | p99 ms | × bare (same round) | server CPU µs/request | Redis CPU µs/request | client CPU µs/request | non-2xx + errors | body bytes |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...rounds.flatMap((r) => [r.bare, r.floor, r.makes, r.image].flatMap((c) => (c ? [row(c, r.bare.rps)] : []))),
      ...search.map((r) => row(r, medBare)),
      '',
      `Median over the rounds: authenticated \`GET /v1/makes\` / bare Express **${makesRatio.toFixed(2)}** (target ≥ 0.80: ${met(makesRatio, 0.8)}); ` +
        `image JSON / bare Express **${imageRatio.toFixed(2)}** (target ≥ 0.50: ${met(imageRatio, 0.5)}).` +
        (floor ? ` The floor (test/bench/floor-express.ts: the key's HMAC, one Redis limiter call, one log line, the same bytes and headers) / bare **${floorRatio.toFixed(2)}**; \`GET /v1/makes\` / floor **${makesFloor.toFixed(2)}**.` : '') +
        (search.length ? ' Search rows are against the median bare figure.' : ''),
      `<!-- /section:${sectionId} -->`,
    ].join('\n');
    if (DOC) writeSection(DOC, sectionId, section);
    log(DOC ? `\nwrote ${path.relative(process.cwd(), DOC)} (section ${sectionId})` : `\n${section}\n\nno document written (BENCH_DOC=docs/performance-gateway.md writes this section there)`);
  } finally {
    redisInfo?.disconnect();
    await stopChild(gwChildB);
    await Promise.all([stopChild(bareChildProc), stopChild(floorChildProc), stopChild(gwChild)]);
    if (CPU_PROF) log(`CPU profile of the gateway in ${CPU_PROF}`);
  }
}

/**
 * Replaces this run's section in place (or appends it) and leaves every other line of the file as it
 * is: the findings and the other storages' sections are kept, and so is text written by others.
 */
function writeSection(file: string, id: string, section: string): void {
  const old = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '# Gateway performance\n';
  const re = new RegExp(`<!-- section:${id} -->[\\s\\S]*?<!-- /section:${id} -->`);
  const next = re.test(old) ? old.replace(re, () => section) : `${old.trimEnd()}\n\n${section}\n`;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, next);
}

const role = process.argv[2];
const run = role === 'gateway' ? gatewayChild : role === 'bare' ? bareChild : role === 'floor' ? floorChild : main;
run().then(
  () => {
    if (!role) process.exit(0);
  },
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
