/**
 * Search correctness at scale: a 20,000-variant synthetic catalog (in-memory PGlite, or a scratch
 * database on the PostgreSQL server when DATABASE_URL is set), checked against a brute-force matcher
 * and ranking written here (every query token is a prefix of a make, model, variant or year token;
 * accents and case folded; whole-token matches first, then make, model, newest year, variant), and
 * the plan uses the search_terms index. Also: the postings follow the admin's publish switch and a
 * renamed make, and migration 004 turns a database written by the previous schema into one that
 * answers exactly like a fresh import. No timing assertions (`npm run bench:search` has the figures).
 */
import { expect } from 'chai';
import { createFileAssetSetDirectory } from '../../gateway/catalog/asset-sets.ts';
import type { CatalogFile } from '../../gateway/catalog/catalog-file.ts';
import { categoryId, makeId, vehicleId } from '../../gateway/catalog/ids.ts';
import { importCatalog } from '../../gateway/catalog/import.ts';
import { searchVehicles, SEARCH_LIMIT_MAX, type SearchResult } from '../../gateway/catalog/search.ts';
import { tokenize } from '../../gateway/catalog/search-terms.ts';
import type { Database, Queryable } from '../../gateway/db/database.ts';
import { listMigrations, migrate } from '../../gateway/db/migrate.ts';
import { openPglite } from '../../gateway/db/pglite.ts';
import { openPostgres } from '../../gateway/db/postgres.ts';
import { backendLabel, createScratchDatabase } from './support/backend.ts';
import { rng, syntheticCatalog, syntheticVariants, SYNTHETIC_CATEGORIES } from '../bench/synthetic-catalog.ts';

const VARIANTS = 20_000;
const ALL_CATS: string[] = SYNTHETIC_CATEGORIES.map((c) => c.slug);
const catName = new Map<string, string>(SYNTHETIC_CATEGORIES.map((c) => [c.slug, c.name]));

interface Flat {
  key: string;
  make: string;
  model: string;
  year: number;
  variant: string;
  category: string;
  published: boolean;
  terms: string[];
}

const keyOf = (r: SearchResult) => `${r.makeSlug}/${r.modelSlug}/${r.year}/${r.variantSlug ?? ''}`;

/** A fresh database (scratch on the server when DATABASE_URL is set), migrated up to `upTo`. */
async function freshDatabase(upTo = Infinity): Promise<{ db: Database; drop(): Promise<void> }> {
  const scratch = await createScratchDatabase();
  const db = scratch ? openPostgres(scratch.url) : await openPglite(null);
  await migrate(db, listMigrations().filter((m) => m.version <= upTo));
  return {
    db,
    async drop() {
      await db.close();
      await scratch?.drop();
    },
  };
}

/** The expected matches, by brute force over the catalog file. */
function bruteForce(all: Flat[], q: string, categories: string[]): Flat[] {
  const tokens = [...new Set(tokenize(q))].slice(0, 8);
  if (tokens.length === 0) return [];
  const cats = new Set(categories);
  return all.filter((v) => v.published && cats.has(v.category) && tokens.every((t) => v.terms.some((term) => term.startsWith(t))));
}

