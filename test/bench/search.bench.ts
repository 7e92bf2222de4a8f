/**
 * `npm run bench:search`: searchVehicles() latency per query shape on the synthetic catalog.
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/search_bench npm run bench:search -- --variants 1000000 [--explain]
 *
 * DATABASE_URL names a scratch database (created if missing): the benchmark empties its catalog
 * tables and bulk-loads the catalog there, then leaves a marker (settings key bench:search-catalog)
 * so that later runs with the same --variants and --seed reuse it (--rebuild forces a new load).
 * It refuses a database that holds a catalog it did not load. --embedded runs on in-memory PGlite
 * instead (development machines; the targets are for PostgreSQL).
 *
 * The bulk load writes what importCatalog writes for search (makes, models, vehicles with their
 * terms, search_terms through the same column expressions, search_dict with the same counts), but
 * with set-based statements and search_terms' indexes built after the load, then VACUUM ANALYZE
 * (what autovacuum does after an import). Views are not loaded: search never reads them.
 *
 * Each shape runs --queries distinct queries (100) drawn from the catalog (seeded by --seed), once to
 * warm up and then --rounds times (3), one at a time, --limit 20, every category. Targets: p99 < 20 ms
 * at 100,000 variants, < 50 ms at 1,000,000 (issue 10). Options:
 *   --compare  also times the search as it was before migration 004 beside each call, and checks that
 *              both answer the same vehicles in the same order (exit status 1 on a mismatch);
 *   --server   adds the database's own time per query (planning + execution, EXPLAIN ANALYZE), which a
 *              busy shared machine inflates far less than the wall-clock figures;
 *   --explain  prints EXPLAIN (ANALYZE, BUFFERS) of every statement of the slowest query of the
 *              shape with the worst p99.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { categoryId, makeId, modelId, vehicleId } from '../../gateway/catalog/ids.ts';
import { searchVehicles } from '../../gateway/catalog/search.ts';
import { insertPostings, prefixUpperBound, tokenize, vehicleTerms } from '../../gateway/catalog/search-terms.ts';
import type { Database, Queryable } from '../../gateway/db/database.ts';
import { listMigrations } from '../../gateway/db/migrate.ts';
import { openDatabase } from '../../gateway/db/open.ts';
import { rng, syntheticCatalog, syntheticVariants, SYNTHETIC_CATEGORIES } from './synthetic-catalog.ts';

const { values: args } = parseArgs({
  options: {
    variants: { type: 'string', default: '100000' },
    seed: { type: 'string', default: '1' },
    queries: { type: 'string', default: '100' },
    rounds: { type: 'string', default: '3' },
    limit: { type: 'string', default: '20' },
    explain: { type: 'boolean', default: false },
    rebuild: { type: 'boolean', default: false },
    embedded: { type: 'boolean', default: false },
    compare: { type: 'boolean', default: false },
    server: { type: 'boolean', default: false },
  },
});
const VARIANTS = Number(args.variants);
const SEED = Number(args.seed);
const QUERIES = Number(args.queries);
const ROUNDS = Number(args.rounds);
const LIMIT = Number(args.limit);
const TARGET_MS = VARIANTS > 100_000 ? 50 : 20;
const MARKER_KEY = 'bench:search-catalog';
const BATCH = 10_000;

const log = (...a: unknown[]) => console.log(...a);
const fmt = (n: number) => (n < 10 ? n.toFixed(2) : n.toFixed(1));
const redact = (u: string) => u.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Creates the scratch database named by the URL when it does not exist yet. */
async function ensureDatabase(url: string): Promise<void> {
  const u = new URL(url);
  const name = decodeURIComponent(u.pathname.slice(1));
  if (!name || name === 'postgres') return;
  u.pathname = '/postgres';
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  try {
    const r = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (r.rowCount === 0) await c.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
  } finally {
    await c.end();
  }
}

type Catalog = ReturnType<typeof syntheticCatalog>;

