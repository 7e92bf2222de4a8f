/**
 * Search correctness at scale: a 20,000-variant synthetic catalog in in-memory PGlite, checked
 * against a brute-force matcher written here (every query token is a prefix of a make, model,
 * variant or year token; accents and case folded), and the plan uses the search_terms index.
 * No timing assertions (docs/performance-gateway.md has the figures).
 */
import { expect } from 'chai';
import { createFileAssetSetDirectory } from '../../gateway/catalog/asset-sets.ts';
import type { CatalogFile } from '../../gateway/catalog/catalog-file.ts';
import { categoryId } from '../../gateway/catalog/ids.ts';
import { importCatalog } from '../../gateway/catalog/import.ts';
import { searchVehicles, SEARCH_LIMIT_MAX, type SearchResult } from '../../gateway/catalog/search.ts';
import { tokenize } from '../../gateway/catalog/search-terms.ts';
import type { Database, Queryable } from '../../gateway/db/database.ts';
import { openDatabase } from '../../gateway/db/open.ts';
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

/** The expected matches, by brute force over the catalog file. */
function bruteForce(all: Flat[], q: string, categories: string[]): Flat[] {
  const tokens = [...new Set(tokenize(q))].slice(0, 8);
  if (tokens.length === 0) return [];
  const cats = new Set(categories);
  return all.filter((v) => v.published && cats.has(v.category) && tokens.every((t) => v.terms.some((term) => term.startsWith(t))));
}

describe('search at scale (20,000 variants, embedded PGlite)', function () {
  this.timeout(120_000);
  let db: Database;
  let catalog: CatalogFile;
  let all: Flat[];
  const search = (q: string, cats: string[] = ALL_CATS, limit = SEARCH_LIMIT_MAX, on: Queryable = db) =>
    searchVehicles(on, q, cats.map(categoryId), limit);

  before(async function () {
    db = await openDatabase({ databaseUrl: null, dataDir: null });
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
    await db?.close();
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
});