describe(`search at scale (20,000 variants, ${backendLabel()})`, function () {
  this.timeout(300_000);
  let db: Database;
  let dropDb: () => Promise<void> = async () => {};
  let catalog: CatalogFile;
  let all: Flat[];
  const search = (q: string, cats: string[] = ALL_CATS, limit = SEARCH_LIMIT_MAX, on: Queryable = db) =>
    searchVehicles(on, q, cats.map(categoryId), limit);

  before(async function () {
    ({ db, drop: dropDb } = await freshDatabase());
    catalog = syntheticCatalog({ variants: VARIANTS, seed: 3 });
    await importCatalog(db, createFileAssetSetDirectory('assets'), catalog);
    all = [...syntheticVariants(catalog)].map(({ make, model, year, variant }) => ({
      key: `${make.slug}/${model.slug}/${year}/${variant.slug ?? ''}`,
      make: make.name,
      model: model.name,
      year,
      variant: variant.name!,
      category: variant.category,
      published: variant.published,
      terms: [make.name, make.slug, model.name, model.slug, variant.name ?? '', variant.slug ?? '', String(year)].flatMap(tokenize),
    }));
  });

  after(async () => {
    await dropDb();
  });

  /** Deterministic queries of several shapes, drawn from the catalog. */
  function queries(n: number, seed: number): string[] {
    const rand = rng(seed);
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const v = all[Math.floor(rand() * all.length)]!;
      const trim = v.variant.split(' ').at(-1)!;
      const shapes = [
        v.model,
        `${v.make} ${v.year}`,
        `${v.make.slice(0, 4)} ${v.model.slice(0, 3)}`,
        `${trim} ${v.year} ${v.make}`,
        `${v.make} ${v.model} ${v.variant}`,
        v.make.toUpperCase(),
      ];
      out.push(shapes[i % shapes.length]!);
    }
    return out;
  }

  it('imported the whole catalog', async () => {
    const [{ n }] = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM vehicles')) as [{ n: number }];
    expect(n).to.equal(VARIANTS);
  });

  it('folds accents and case: the accented, plain, upper- and lower-case spellings find the same vehicles', async () => {
    const accented = catalog.makes.filter((mk) => mk.name !== mk.name.normalize('NFKD').replace(/\p{M}/gu, '') && !mk.name.includes(' '));
    expect(accented.length, 'the synthetic catalog has accented makes').to.be.greaterThan(3);
    for (const mk of accented.slice(0, 4)) {
      const plain = mk.name.normalize('NFKD').replace(/\p{M}/gu, '');
      const spellings = [mk.name, mk.name.toUpperCase(), mk.name.toLowerCase(), plain, plain.toUpperCase(), `  ${plain.toLowerCase()}  `];
      const answers = await Promise.all(spellings.map((s) => search(s)));
      expect(answers[0]!.length, mk.name).to.be.greaterThan(0);
      for (const a of answers) expect(a.map(keyOf), mk.name).to.deep.equal(answers[0]!.map(keyOf));
      for (const r of answers[0]!) expect(tokenize(`${r.make} ${r.model}`).some((t) => t.startsWith(tokenize(plain)[0]!))).to.equal(true);
    }
  });

  it('answers exactly the brute-force matches (every token matched, published only), up to the limit', async () => {
    let compared = 0;
    for (const q of queries(36, 11)) {
      const got = await search(q);
      const want = bruteForce(all, q, ALL_CATS);
      const wantKeys = new Set(want.map((v) => v.key));
      for (const r of got) expect(wantKeys.has(keyOf(r)), `"${q}" returned ${keyOf(r)}, which does not match every token`).to.equal(true);
      if (want.length <= SEARCH_LIMIT_MAX) {
        expect(got.map(keyOf).sort(), `"${q}"`).to.deep.equal([...wantKeys].sort());
        compared++;
      } else {
        expect(got.length, `"${q}"`).to.equal(SEARCH_LIMIT_MAX);
      }
    }
    expect(compared, 'most queries are narrow enough to compare whole answers').to.be.greaterThan(20);
  });

  it('never returns an unpublished variant', async () => {
    const hidden = all.filter((v) => !v.published).slice(0, 5);
    expect(hidden.length).to.be.greaterThan(0);
    for (const v of hidden) {
      const got = await search(`${v.make} ${v.model} ${v.year} ${v.variant}`);
      expect(got.map(keyOf)).not.to.include(v.key);
    }
  });

  it("filters to the contract's categories", async () => {
    const cats = ['suv', 'van'];
    const names = new Set(cats.map((c) => catName.get(c)));
    for (const q of queries(18, 23)) {
      const got = await search(q, cats);
      for (const r of got) expect(names.has(r.category), `"${q}" returned a ${r.category}`).to.equal(true);
      const want = bruteForce(all, q, cats);
      if (want.length <= SEARCH_LIMIT_MAX) expect(got.map(keyOf).sort(), `"${q}"`).to.deep.equal(want.map((v) => v.key).sort());
    }
    expect(await search(all[0]!.model, [])).to.deep.equal([]);
  });

  it('respects the limit', async () => {
    const broad = String(all[0]!.year); // a year: thousands of vehicles
    expect(bruteForce(all, broad, ALL_CATS).length).to.be.greaterThan(SEARCH_LIMIT_MAX);
    for (const limit of [1, 7, 20, SEARCH_LIMIT_MAX]) expect(await search(broad, ALL_CATS, limit)).to.have.length(limit);
    const narrow = `${all[5]!.make} ${all[5]!.model} ${all[5]!.year}`;
    const n = bruteForce(all, narrow, ALL_CATS).length; // the variants of one model year
    expect(n).to.be.within(2, 10);
    expect(await search(narrow, ALL_CATS, SEARCH_LIMIT_MAX)).to.have.length(n);
    expect(await search(narrow, ALL_CATS, n - 1)).to.have.length(n - 1);
  });

  it('ranks whole-token matches before prefix-only matches', async () => {
    const v = all.find((x) => tokenize(x.model).length === 1 && tokenize(x.model)[0]!.length >= 5)!;
    const prefix = tokenize(v.model)[0]!.slice(0, 3);
    const got = await search(prefix, ALL_CATS, SEARCH_LIMIT_MAX);
    const whole = (r: SearchResult) => tokenize(`${r.make} ${r.makeSlug} ${r.model} ${r.modelSlug} ${r.variant ?? ''} ${r.variantSlug ?? ''} ${r.year}`).includes(prefix);
    const firstPrefixOnly = got.findIndex((r) => !whole(r));
    if (firstPrefixOnly >= 0) expect(got.slice(firstPrefixOnly).some(whole), `"${prefix}"`).to.equal(false);
  });

  it('plans every query shape as range scans of the search_terms primary key, never a sequential scan of it', async () => {
    for (const q of [...queries(6, 5), 'ka', String(all[0]!.year)]) {
      let sent: { text: string; params: readonly unknown[] } | null = null;
      const spy: Queryable = {
        query: (text, params) => {
          sent = { text, params: params ?? [] };
          return db.query(text, params);
        },
      };
      await search(q, ALL_CATS, 20, spy);
      const s = sent as { text: string; params: readonly unknown[] } | null;
      expect(s, 'searchVehicles sent a query').to.not.equal(null);
      const plan = (await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${s!.text}`, s!.params)).map((r) => r['QUERY PLAN']).join('\n');
      expect(plan, `"${q}"`).to.match(/(Index (Only )?Scan using search_terms_pkey on search_terms|Bitmap Index Scan on search_terms_pkey)\b/);
      expect(plan, `"${q}"`).not.to.match(/Seq Scan on search_terms\b/);
    }
  });

  it('ranks exactly like the reference order, past the limit too: whole-token matches, then make, model, newest year, variant', async () => {
    // Names ranked by the database's own collation, as the search orders them.
    const rankOf = async (sql: string) => new Map((await db.query<{ name: string }>(sql)).map((r, i) => [r.name, i]));
    const makeRank = await rankOf('SELECT DISTINCT name FROM makes ORDER BY name');
    const modelRank = await rankOf('SELECT DISTINCT name FROM models ORDER BY name');
    const variantRank = await rankOf('SELECT DISTINCT variant_name AS name FROM vehicles WHERE variant_name IS NOT NULL ORDER BY 1');
    // A one-character token, or a number shorter than a year, matches whole terms only (docs/api.md).
    const exactOnly = (t: string) => t.length < 2 || (/^\d+$/.test(t) && t.length < 4);
    const reference = (q: string, cats: string[]) => {
      const tokens = [...new Set(tokenize(q))].slice(0, 8);
      const ok = new Set(cats);
      return all
        .filter((v) => v.published && ok.has(v.category) && tokens.every((t) => v.terms.some((term) => (exactOnly(t) ? term === t : term.startsWith(t)))))
        .map((v) => ({ v, whole: tokens.filter((t) => v.terms.includes(t)).length }))
        .sort((a, b) => b.whole - a.whole || makeRank.get(a.v.make)! - makeRank.get(b.v.make)! || modelRank.get(a.v.model)! - modelRank.get(b.v.model)!
          || b.v.year - a.v.year || variantRank.get(a.v.variant)! - variantRank.get(b.v.variant)!)
        .map((x) => x.v.key);
    };
    // Terms that are whole terms and prefixes of others too (x5 and x52): the whole-match count varies.
    const dict = [...new Set(all.flatMap((v) => v.terms))].sort();
    const both = dict.filter((t, i) => t.length >= 2 && !/^\d+$/.test(t) && dict[i + 1]?.startsWith(t)).slice(0, 4);
    expect(both.length, 'the catalog has terms that prefix others').to.be.greaterThan(0);
    const rand = rng(31);
    const some = () => all[Math.floor(rand() * all.length)]!;
    const qs = [
      ...queries(24, 17),
      ...Array.from({ length: 6 }, () => some().model.slice(0, 2)), // short prefixes: many branches, the bounded read
      ...Array.from({ length: 4 }, () => `${some().variant.split(' ').at(-1)} ${some().year}`),
      ...both.flatMap((t) => [t, `${t} ${some().year}`, `${some().year} ${t}`, `${t.slice(0, 2)} ${t}`]),
      // The varying token beside a more selective one, so that it is not the one that drives.
      ...both.flatMap((t) => all.filter((v) => v.terms.some((x) => x.startsWith(t))).slice(0, 3).map((v) => `${v.model} ${t}`)),
      'ka', 'e 2015', String(all[0]!.year),
    ];
    let beyond = 0;
    for (const q of qs) {
      for (const [limit, cats] of [[20, ALL_CATS], [SEARCH_LIMIT_MAX, ALL_CATS], [7, ['suv', 'van']]] as const) {
        const want = reference(q, [...cats]);
        const got = await search(q, [...cats], limit);
        expect(got.map(keyOf), `"${q}" limit ${limit} ${cats.join(',')}`).to.deep.equal(want.slice(0, limit));
        if (want.length > limit) beyond++;
      }
    }
    expect(beyond, 'many answers are cut by the limit').to.be.greaterThan(20);
  });

  it('follows the publish switch at once (the UPDATE the admin API runs)', async () => {
    const v = all.find((x) => x.published && x.category === 'suv')!;
    const [mk, md, year, variant] = v.key.split('/') as [string, string, string, string];
    const id = vehicleId(mk, md, Number(year), variant || null);
    const q = `${v.make} ${v.model} ${v.year} ${v.variant}`;
    expect((await search(q)).map(keyOf)).to.include(v.key);
    await db.query('UPDATE vehicles SET published = $2 WHERE id = $1', [id, false]);
    expect((await search(q)).map(keyOf)).not.to.include(v.key);
    await db.query('UPDATE vehicles SET published = $2 WHERE id = $1', [id, true]);
    expect((await search(q)).map(keyOf)).to.include(v.key);
  });
});

describe(`search postings after a rename and after migration 004 (${backendLabel()})`, function () {
  this.timeout(300_000);
  const assets = createFileAssetSetDirectory('assets');
  const keys = (rs: SearchResult[]) => rs.map(keyOf);
  const ALL = ALL_CATS.map(categoryId);

  it('puts a token matched whole before the same token matched as a prefix also when another token drives the search', async () => {
    const { db, drop } = await freshDatabase();
    try {
      const years = Array.from({ length: 10 }, (_, i) => 2015 + i);
      const model = (name: string) => ({
        slug: name.toLowerCase(),
        name,
        years: years.map((year) => ({
          year,
          variants: ['Base', 'Sport', 'Sportline'].map((v) => ({ slug: v.toLowerCase(), name: v, category: 'suv', asset_set: 'synthetic', published: true, unpublished_views: [] })),
        })),
      });
      const file: CatalogFile = {
        format: 'vehicle-catalog/v1',
        categories: SYNTHETIC_CATEGORIES.map((c) => ({ ...c })),
        makes: [
          { slug: 'zenith', name: 'Zenith', models: [model('Golf'), model('Golfer')] },
          { slug: 'aurora', name: 'Aurora', models: [model('Golfino'), model('Golf')] },
        ],
      };
      await importCatalog(db, assets, file);
      // golf matches golf, golfer and golfino; 2020 is the rarer token and drives "golf 2020".
      const rows = file.makes.flatMap((mk) => mk.models.flatMap((md) => md.years.flatMap((y) => y.variants.map((v) => ({
        key: `${mk.slug}/${md.slug}/${y.year}/${v.slug}`, make: mk.name, model: md.name, year: y.year, variant: v.name! })))));
      const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
      // Whole matches: golf for the model Golf, sport for the variant Sport (Sportline matches it as a prefix).
      const whole = (r: (typeof rows)[number], sport: boolean) => Number(r.model === 'Golf') + Number(sport && r.variant === 'Sport');
      const expected = (year: number | null, sport = false) => rows
        .filter((r) => (year === null || r.year === year) && (!sport || r.variant.startsWith('Sport')))
        .sort((a, b) => whole(b, sport) - whole(a, sport) || cmp(a.make, b.make) || cmp(a.model, b.model) || b.year - a.year || cmp(a.variant, b.variant))
        .map((r) => r.key);
      // Two tokens whose whole-match count varies (golf, sport): every candidate is read and sorted.
      for (const limit of [3, 8, 30]) {
        expect(keys(await searchVehicles(db, 'sport 2020 golf', ALL, limit)), `"sport 2020 golf" limit ${limit}`).to.deep.equal(expected(2020, true).slice(0, limit));
      }
      for (const [q, year] of [['golf 2020', 2020], ['2020 GOLF', 2020], ['golf', null]] as const) {
        for (const limit of [3, 8, 30, SEARCH_LIMIT_MAX]) {
          expect(keys(await searchVehicles(db, q, ALL, limit)), `"${q}" limit ${limit}`).to.deep.equal(expected(year).slice(0, limit));
        }
      }
    } finally {
      await drop();
    }
  });

  it('a make renamed by a later import moves all its vehicles in the order, also those the file does not name; an unchanged file rewrites no posting', async () => {
    const { db, drop } = await freshDatabase();
    try {
      const file = syntheticCatalog({ variants: 600, seed: 5 });
      await importCatalog(db, assets, file);
      // The same file again rewrites no posting (their transaction ids stay as they were).
      const stamps = () => db.query("SELECT xmin::text AS x, count(*)::int AS n FROM search_terms GROUP BY 1 ORDER BY 1");
      const before = await stamps();
      await importCatalog(db, assets, file);
      expect(await stamps()).to.deep.equal(before);
      const mk = file.makes[1]!;
      const renamed = `Aaa ${mk.name}`;
      await importCatalog(db, assets, { ...file, makes: [{ ...mk, name: renamed, models: [mk.models[0]!] }] });
      const names = await db.query<{ make_name: string }>(
        `SELECT DISTINCT st.make_name FROM search_terms st JOIN vehicles v ON v.id = st.vehicle_id JOIN models md ON md.id = v.model_id
          WHERE md.make_id = $1`, [makeId(mk.slug)]);
      expect(names.map((r) => r.make_name)).to.deep.equal([renamed]);
      // The second model was not in the second file; its vehicles now sort under the new name.
      const got = await searchVehicles(db, mk.models[1]!.name, ALL, SEARCH_LIMIT_MAX);
      expect(got.filter((r) => r.makeSlug === mk.slug).length).to.be.greaterThan(0);
      for (const r of got.filter((x) => x.makeSlug === mk.slug)) expect(r.make).to.equal(renamed);
    } finally {
      await drop();
    }
  });

  it('migration 004 turns postings of the previous schema into the ranked ones a fresh import writes', async () => {
    const fresh = await freshDatabase();
    const old = await freshDatabase(3);
    try {
      const file = syntheticCatalog({ variants: 1500, seed: 9 });
      await importCatalog(fresh.db, assets, file);
      // The previous schema's rows, as its import wrote them: one posting per term and field.
      const copy = async (sql: string, insert: string) => {
        const rows = await fresh.db.query<Record<string, unknown>>(sql);
        const cols = Object.keys(rows[0]!).map((k) => rows.map((r) => r[k]));
        await old.db.query(insert, cols);
      };
      await copy('SELECT id, slug, name FROM categories', 'INSERT INTO categories SELECT * FROM unnest($1::text[], $2::text[], $3::text[])');
      await copy('SELECT id, slug, name FROM makes', 'INSERT INTO makes SELECT * FROM unnest($1::text[], $2::text[], $3::text[])');
      await copy('SELECT id, make_id, slug, name FROM models', 'INSERT INTO models SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])');
      await copy(`SELECT id, model_id, year, variant_slug, variant_name, category_id, asset_set, published, array_to_string(terms, ' ') AS terms FROM vehicles`,
        `INSERT INTO vehicles (id, model_id, year, variant_slug, variant_name, category_id, asset_set, published, terms)
         SELECT a, b, c, d, e, f, g, h, string_to_array(i, ' ') FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bool[], $9::text[]) AS t(a, b, c, d, e, f, g, h, i)`);
      await copy(`SELECT term, vehicle_id, 1 AS field FROM search_terms UNION ALL SELECT term, vehicle_id, 3 FROM search_terms WHERE term LIKE 'e%'`,
        'INSERT INTO search_terms (term, vehicle_id, field) SELECT * FROM unnest($1::text[], $2::text[], $3::smallint[])');
      await old.db.query('INSERT INTO search_dict (term, n) SELECT term, count(DISTINCT vehicle_id)::int FROM search_terms GROUP BY term');

      expect(await migrate(old.db)).to.include('004_ranked_postings.sql');
      const postings = `SELECT term, vehicle_id, make_name, model_name, neg_year, variant_key, category_id, published, array_to_string(terms, ' ') AS terms
                          FROM search_terms ORDER BY term, vehicle_id`;
      expect(await old.db.query(postings)).to.deep.equal(await fresh.db.query(postings));
      const rand = rng(4);
      const vs = [...syntheticVariants(file)];
      for (let i = 0; i < 12; i++) {
        const v = vs[Math.floor(rand() * vs.length)]!;
        for (const q of [v.model.name, v.make.name.slice(0, 2), `${v.variant.name} ${v.year}`]) {
          expect(keys(await searchVehicles(old.db, q, ALL, 20)), q).to.deep.equal(keys(await searchVehicles(fresh.db, q, ALL, 20)));
        }
      }
    } finally {
      await fresh.drop();
      await old.drop();
    }
  });
});
