import type { Queryable } from '../db/database.ts';
import { prefixUpperBound, tokenize } from './search-terms.ts';

export interface SearchResult {
  make: string;
  makeSlug: string;
  model: string;
  modelSlug: string;
  year: number;
  variant: string | null;
  variantSlug: string | null;
  category: string;
}

export const SEARCH_LIMIT_DEFAULT = 20;
export const SEARCH_LIMIT_MAX = 100;
const MAX_TOKENS = 8;

/** One-character tokens and numbers shorter than a year match whole terms only: as prefixes they match most of the catalog. */
function exactOnly(t: string): boolean {
  return t.length < 2 || (/^\d+$/.test(t) && t.length < 4);
}

/** Above this many rows (branches × rows wanted), the first passing row of each branch is read first to bound the rest. */
const DIRECT_ROWS = 200;

/** The result order, as columns of search_terms (migration 004) and of rows selected from it. */
const ORDER_COLS = ['make_name', 'model_name', 'neg_year', 'variant_key', 'vehicle_id'] as const;
const orderBy = (alias: string) => ORDER_COLS.map((c) => `${alias}.${c}`).join(', ');

interface Head {
  term: string;
  vehicle_id: string;
  make_name: string;
  model_name: string;
  neg_year: number;
  variant_key: string;
}

interface Row {
  vehicle_id: string;
  make: string;
  make_slug: string;
  model: string;
  model_slug: string;
  year: number;
  variant: string | null;
  variant_slug: string | null;
  category: string;
}

/**
 * Every query token must match (as a prefix, case- and accent-insensitively) a make, model, variant
 * or year token of the vehicle. Rank: more whole-word matches first, then make, model, newest year,
 * variant (no variant first).
 *
 * Tokens are first expanded to whole terms in `search_dict`; the token that matches the fewest
 * vehicles drives the search. Each of its terms is a branch: the term's postings (search_terms),
 * which their primary key keeps in result order, filtered as they are read (published, category,
 * the other tokens checked against the vehicle's terms copied in the posting) and cut at the number
 * of rows still wanted. A branch has one whole-match count: the driving token matched whole or not
 * is fixed per term; another token whose terms are only itself always matches whole, one absent
 * from the dictionary never does; a token that is a whole term and a prefix of others too (x5, x52)
 * splits each branch in two (its whole term present, or only its longer ones). Counts are read from
 * the highest down, and a lower count is read only while fewer than `limit` vehicles were found.
 * With many branches (a short prefix) the first passing row of each is read first: the limit-th
 * best of those heads bounds how far any branch is read, and branches with no passing row drop out.
 * With two or more such varying tokens every branch is read whole and sorted (docs/performance-gateway.md, Search).
 */