/** Loads the catalog's search data in one transaction, indexes of search_terms built after the rows. */
async function bulkLoad(db: Database, catalog: Catalog, marker: string): Promise<void> {
  const cats = SYNTHETIC_CATEGORIES.map((c) => [categoryId(c.slug), c.slug, c.name]);
  const makes: string[][] = [];
  const models: string[][] = [];
  const vehicles: unknown[][] = [];
  for (const mk of catalog.makes) {
    makes.push([makeId(mk.slug), mk.slug, mk.name]);
    for (const md of mk.models) models.push([modelId(mk.slug, md.slug), makeId(mk.slug), md.slug, md.name]);
  }
  for (const { make, model, year, variant } of syntheticVariants(catalog)) {
    const terms = vehicleTerms({ makeName: make.name, makeSlug: make.slug, modelName: model.name, modelSlug: model.slug,
      variantName: variant.name, variantSlug: variant.slug, year });
    vehicles.push([vehicleId(make.slug, model.slug, year, variant.slug), modelId(make.slug, model.slug), year, variant.slug, variant.name,
      categoryId(variant.category), variant.asset_set, variant.published, terms.sort().join(' ')]);
  }
  const columns = (rows: unknown[][]) => rows[0]!.map((_, i) => rows.map((r) => r[i]));
  const batches = async (rows: unknown[][], sql: string, tx: Queryable) => {
    for (let i = 0; i < rows.length; i += BATCH) await tx.query(sql, columns(rows.slice(i, i + BATCH)));
  };
  await db.transaction(async (tx) => {
    if (db.kind === 'postgres') await tx.query("SET LOCAL maintenance_work_mem = '512MB'");
    await tx.query('TRUNCATE categories, makes, models, vehicles CASCADE');
    await tx.query('INSERT INTO categories (id, slug, name) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])', columns(cats));
    await batches(makes, 'INSERT INTO makes (id, slug, name) SELECT * FROM unnest($1::text[], $2::text[], $3::text[])', tx);
    await batches(models, 'INSERT INTO models (id, make_id, slug, name) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])', tx);
    await batches(vehicles, `INSERT INTO vehicles (id, model_id, year, variant_slug, variant_name, category_id, asset_set, published, terms)
        SELECT a, b, c, d, e, f, g, h, string_to_array(i, ' ')
          FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bool[], $9::text[]) AS t(a, b, c, d, e, f, g, h, i)`, tx);
    // search_terms as migration 004 defines it, its indexes and foreign key put back after the rows.
    await tx.query('ALTER TABLE search_terms DROP CONSTRAINT search_terms_pkey');
    const fks = await tx.query<{ name: string }>(
      `SELECT conname AS name FROM pg_constraint WHERE conrelid = 'search_terms'::regclass AND contype = 'f'`);
    for (const fk of fks) await tx.query(`ALTER TABLE search_terms DROP CONSTRAINT "${fk.name}"`);
    await tx.query('DROP INDEX search_terms_vehicle');
    await insertPostings(tx, 'true');
    await tx.query('ALTER TABLE search_terms ADD PRIMARY KEY (term, make_name, model_name, neg_year, variant_key, vehicle_id)');
    await tx.query('CREATE INDEX search_terms_vehicle ON search_terms (vehicle_id)');
    await tx.query('ALTER TABLE search_terms ADD CONSTRAINT search_terms_vehicle_id_fkey FOREIGN KEY (vehicle_id) REFERENCES vehicles(id) ON DELETE CASCADE');
    await tx.query('DELETE FROM search_dict');
    await tx.query('INSERT INTO search_dict (term, n) SELECT term, count(DISTINCT vehicle_id)::int FROM search_terms GROUP BY term');
    await tx.query(`INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value`, [MARKER_KEY, marker]);
  });
  for (const t of ['categories', 'makes', 'models', 'vehicles', 'search_terms', 'search_dict']) await db.query(`VACUUM ANALYZE ${t}`);
}

/**
 * The search as it was before migration 004 (commit 0c2fba9): every candidate of the most selective
 * token joined and sorted before the limit. --compare times it beside the current one in the same
 * run and checks that both give the same answers in the same order.
 */
