/**
 * `npm run bench:gateway`: the gateway's throughput and latency next to a bare Express handler, on a
 * 100,000-variant synthetic catalog, in one run; updates its own section of docs/performance-gateway.md.
 *
 * Process arrangement (the same for both servers, so that the ratio compares handlers, not set-ups):
 * - this process only drives the load (autocannon, in its main thread) and writes the report;
 * - the gateway runs in a child process (`<this file> gateway`): startGateway from the service's
 *   composition root with the service's own logger (shared/logger.ts) at info level, its stdout (the
 *   request log) sent to /dev/null, PORT 0 on 127.0.0.1, a temporary DATA_DIR, SEED_DEMO=false; it
 *   imports the synthetic catalog and makes an organisation and key before it reports ready;
 * - the bare Express baseline (bare-express.ts) runs in another child process (`<this file> bare`),
 *   answering the very JSON body that the gateway's `GET /v1/makes` answered.
 * The cases alternate, BENCH_ROUNDS times: bare, makes, image JSON, bare, makes, image JSON, …; each
 * ratio is taken against the bare run of its own round, and the report gives the median ratio.
 *
 * Storage is the embedded defaults (PGlite + in-process limiter) unless DATABASE_URL / REDIS_URL are
 * set in the environment, exactly as for the service (use a fresh, empty database: the catalog is
 * imported into it).
 *
 * Knobs (environment): BENCH_VARIANTS (100000), BENCH_DURATION seconds per case (10), BENCH_WARMUP
 * seconds per case (2), BENCH_CONNECTIONS (10), BENCH_ROUNDS (3), BENCH_SEED (1), BENCH_SEARCH (1; 0
 * skips the three search cases), BENCH_CPU_PROF (a directory: the gateway child runs with --cpu-prof
 * and writes its profile there), BENCH_DOC (docs/performance-gateway.md; "-" to write nothing).
 * Search latency measured on its own is `npm run bench:search`.
 */
import { execSync, fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';

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
const DOC = env.BENCH_DOC ?? path.join(ROOT, 'docs', 'performance-gateway.md');

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
}

