/**
 * `npm run bench:gateway`: the gateway's throughput and latency next to a bare Express handler,
 * on a 100,000-variant synthetic catalog, in one run; writes docs/performance-gateway.md.
 *
 * Storage is the embedded defaults (PGlite + in-process limiter) unless DATABASE_URL / REDIS_URL
 * are set in the environment, exactly as for the service. The gateway runs in this process
 * (startGateway, PORT 0 on 127.0.0.1, a temporary DATA_DIR, SEED_DEMO=false, the request log at
 * info level written to /dev/null); the bare Express baseline runs in this process too; autocannon
 * fires from a worker thread so that the load generator does not share the servers' event loop.
 *
 * Knobs (environment): BENCH_VARIANTS (100000), BENCH_DURATION seconds per case (10),
 * BENCH_WARMUP seconds per case (2), BENCH_CONNECTIONS (10), BENCH_SEARCH_QUERIES (500),
 * BENCH_SEED (1), BENCH_ANALYZE (unset; 1 runs ANALYZE after the import), BENCH_DOC (docs/performance-gateway.md; "-" to write nothing).
 */
import { execSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { pino } from 'pino';
import { loadGatewayConfig } from '../../shared/config.ts';
import { createFileAssetSetDirectory } from '../../gateway/catalog/asset-sets.ts';
import { validateCatalog } from '../../gateway/catalog/catalog-file.ts';
import { categoryId } from '../../gateway/catalog/ids.ts';
import { importCatalog } from '../../gateway/catalog/import.ts';
import { searchVehicles } from '../../gateway/catalog/search.ts';
import type { Queryable } from '../../gateway/db/database.ts';
import { startGateway } from '../../gateway/service.ts';
import { startBareExpress } from './bare-express.ts';
import { rng, syntheticCatalog, syntheticVariants, SYNTHETIC_CATEGORIES } from './synthetic-catalog.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const env = process.env;
const num = (name: string, def: number) => (env[name] ? Number(env[name]) : def);
const VARIANTS = num('BENCH_VARIANTS', 100_000);
const DURATION = num('BENCH_DURATION', 10);
const WARMUP = num('BENCH_WARMUP', 2);
const CONNECTIONS = num('BENCH_CONNECTIONS', 10);
const SEARCH_QUERIES = num('BENCH_SEARCH_QUERIES', 500);
const SEED = num('BENCH_SEED', 1);
/** BENCH_ANALYZE=1: run ANALYZE after the import (what the gateway does not do; see the findings). */
const ANALYZE = env.BENCH_ANALYZE === '1';
const DOC = env.BENCH_DOC ?? path.join(ROOT, 'docs', 'performance-gateway.md');

const log = (...a: unknown[]) => console.log(...a);
const ms = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));
const redactUrl = (u: string) => u.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

function machine() {
  const cpu = /model name\s*:\s*(.+)/.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1]?.trim() ?? os.cpus()[0]?.model ?? '?';
  let nproc = String(os.availableParallelism());
  try {
    nproc = execSync('nproc', { encoding: 'utf8' }).trim();
  } catch {
    /* keep availableParallelism */
  }
  return { nproc, cpu, node: process.version, load: os.loadavg().map((l) => l.toFixed(2)).join(' '), memGiB: (os.totalmem() / 2 ** 30).toFixed(1) };
}

interface CaseResult {
  name: string;
  path: string;
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  non2xx: number;
  errors: number;
}

async function cannon(name: string, url: string, headers: Record<string, string>, shownPath: string): Promise<CaseResult> {
  // A quick check first: a case that does not answer 200 measures nothing useful.
  const probe = await fetch(url, { headers });
  const text = await probe.text();
  if (probe.status !== 200) throw new Error(`${name}: ${url} answered ${probe.status}: ${text.slice(0, 300)}`);
  const opts = { url, headers, connections: CONNECTIONS, workers: 1 };
  if (WARMUP > 0) await autocannon({ ...opts, duration: WARMUP });
  const r = await autocannon({ ...opts, duration: DURATION });
  const res: CaseResult = {
    name,
    path: shownPath,
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    requests: r.requests.total,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
  };
  log(`  ${name.padEnd(34)} ${res.rps.toFixed(0).padStart(7)} req/s  p50 ${ms(res.p50).padStart(6)} ms  p99 ${ms(res.p99).padStart(6)} ms  (${res.requests} requests, ${res.non2xx} non-2xx, ${res.errors} errors; body ${text.length} B)`);
  return res;
}