async function searchBefore(db: Queryable, q: string, categoryIds: string[], limit: number): Promise<string[]> { // result keys
  const tokens = [...new Set(tokenize(q))].slice(0, 8);
  if (tokens.length === 0) return [];
  const exactOnly = (t: string) => t.length < 2 || (/^\d+$/.test(t) && t.length < 4);
  const expanded = await db.query<{ i: number; term: string; n: number }>(
    `SELECT q.i::int AS i, d.term, d.n FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS q(lo, hi, i)
       JOIN search_dict d ON d.term >= q.lo COLLATE "C" AND d.term < q.hi COLLATE "C"`,
    [tokens, tokens.map((t) => (exactOnly(t) ? `${t}\u0001` : prefixUpperBound(t)))],
  );
  const perToken = tokens.map((_, i) => expanded.filter((e) => e.i === i + 1));
  if (perToken.some((terms) => terms.length === 0)) return [];
  const weight = (terms: typeof expanded) => terms.reduce((s, e) => s + e.n, 0);
  const driver = perToken.reduce((best, cur) => (weight(cur) < weight(best) ? cur : best));
  const params: unknown[] = [driver.map((e) => e.term), categoryIds, tokens, limit];
  const checks = perToken.filter((t) => t !== driver).map((terms) => {
    params.push(terms.map((e) => e.term));
    return `AND v.terms && $${params.length}::text[]`;
  });
  const rows = await db.query<{ key: string }>(
    `WITH cand AS MATERIALIZED (SELECT DISTINCT st.vehicle_id FROM search_terms st WHERE st.term = ANY($1::text[])),
     ok AS MATERIALIZED (
       SELECT v.id, v.model_id, v.year, v.variant_name, v.variant_slug, (SELECT count(*) FROM unnest($3::text[]) AS t(x) WHERE t.x = ANY(v.terms)) AS exact
         FROM cand c JOIN vehicles v ON v.id = c.vehicle_id
        WHERE v.published AND v.category_id = ANY($2::text[]) ${checks.join(' ')})
     SELECT mk.slug || '/' || md.slug || '/' || x.year || '/' || coalesce(x.variant_slug, '') AS key FROM ok x JOIN models md ON md.id = x.model_id JOIN makes mk ON mk.id = md.make_id
      ORDER BY x.exact DESC, mk.name, md.name, x.year DESC, x.variant_name NULLS FIRST LIMIT $4`,
    params,
  );
  return rows.map((r) => r.key);
}

/** Deterministic queries of each shape, drawn from the catalog. */
function shapes(catalog: Catalog, n: number, seed: number) {
  const all = [...syntheticVariants(catalog)];
  const rand = rng(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(rand() * a.length)]!;
  const strip = (s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '');
  const accented = all.filter((v) => strip(v.make.name) !== v.make.name);
  const trim = (v: (typeof all)[number]) => v.variant.name!.split(' ').at(-1)!;
  // Two neighbouring letters swapped inside the make name: a typo the dictionary does not know.
  const typo = (s: string) => {
    const i = 1 + Math.floor(rand() * Math.max(1, s.length - 2));
    return s.slice(0, i) + s.charAt(i + 1) + s.charAt(i) + s.slice(i + 2);
  };
  const defs: Array<{ shape: string; make: () => string }> = [
    { shape: 'make', make: () => pick(all).make.name },
    { shape: 'model', make: () => pick(all).model.name },
    { shape: 'make + model + trim', make: () => { const v = pick(all); return `${v.make.name} ${v.model.name} ${trim(v)}`; } },
    { shape: 'trim + year', make: () => { const v = pick(all); return `${trim(v)} ${v.year}`; } },
    { shape: 'make prefix + year', make: () => { const v = pick(all); return `${v.make.name.slice(0, 3)} ${v.year}`; } },
    { shape: 'two-letter prefix', make: () => pick(all).model.name.slice(0, 2) },
    { shape: 'accented make + model', make: () => { const v = pick(accented); return `${v.make.name} ${v.model.name}`; } },
    { shape: 'MAKE (upper, accents off)', make: () => strip(pick(accented).make.name).toUpperCase() },
    { shape: 'misspelt make + model', make: () => { const v = pick(all); return `${typo(v.make.name)} ${v.model.name}`; } },
  ];
  return defs.map((d) => ({ shape: d.shape, queries: Array.from({ length: n }, d.make) }));
}