// ------------------------------------------------------------------------------------------------
// Child: the gateway
// ------------------------------------------------------------------------------------------------
async function gatewayChild(): Promise<void> {
  const { loadGatewayConfig } = await import('../../shared/config.ts');
  const { createLogger } = await import('../../shared/logger.ts');
  const { createFileAssetSetDirectory } = await import('../../gateway/catalog/asset-sets.ts');
  const { validateCatalog } = await import('../../gateway/catalog/catalog-file.ts');
  const { importCatalog } = await import('../../gateway/catalog/import.ts');
  const { startGateway } = await import('../../gateway/service.ts');
  const { syntheticCatalog, syntheticVariants, SYNTHETIC_CATEGORIES } = await import('./synthetic-catalog.ts');

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-'));
  const config = loadGatewayConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    SEED_DEMO: 'false',
    LOG_LEVEL: 'info',
    ...(env.DATABASE_URL ? { DATABASE_URL: env.DATABASE_URL } : {}),
    ...(env.REDIS_URL ? { REDIS_URL: env.REDIS_URL } : {}),
  });
  // The service's logger, on stdout, which the parent sends to /dev/null: every request line is
  // formatted and written as in production.
  const logger = createLogger('gateway', config.logLevel);
  const gw = await startGateway({ config, logger, renderer: null });
  const stop = async () => {
    await gw.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
    process.exit(0); // flushes the --cpu-prof profile
  };
  process.on('message', (m) => {
    if (m === 'close') void stop();
  });
  if (env.REDIS_URL && !(await gw.limiter.ready(5000))) throw new Error(`Redis at ${env.REDIS_URL} is not reachable`);

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
// Parent: the load and the report
// ------------------------------------------------------------------------------------------------
function spawnChild(role: 'gateway' | 'bare', extraExecArgv: string[] = []): ChildProcess {
  return fork(SELF, [role], {
    execArgv: ['--import', 'tsx', ...extraExecArgv],
    // stdout (the request log) to /dev/null; errors and warnings stay visible
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: process.env,
  });
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
  const r = await autocannon({ ...opts, duration: DURATION });
  const cpu = processCpuUs(pid) - cpu0;
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
  };
  log(`  ${`${name} #${round}`.padEnd(36)} ${res.rps.toFixed(0).padStart(7)} req/s  p50 ${ms(res.p50).padStart(6)} ms  p99 ${ms(res.p99).padStart(6)} ms  server CPU ${res.cpuUsPerReq.toFixed(0).padStart(4)} µs/req  (${res.requests} requests, ${res.bad} non-2xx/errors; body ${res.bodyBytes} B)`);
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
  let bareChildProc: ChildProcess | null = null;
  try {
    if (CPU_PROF) fs.mkdirSync(CPU_PROF, { recursive: true });
    gwChild = spawnChild('gateway', ['--expose-gc', ...(CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(CPU_PROF)}`] : [])]);
    const { ready: gw } = await nextMessage<{ ready: GatewayReady }>(gwChild, 'gateway');
    log(`  gateway (pid ${gwChild.pid}) on ${gw.url}: database ${gw.dbKind}, limiter ${gw.limiterMode}`);
    log(`  catalog: ${gw.summary.vehicles} variants, ${gw.summary.makes} makes, ${gw.summary.models} models, ${gw.summary.views} views; imported in ${(gw.importMs / 1000).toFixed(1)} s`);
    const auth = { 'x-api-key': gw.key };

    const makesBody = await (await fetch(`${gw.url}/v1/makes`, { headers: auth })).json();
    bareChildProc = spawnChild('bare');
    bareChildProc.send({ body: makesBody });
    const bare = await nextMessage<{ url: string }>(bareChildProc, 'bare');
    log(`  bare Express (pid ${bareChildProc.pid}) on ${bare.url}`);

    log(`\nautocannon: ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s per case, ${ROUNDS} rounds; load ${loadavg()}`);
    const rounds: Array<{ bare: CaseResult; makes: CaseResult | null; image: CaseResult | null }> = [];
    for (let i = 1; i <= ROUNDS; i++) {
      const b = await cannon('bare Express', i, bareChildProc.pid!, bare.url, {}, 'GET /bare');
      const mk = CASES.has('makes') ? await cannon('GET /v1/makes', i, gwChild.pid!, `${gw.url}/v1/makes`, auth, 'GET /v1/makes') : null;
      const im = CASES.has('image') ? await cannon('image JSON', i, gwChild.pid!, `${gw.url}${gw.imagePath}`, auth, `GET ${gw.imagePath}`) : null;
      rounds.push({ bare: b, makes: mk, image: im });
      log(`  round ${i}: makes/bare ${mk ? (mk.rps / b.rps).toFixed(2) : '-'}, image/bare ${im ? (im.rps / b.rps).toFixed(2) : '-'}`);
    }
    const search: CaseResult[] = [];
    if (SEARCH) for (const s of gw.searchPaths) search.push(await cannon(s.name, 1, gwChild.pid!, `${gw.url}${s.path}`, auth, `GET ${s.path}`));
    const loadAtEnd = loadavg();

    const makesRatio = median(rounds.flatMap((r) => (r.makes ? [r.makes.rps / r.bare.rps] : [])));
    const imageRatio = median(rounds.flatMap((r) => (r.image ? [r.image.rps / r.bare.rps] : [])));
    const medBare = median(rounds.map((r) => r.bare.rps));
    log(`\n  median ratio over ${ROUNDS} rounds: authenticated GET /v1/makes / bare = ${makesRatio.toFixed(2)} (target ≥ 0.80), image JSON / bare = ${imageRatio.toFixed(2)} (target ≥ 0.50)`);
    log(`  load average at the end: ${loadAtEnd}`);

    const knobs = Object.entries(env).filter(([k, v]) => k.startsWith('BENCH_') && k !== 'BENCH_DOC' && v).map(([k, v]) => `${k}=${v} `);
    const command = `${databaseUrl ? `DATABASE_URL=${redactUrl(databaseUrl)} ` : ''}${redisUrl ? `REDIS_URL=${redisUrl} ` : ''}${knobs.join('')}npm run bench:gateway`;
    const row = (r: CaseResult, base: number) =>
      `| ${r.name} | ${r.round} | ${r.rps.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p99)} | ${(r.rps / base).toFixed(2)} | ${r.cpuUsPerReq.toFixed(0)} | ${r.bad} | ${r.bodyBytes} |`;
    const met = (x: number, t: number) => (x >= t ? 'met' : 'missed');
    const section = [
      `<!-- section:${sectionId} -->`,
      `## ${backend}`,
      '',
      `- Date: ${started.toISOString()}`,
      `- Command: \`${command}\``,
      `- Machine: ${m.nproc} cores (\`nproc\`), ${m.cpu}, ${m.memGiB} GiB RAM, Node ${m.node}; load average ${loadAtStart} at the start, ${loadAtEnd} at the end (a shared machine: other jobs may have run meanwhile)`,
      `- Catalog: ${gw.summary.vehicles.toLocaleString('en')} variants (${gw.summary.makes} makes, ${gw.summary.models} models, ${gw.summary.views.toLocaleString('en')} views), synthetic seed ${SEED}; import ${(gw.importMs / 1000).toFixed(1)} s${databaseUrl ? ', then VACUUM ANALYZE' : ''}`,
      `- Load: autocannon ${CONNECTIONS} connections from the parent process; the gateway and the bare Express app each in a child process of their own; ${WARMUP} s warm-up then ${DURATION} s per case; ${ROUNDS} rounds alternating bare, makes, image JSON`,
      `- Image JSON path: \`GET ${gw.imagePath}\``,
      '',
      '| case | round | requests/s | p50 ms | p99 ms | × bare (same round) | server CPU µs/request | non-2xx + errors | body bytes |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      ...rounds.flatMap((r) => [r.bare, r.makes, r.image].flatMap((c) => (c ? [row(c, r.bare.rps)] : []))),
      ...search.map((r) => row(r, medBare)),
      '',
      `Median over the rounds: authenticated \`GET /v1/makes\` / bare Express **${makesRatio.toFixed(2)}** (target ≥ 0.80: ${met(makesRatio, 0.8)}); ` +
        `image JSON / bare Express **${imageRatio.toFixed(2)}** (target ≥ 0.50: ${met(imageRatio, 0.5)}).` +
        (search.length ? ' Search rows are against the median bare figure.' : ''),
      `<!-- /section:${sectionId} -->`,
    ].join('\n');
    if (DOC !== '-') writeSection(DOC, sectionId, section);
    log(`\n${DOC === '-' ? 'no document written (BENCH_DOC=-)' : `wrote ${path.relative(process.cwd(), DOC)} (section ${sectionId})`}`);
  } finally {
    await Promise.all([stopChild(bareChildProc), stopChild(gwChild)]);
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
const run = role === 'gateway' ? gatewayChild : role === 'bare' ? bareChild : main;
run().then(
  () => {
    if (!role) process.exit(0);
  },
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