/** Varied search queries drawn from the catalog, by shape. */
function searchQueries(catalog: ReturnType<typeof syntheticCatalog>, n: number, seed: number) {
  const rand = rng(seed);
  const all = [...syntheticVariants(catalog)];
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)]!;
  const shapes: Array<{ shape: string; make: (v: (typeof all)[number]) => string }> = [
    { shape: 'make prefix + year', make: (v) => `${v.make.name.slice(0, 3)} ${v.year}` },
    { shape: 'model name', make: (v) => v.model.name },
    { shape: 'make + model + trim', make: (v) => `${v.make.name} ${v.model.name} ${v.variant.name!.split(' ').at(-1)}` },
    { shape: 'MAKE (upper, accents off)', make: (v) => v.make.name.normalize('NFKD').replace(/\p{M}/gu, '').toUpperCase() },
    { shape: 'trim + year', make: (v) => `${v.variant.name!.split(' ').at(-1)} ${v.year}` },
    { shape: 'two-letter prefix', make: (v) => v.model.name.slice(0, 2) },
  ];
  const out: Array<{ shape: string; q: string }> = [];
  for (let i = 0; i < n; i++) {
    const s = shapes[i % shapes.length]!;
    out.push({ shape: s.shape, q: s.make(pick(all)) });
  }
  return out;
}