/** The database's own time for each query (all its statements), without the client's share of a busy machine. */
async function serverTimes(db: Database, queries: string[], cats: string[]) {
  const out: number[] = [];
  for (const q of queries) {
    const sent: Array<{ text: string; params: readonly unknown[] }> = [];
    const spy: Queryable = { query: (text, params) => (sent.push({ text, params: [...(params ?? [])] }), db.query(text, params)) };
    await searchVehicles(spy, q, cats, LIMIT);
    let ms = 0;
    for (const s of sent) {
      const plan = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, TIMING OFF) ${s.text}`, s.params);
      for (const { 'QUERY PLAN': line } of plan) {
        const m = /^(Planning|Execution) Time: ([\d.]+) ms/.exec(line);
        if (m) ms += Number(m[2]);
      }
    }
    out.push(ms);
  }
  out.sort((a, b) => a - b);
  return { p50: quantile(out, 0.5), p99: quantile(out, 0.99) };
}

async function main() {
  const url = process.env.DATABASE_URL || null;
  if (!url && !args.embedded) {
    console.error('bench:search needs DATABASE_URL=postgres://…/<scratch database> (its catalog tables are emptied and reloaded), or --embedded for in-memory PGlite.');
    process.exit(2);
  }
  if (url) await ensureDatabase(url);
  const db = await openDatabase({ databaseUrl: args.embedded ? null : url, dataDir: null });
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ');
  log(`search benchmark: ${args.embedded ? 'PGlite (in memory)' : `PostgreSQL ${redact(url!)}`}, ${VARIANTS.toLocaleString('en')} variants, seed ${SEED}`);
  log(`  machine: ${os.availableParallelism()} cores, ${os.cpus()[0]?.model ?? '?'}, node ${process.version}, load average at start ${load}`);
  try {
    let t = performance.now();
    const catalog = syntheticCatalog({ variants: VARIANTS, seed: SEED });
    log(`  catalog generated in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    const marker = `${VARIANTS}:${SEED}:postings-004`; // the layout of migration 004
    const [have] = await db.query<{ value: string }>('SELECT value FROM settings WHERE key = $1', [MARKER_KEY]);
    if (have?.value === marker && !args.rebuild) {
      log(`  reusing the catalog loaded earlier (marker ${marker})`);
    } else {
      const [{ n }] = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM vehicles')) as [{ n: number }];
      if (n > 0 && !have) throw new Error('this database holds a catalog the benchmark did not load: give it a scratch database');
      t = performance.now();
      await bulkLoad(db, catalog, marker);
      log(`  bulk load + indexes + VACUUM ANALYZE: ${((performance.now() - t) / 1000).toFixed(1)} s`);
    }
    const [sz] = await db.query<{ vehicles: number; postings: number; terms: number; heap: string; pkey: string; byvehicle: string }>(
      `SELECT (SELECT count(*)::int FROM vehicles) AS vehicles, (SELECT count(*)::int FROM search_terms) AS postings,
              (SELECT count(*)::int FROM search_dict) AS terms,
              pg_size_pretty(pg_table_size('search_terms')) AS heap, pg_size_pretty(pg_relation_size('search_terms_pkey')) AS pkey,
              pg_size_pretty(pg_relation_size('search_terms_vehicle')) AS byvehicle`);
    log(`  ${sz!.vehicles.toLocaleString('en')} vehicles, ${sz!.postings.toLocaleString('en')} postings (heap ${sz!.heap}, primary key ${sz!.pkey}, by-vehicle index ${sz!.byvehicle}), ${sz!.terms.toLocaleString('en')} dictionary terms`);

    const cats = SYNTHETIC_CATEGORIES.map((c) => categoryId(c.slug));
    const cases = shapes(catalog, QUERIES, SEED + 7);
    for (const c of cases) for (const q of c.queries) await searchVehicles(db, q, cats, LIMIT); // warm-up
    type Row = { shape: string; p50: number; p99: number; max: number; rows: number; worst: string; example: string; before?: { p50: number; p99: number; max: number }; server?: { p50: number; p99: number } };
    const results: Row[] = [];
    const stats = (times: Array<{ ms: number; q: string }>) => {
      times.sort((a, b) => a.ms - b.ms);
      const ms = times.map((x) => x.ms);
      return { p50: quantile(ms, 0.5), p99: quantile(ms, 0.99), max: ms.at(-1)!, worst: times.at(-1)!.q };
    };
    let mismatches = 0;
    for (const c of cases) {
      const times: Array<{ ms: number; q: string }> = [];
      const before: Array<{ ms: number; q: string }> = [];
      let rows = 0;
      for (let r = 0; r < ROUNDS; r++) {
        for (const q of c.queries) {
          let t0 = performance.now();
          const got = await searchVehicles(db, q, cats, LIMIT);
          times.push({ ms: performance.now() - t0, q });
          rows += got.length;
          if (args.compare) {
            t0 = performance.now();
            const old = await searchBefore(db, q, cats, LIMIT);
            before.push({ ms: performance.now() - t0, q });
            const keys = got.map((g) => `${g.makeSlug}/${g.modelSlug}/${g.year}/${g.variantSlug ?? ''}`);
            if (r === 0 && keys.join('|') !== old.join('|')) {
              mismatches++;
              log(`  MISMATCH for "${q}":\n    now    ${keys.join(' ')}\n    before ${old.join(' ')}`);
            }
          }
        }
      }
      const now = stats(times);
      const b = args.compare ? stats(before) : undefined;
      results.push({ shape: c.shape, ...now, rows: rows / times.length, example: c.queries[0]!, before: b, server: args.server ? await serverTimes(db, c.queries, cats) : undefined });
    }
    log(`\n${QUERIES} queries per shape, ${ROUNDS} rounds after a warm-up, one at a time, limit ${LIMIT}, all 4 categories; target p99 < ${TARGET_MS} ms`);
    if (args.compare) log(`the search before migration 004 timed beside each call ("before"); answers compared (same vehicles, same order): ${mismatches} mismatches`);
    log('');
    if (args.server) log('server: planning + execution of every statement one call sends, summed, from EXPLAIN (ANALYZE, TIMING OFF), each distinct query once');
    const beforeCols = args.compare ? ' before p50 | before p99 | p99 ratio |' : '';
    const serverCols = args.server ? ' server p50 | server p99 |' : '';
    log(`| shape | p50 ms | p99 ms | max ms | rows (mean) | target | pass |${serverCols}${beforeCols} example | slowest |`);
    log(`| --- | ---: | ---: | ---: | ---: | --- | --- |${args.server ? ' ---: | ---: |' : ''}${args.compare ? ' ---: | ---: | ---: |' : ''} --- | --- |`);
    for (const r of results) {
      const sc = r.server ? ` ${fmt(r.server.p50)} | ${fmt(r.server.p99)} |` : '';
      const bc = r.before ? ` ${fmt(r.before.p50)} | ${fmt(r.before.p99)} | ${(r.p99 / r.before.p99).toFixed(2)} |` : '';
      log(`| ${r.shape} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${fmt(r.max)} | ${r.rows.toFixed(1)} | p99 < ${TARGET_MS} | ${r.p99 < TARGET_MS ? 'pass' : 'FAIL'} |${sc}${bc} \`${r.example}\` | \`${r.worst}\` |`);
    }
    const failed = results.filter((r) => r.p99 >= TARGET_MS);
    log(`\n${failed.length === 0 ? 'every shape within target' : `over target: ${failed.map((r) => r.shape).join(', ')}`}; load average at end ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    if (mismatches > 0) process.exitCode = 1;

    if (args.explain) {
      const worst = results.reduce((a, b) => (b.p99 > a.p99 ? b : a));
      const sent: Array<{ text: string; params: readonly unknown[] }> = [];
      const spy: Queryable = { query: (text, params) => (sent.push({ text, params: [...(params ?? [])] }), db.query(text, params)) };
      await searchVehicles(spy, worst.worst, cats, LIMIT);
      for (const [i, s] of sent.entries()) {
        const plan = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${s.text}`, s.params);
        log(`\nEXPLAIN (ANALYZE, BUFFERS), statement ${i + 1} of ${sent.length} of searchVehicles("${worst.worst}") (shape "${worst.shape}"):\n`);
        log(plan.map((r) => r['QUERY PLAN']).join('\n'));
      }
    }
  } finally {
    await db.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