export async function searchVehicles(
  db: Queryable,
  q: string,
  categoryIds: string[],
  limit: number,
): Promise<SearchResult[]> {
  const tokens = [...new Set(tokenize(q))].slice(0, MAX_TOKENS);
  if (tokens.length === 0 || categoryIds.length === 0) return [];
  const expanded = await db.query<{ i: number; term: string; n: number }>(
    `SELECT q.i::int AS i, d.term, d.n
       FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS q(lo, hi, i)
       JOIN search_dict d ON d.term >= q.lo COLLATE "C" AND d.term < q.hi COLLATE "C"`,
    [tokens, tokens.map((t) => (exactOnly(t) ? `${t}\u0001` : prefixUpperBound(t)))],
  );
  const perToken = tokens.map((_, i) => expanded.filter((e) => e.i === i + 1).map((e) => ({ term: e.term, n: e.n })));
  if (perToken.some((terms) => terms.length === 0)) return [];
  const weight = (terms: { n: number }[]) => terms.reduce((s, e) => s + e.n, 0);
  let d = 0;
  for (let i = 1; i < perToken.length; i++) if (weight(perToken[i]!) < weight(perToken[d]!)) d = i;
  const driver = tokens[d]!;
  const driverTerms = perToken[d]!.map((e) => e.term);
  const others = perToken.map((terms, i) => ({ token: tokens[i]!, terms: terms.map((e) => e.term) })).filter((_, i) => i !== d);
  const varying = others.filter((o) => o.terms.length > 1 && o.terms.includes(o.token));

  const params: unknown[] = [];
  const p = (value: unknown, cast: string) => {
    params.push(value);
    return `$${params.length}::${cast}`;
  };
  const base = [`st.published`, `st.category_id = ANY(${p(categoryIds, 'text[]')})`,
    ...others.filter((o) => !varying.includes(o)).map((o) => `st.terms && ${p(o.terms, 'text[]')}`)].join(' AND ');
  const shared = params.length; // bound once, used by every statement below; the rest is bound per statement

  if (varying.length > 1) {
    // Fallback: the whole-match count is computed per row and every candidate sorted.
    const lim = p(limit, 'int');
    const rows = await db.query<Row>(
      finalSql(`SELECT ${KEY_COLS}, (SELECT count(*)::int FROM unnest(${p(tokens, 'text[]')}) AS t(x) WHERE t.x = ANY(st.terms)) AS label
                  FROM search_terms st
                 WHERE st.term = ANY(${p(driverTerms, 'text[]')}) AND ${base}
                   AND ${varying.map((o) => `st.terms && ${p(o.terms, 'text[]')}`).join(' AND ')}`, lim, true),
      params,
    );
    return rows.map(toResult);
  }

  // The branches, grouped by whole-match count and filter.
  const v = varying[0];
  const patterns: Array<{ where: () => string; label: number }> = !v
    ? [{ where: () => base, label: 0 }]
    : [{ where: () => `${base} AND st.terms && ${p([v.token], 'text[]')}`, label: 1 },
      { where: () => `${base} AND NOT st.terms && ${p([v.token], 'text[]')} AND st.terms && ${p(v.terms.filter((t) => t !== v.token), 'text[]')}`, label: 0 }];
  const groups: Array<{ terms: string[]; where: () => string; label: number }> = [];
  for (const pat of patterns) {
    for (const whole of [1, 0]) {
      const terms = driverTerms.filter((t) => (t === driver ? 1 : 0) === whole);
      if (terms.length > 0) groups.push({ terms, where: pat.where, label: pat.label + whole });
    }
  }

  const out: Row[] = [];
  for (const label of [...new Set(groups.map((g) => g.label))].sort((a, b) => b - a)) {
    const level = groups.filter((g) => g.label === label);
    const want = limit - out.length;
    const seen = out.map((r) => r.vehicle_id);
    const cond = (g: (typeof groups)[number]) => `${g.where()}${seen.length > 0 ? ` AND st.vehicle_id <> ALL(${p(seen, 'text[]')})` : ''}`;
    params.length = shared;
    let parts: string[];
    let cut: string;
    if (level.reduce((n, g) => n + g.terms.length, 0) * want <= DIRECT_ROWS) {
      cut = p(want, 'int');
      parts = level.flatMap((g) => {
        const where = cond(g);
        return g.terms.map((t) => branch(p(t, 'text'), where, cut));
      });
    } else {
      const heads = await db.query<Head>(
        `${level.map((g) => lateral(p(g.terms, 'text[]'), cond(g), 'LIMIT 1')).join(' UNION ALL ')} ORDER BY ${ORDER_COLS.join(', ')}`,
        [...params],
      );
      params.length = shared;
      cut = p(want, 'int');
      // The want-th distinct vehicle among the heads: nothing after it can be in the answer.
      const distinct = new Set<string>();
      let last = -1;
      for (let i = 0; i < heads.length && distinct.size < want; i++) {
        distinct.add(heads[i]!.vehicle_id);
        last = i;
      }
      const used = new Set(heads.slice(0, last + 1).map((h) => h.term));
      const live = level.map((g) => ({ g, terms: g.terms.filter((t) => used.has(t)) })).filter((x) => x.terms.length > 0);
      if (live.length === 0) continue;
      if (distinct.size === want) {
        const b = heads[last]!;
        const row = `(${p(b.make_name, 'text')}, ${p(b.model_name, 'text')}, ${p(b.neg_year, 'int')}, ${p(b.variant_key, 'text')}, ${p(b.vehicle_id, 'text')})`;
        parts = live.map((x) => lateral(p(x.terms, 'text[]'), `${cond(x.g)} AND (${orderBy('st')}) <= ${row}`, `LIMIT ${cut}`));
      } else {
        // Fewer passing vehicles than wanted: each branch that has one is read on its own plan.
        parts = live.flatMap((x) => {
          const where = cond(x.g);
          return x.terms.map((t) => branch(p(t, 'text'), where, cut));
        });
      }
    }
    const rows = await db.query<Row>(finalSql(parts.join(' UNION ALL '), cut, false), params);
    out.push(...rows);
    if (out.length >= limit) break;
  }
  return out.map(toResult);
}

const KEY_COLS = `st.vehicle_id, ${ORDER_COLS.slice(0, 4).map((c) => `st.${c}`).join(', ')}`;

/** One branch, its term a parameter of its own: planned with that term's statistics, the ordered index scan wins whenever the branch is long. */
function branch(term: string, where: string, cut: string): string {
  return `(SELECT ${KEY_COLS} FROM search_terms st WHERE st.term = ${term} AND ${where} ORDER BY ${orderBy('st')} LIMIT ${cut})`;
}

/** Many branches in one statement, each cut short by `cut` or by an index bound in `where`. */
function lateral(terms: string, where: string, cut: string): string {
  return `SELECT b.term, x.* FROM unnest(${terms}) AS b(term)
    CROSS JOIN LATERAL (SELECT ${KEY_COLS} FROM search_terms st WHERE st.term = b.term AND ${where} ORDER BY ${orderBy('st')} ${cut}) x`;
}

/** The best `lim` distinct vehicles of `hits` (rows of KEY_COLS, and `label` when `labelled`), in result order, with what a result shows. */
function finalSql(hits: string, lim: string, labelled: boolean): string {
  const label = labelled ? 'max(h.label)' : '0';
  return `WITH best AS (
       SELECT h.vehicle_id, ${label} AS exact, h.make_name, h.model_name, h.neg_year, h.variant_key
         FROM (${hits}) h GROUP BY ${orderBy('h')}
        ORDER BY exact DESC, ${orderBy('h')} LIMIT ${lim})
     SELECT x.vehicle_id, mk.name AS make, mk.slug AS make_slug, md.name AS model, md.slug AS model_slug,
            v.year, v.variant_name AS variant, v.variant_slug, c.name AS category
       FROM best x
       JOIN vehicles v ON v.id = x.vehicle_id
       JOIN models md ON md.id = v.model_id
       JOIN makes mk ON mk.id = md.make_id
       JOIN categories c ON c.id = v.category_id
      ORDER BY x.exact DESC, ${orderBy('x')}`;
}

function toResult(r: Row): SearchResult {
  return {
    make: r.make,
    makeSlug: r.make_slug,
    model: r.model,
    modelSlug: r.model_slug,
    year: r.year,
    variant: r.variant,
    variantSlug: r.variant_slug,
    category: r.category,
  };
}