async function main() {
  const databaseUrl = env.DATABASE_URL || null;
  const redisUrl = env.REDIS_URL || null;
  const backend = `${databaseUrl ? 'PostgreSQL' : 'PGlite (embedded)'} + ${redisUrl ? 'Redis limiter' : 'in-process limiter'}`;
  const sectionId = (databaseUrl && redisUrl ? 'postgres-redis' : !databaseUrl && !redisUrl ? 'embedded' : databaseUrl ? 'postgres-memory' : 'pglite-redis') + (ANALYZE ? '-analyzed' : '');
  const m = machine();
  const started = new Date();
  log(`gateway benchmark: ${backend}`);
  log(`  DATABASE_URL=${databaseUrl ? redactUrl(databaseUrl) : '(unset: embedded PGlite)'}  REDIS_URL=${redisUrl ?? '(unset: in-process limiter)'}`);
  log(`  machine: ${m.nproc} cores (nproc), ${m.cpu}, ${m.memGiB} GiB, node ${m.node}, load ${m.load}`);

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-'));
  const config = loadGatewayConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    SEED_DEMO: 'false',
    LOG_LEVEL: 'info',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
  });
  // The service's logger options (shared/logger.ts), but the per-request lines go to /dev/null
  // (their cost is measured, the terminal is spared); warnings and errors still reach stderr.
  const logger = pino(
    { name: 'gateway', level: 'info', base: { svc: 'gateway' }, timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: ['req.headers["x-api-key"]', 'req.headers.authorization'], censor: '[redacted]' } },
    pino.multistream([
      { level: 'info', stream: pino.destination({ dest: '/dev/null', sync: false }) },
      { level: 'warn', stream: process.stderr },
    ]),
  );

  const gw = await startGateway({ config, logger, renderer: null });
  let bare: Awaited<ReturnType<typeof startBareExpress>> | null = null;
  try {
    log(`  gateway on ${gw.url}: database ${gw.db.kind}, limiter ${gw.limiter.mode()}`);
    if (redisUrl && !(await gw.limiter.ready(5000))) throw new Error(`Redis at ${redisUrl} is not reachable`);

    // The catalog ---------------------------------------------------------------------------------
    let t = performance.now();
    const catalog = validateCatalog(syntheticCatalog({ variants: VARIANTS, seed: SEED }));
    const genMs = performance.now() - t;
    t = performance.now();
    const summary = await importCatalog(gw.db, createFileAssetSetDirectory(path.join(ROOT, 'assets')), catalog);
    const importMs = performance.now() - t;
    if (ANALYZE) {
      t = performance.now();
      await gw.db.query('ANALYZE');
      log(`  ANALYZE after the import (BENCH_ANALYZE=1): ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
    const [{ terms }] = (await gw.db.query<{ terms: number }>('SELECT count(*)::int AS terms FROM search_terms')) as [{ terms: number }];
    log(`  catalog: ${summary.vehicles} variants, ${summary.makes} makes, ${summary.models} models, ${summary.views} views, ${terms} search terms; generated ${(genMs / 1000).toFixed(1)} s, imported ${(importMs / 1000).toFixed(1)} s`);

    // An organisation with a contract that never limits the benchmark -----------------------------
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
    const auth = { 'x-api-key': key };

    // The targets: a published variant with a published front_left view, and search queries ------
    const variants = [...syntheticVariants(catalog)];
    const target = variants.find((v, i) => i > variants.length / 3 && v.variant.published && !v.variant.unpublished_views.includes('front_left'))!;
    const imagePath = `/v1/makes/${target.make.slug}/models/${target.model.slug}/${target.year}/${target.variant.slug}/front_left?color=red&plate=AB%20123`;
    const sMake = variants[Math.floor(variants.length * 0.6)]!;
    const searchCases = [
      { name: 'search "make prefix + year"', q: `${sMake.make.name.slice(0, 3).toLowerCase()} ${sMake.year}` },
      { name: 'search "model name"', q: sMake.model.name },
      { name: 'search "make model trim"', q: `${sMake.make.name} ${sMake.model.name} ${sMake.variant.name!.split(' ').at(-1)}` },
    ];

    const makesBody = await (await fetch(`${gw.url}/v1/makes`, { headers: auth })).json();
    bare = await startBareExpress(makesBody);

    // HTTP, side by side -------------------------------------------------------------------------
    log(`\nautocannon: ${CONNECTIONS} connections, ${WARMUP} s warm-up + ${DURATION} s per case, 1 worker thread`);
    const results: CaseResult[] = [];
    results.push(await cannon('bare Express (same JSON as /v1/makes)', bare.url, {}, 'GET /bare'));
    results.push(await cannon('GET /v1/makes (authenticated)', `${gw.url}/v1/makes`, auth, 'GET /v1/makes'));
    results.push(await cannon('image JSON', `${gw.url}${imagePath}`, auth, `GET ${imagePath}`));
    for (const s of searchCases) {
      const p = `/v1/search?q=${encodeURIComponent(s.q)}`;
      results.push(await cannon(s.name, `${gw.url}${p}`, auth, `GET ${p}`));
    }
    const bareRps = results[0]!.rps;
    const ratio = results[1]!.rps / bareRps;
    log(`\n  authenticated GET /v1/makes / bare = ${ratio.toFixed(2)}  (target ≥ 0.50 with Redis)`);

    // searchVehicles() directly ------------------------------------------------------------------
    const cats = SYNTHETIC_CATEGORIES.map((c) => categoryId(c.slug));
    const queries = searchQueries(catalog, SEARCH_QUERIES, SEED + 7);
    for (const q of queries.slice(0, 30)) await searchVehicles(gw.db, q.q, cats, 20); // warm-up
    const times: number[] = [];
    const byShape = new Map<string, { t: number[]; hits: number[] }>();
    for (const q of queries) {
      const t0 = performance.now();
      const rows = await searchVehicles(gw.db, q.q, cats, 20);
      const dt = performance.now() - t0;
      times.push(dt);
      const s = byShape.get(q.shape) ?? { t: [], hits: [] };
      s.t.push(dt);
      s.hits.push(rows.length);
      byShape.set(q.shape, s);
    }
    times.sort((a, b) => a - b);
    const searchStats = { n: times.length, p50: quantile(times, 0.5), p99: quantile(times, 0.99), max: times.at(-1)! };
    log(`\nsearchVehicles() direct, ${searchStats.n} queries, limit 20, all 4 categories: p50 ${ms(searchStats.p50)} ms, p99 ${ms(searchStats.p99)} ms, max ${ms(searchStats.max)} ms  (target p99 < 20 ms)`);
    const shapeRows: string[] = [];
    for (const [shape, s] of byShape) {
      const st = [...s.t].sort((a, b) => a - b);
      const ex = queries.find((q) => q.shape === shape)!.q;
      const row = `| ${shape} | ${st.length} | ${ms(quantile(st, 0.5))} | ${ms(quantile(st, 0.99))} | ${ms(st.at(-1)!)} | \`${ex}\` |`;
      shapeRows.push(row);
      log(`  ${shape.padEnd(28)} n=${String(st.length).padStart(3)}  p50 ${ms(quantile(st, 0.5)).padStart(6)} ms  p99 ${ms(quantile(st, 0.99)).padStart(6)} ms  max ${ms(st.at(-1)!).padStart(6)} ms  e.g. "${ex}"`);
    }

    // EXPLAIN ANALYZE of one search, with the exact SQL searchVehicles() sends -------------------
    let captured: { text: string; params: readonly unknown[] } | null = null;
    const spy: Queryable = {
      query: async <R>(text: string, params?: readonly unknown[]) => {
        captured = { text, params: params ?? [] };
        return gw.db.query<R>(text, params);
      },
    };
    const explainQ = searchCases[0]!.q;
    await searchVehicles(spy, explainQ, cats, 20);
    const c = captured as { text: string; params: readonly unknown[] } | null;
    if (!c) throw new Error('searchVehicles sent no query');
    const plan = (await gw.db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${c.text}`, c.params)).map((r) => r['QUERY PLAN']);
    // "Index Scan using search_terms_pkey on search_terms", "Index Only Scan …" or "Bitmap Index Scan on search_terms_pkey".
    const indexScan = plan.some((l) => /(Index (Only )?Scan using search_terms_pkey on search_terms|Bitmap Index Scan on search_terms_pkey)\b/.test(l));
    const seqScan = plan.some((l) => /Seq Scan on search_terms/.test(l));
    log(`\nEXPLAIN (ANALYZE, BUFFERS) of searchVehicles("${explainQ}"): index scan on search_terms_pkey: ${indexScan ? 'yes' : 'NO'}; seq scan on search_terms: ${seqScan ? 'YES' : 'no'}`);
    for (const l of plan) log(`  ${l}`);

    // Whether the planner had statistics: the gateway never runs ANALYZE; PostgreSQL's autovacuum
    // may have done it meanwhile (PGlite has no autovacuum).
    let statsNote = ANALYZE ? 'ANALYZE run by the benchmark right after the import (BENCH_ANALYZE=1).' : 'No extra ANALYZE by the benchmark (importCatalog runs ANALYZE itself).';
    if (gw.db.kind === 'postgres') {
      const st = await gw.db.query<{ relname: string; a: string | null }>(
        `SELECT relname, greatest(last_analyze, last_autoanalyze)::text AS a FROM pg_stat_user_tables
          WHERE relname IN ('vehicles', 'search_terms') ORDER BY relname`);
      statsNote += ` Last (auto)analyze at the end of the run: ${st.map((r) => `${r.relname} ${r.a ?? 'never'}`).join(', ')}.`;
    }
    log(`\n  ${statsNote}`);

    // The report -----------------------------------------------------------------------------------
    const command = `${databaseUrl ? `DATABASE_URL=${redactUrl(databaseUrl)} ` : ''}${redisUrl ? `REDIS_URL=${redisUrl} ` : ''}npm run bench:gateway`;
    const section = [
      `<!-- section:${sectionId} -->`,
      `## ${backend}${ANALYZE ? ', ANALYZE after import' : ''}`,
      '',
      `- Date: ${started.toISOString()}`,
      `- Command: \`${command}\``,
      `- Machine: ${m.nproc} cores (\`nproc\`), ${m.cpu}, ${m.memGiB} GiB RAM, Node ${m.node}; load average at start ${m.load} (a shared machine: other jobs may have run meanwhile)`,
      `- Catalog: ${summary.vehicles.toLocaleString('en')} variants (${summary.makes} makes, ${summary.models} models, ${summary.views.toLocaleString('en')} views, ${terms.toLocaleString('en')} search terms), synthetic seed ${SEED}; import ${(importMs / 1000).toFixed(1)} s`,
      `- Planner statistics: ${statsNote}`,
      `- Load: autocannon, ${CONNECTIONS} connections, ${WARMUP} s warm-up then ${DURATION} s per case, from a worker thread of the same process`,
      '',
      '| case | requests/s | p50 ms | p99 ms | × bare | non-2xx | path |',
      '| --- | ---: | ---: | ---: | ---: | ---: | --- |',
      ...results.map((r) => `| ${r.name} | ${r.rps.toFixed(0)} | ${ms(r.p50)} | ${ms(r.p99)} | ${(r.rps / bareRps).toFixed(2)} | ${r.non2xx + r.errors} | \`${r.path.replace(/\|/g, '%7C')}\` |`),
      '',
      `Authenticated \`GET /v1/makes\` / bare Express: **${ratio.toFixed(2)}** (target ≥ 0.50 with Redis: ${ratio >= 0.5 ? 'met' : 'missed'}).`,
      '',
      `### searchVehicles() called directly`,
      '',
      `${searchStats.n} varied queries (limit 20, all 4 categories), one at a time: **p50 ${ms(searchStats.p50)} ms, p99 ${ms(searchStats.p99)} ms**, max ${ms(searchStats.max)} ms (target p99 < 20 ms: ${searchStats.p99 < 20 ? 'met' : 'missed'}).`,
      '',
      '| query shape | n | p50 ms | p99 ms | max ms | example |',
      '| --- | ---: | ---: | ---: | ---: | --- |',
      ...shapeRows,
      '',
      `### EXPLAIN (ANALYZE, BUFFERS) of \`searchVehicles("${explainQ}")\``,
      '',
      `Index scan on search_terms (its primary key, search_terms_pkey): ${indexScan ? 'yes' : 'NO'}; sequential scan on search_terms: ${seqScan ? 'YES' : 'no'}.`,
      '',
      '```',
      ...plan,
      '```',
      `<!-- /section:${sectionId} -->`,
    ].join('\n');
    if (DOC !== '-') writeDoc(DOC, sectionId, section);
    log(`\n${DOC === '-' ? 'no document written (BENCH_DOC=-)' : `wrote ${path.relative(process.cwd(), DOC)} (section ${sectionId})`}`);
  } finally {
    await bare?.close();
    await gw.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

const INTRO = `# Gateway performance

Generated by \`npm run bench:gateway\` (test/bench/gateway.bench.ts); each run rewrites this file,
replacing the section of the storage it ran on and keeping the other sections as they were.

What one run measures, side by side on the same machine:
- a bare Express handler answering the same JSON body as \`GET /v1/makes\` (no middleware): the baseline;
- authenticated \`GET /v1/makes\`, an image JSON call and three search queries through the whole gateway
  (request log, metrics, key check, both limits, the route, on the 100,000-variant synthetic catalog of
  test/bench/synthetic-catalog.ts);
- \`searchVehicles()\` (gateway/catalog/search.ts) called directly over varied queries, and the plan
  PostgreSQL chooses for one of them.

Targets (issue 2): the authenticated catalog call at no less than half the bare handler's throughput
with Redis; search p99 under 20 ms.

Run it on the embedded defaults with \`npm run bench:gateway\`, and on the servers with
\`DATABASE_URL=postgres://… REDIS_URL=redis://… npm run bench:gateway\` (use a fresh, empty database: the
benchmark imports the catalog into it). BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS, BENCH_VARIANTS,
BENCH_SEARCH_QUERIES and BENCH_SEED change the run.
`;

/** Written by hand from the profiles and plans of the runs it names; kept with the figures. */
const FINDINGS = [
  "## Findings and what was done",
  "",
  "A first analysis (2026-11-21, commit 84377eb) found the authenticated catalog call at 0.01-0.14x the",
  "bare handler and search p99 over a second. Fixed since, in gateway/:",
  "",
  "1. **Planner statistics after an import.** `importCatalog` now runs `ANALYZE` on the catalog tables",
  "   after its transaction (PGlite has no autovacuum, and the server's had not run within minutes): without",
  "   them PostgreSQL chose a sequential scan of `search_terms` and hash-joined every vehicle for `/v1/makes`.",
  "2. **`GET /v1/makes` is cached** per contract category set for 2 s (`CatalogService.listMakes`):",
  "   the same answer for every key with the same categories; a publish shows within 2 s.",
  "3. **Search is driven by its most selective token.** Query tokens are expanded against `search_dict`",
  "   (the catalog's distinct terms with their vehicle counts, rebuilt by each import); the token matching",
  "   the fewest vehicles gives the candidates through `search_terms`' primary key, and the other tokens",
  "   are checked inside each candidate's row (`vehicles.terms`), so no plan depends on a fragile estimate.",
  "4. **Short tokens match whole terms.** A one-character token, or a number shorter than a year, is no",
  "   longer a prefix of most of the catalog.",
  "",
  "What remains: a query whose most selective token still matches thousands of vehicles (a trim name and",
  "a year, a two-letter prefix) joins and sorts those candidates, 15-30 ms on this machine; and embedded",
  "mode runs SQL on the event loop (PGlite executes synchronously in the gateway's thread), so under",
  "concurrent load its latencies include queueing behind other requests. The embedded figures are for",
  "development machines; production runs PostgreSQL.",
].join('\n');

function writeDoc(file: string, id: string, section: string): void {
  const old = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const sections = new Map<string, string>();
  for (const mm of old.matchAll(/<!-- section:([\w-]+) -->[\s\S]*?<!-- \/section:\1 -->/g)) sections.set(mm[1]!, mm[0]);
  sections.set(id, section);
  const order = ['embedded', 'postgres-redis', 'postgres-memory', 'pglite-redis'].flatMap((k) => [k, `${k}-analyzed`]);
  const body = order.filter((k) => sections.has(k)).map((k) => sections.get(k)!);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${INTRO}\n${FINDINGS}\n\n${body.join('\n\n')}\n`);
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
