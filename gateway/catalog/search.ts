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

/** Above this many rows (branches × limit), the first passing row of each branch is read first to bound the rest. */
const DIRECT_ROWS = 200;

/** The result order, as columns of search_terms (migration 004) and of rows selected from it. */
const ORDER_COLS = ['make_name', 'model_name', 'neg_year', 'variant_key', 'vehicle_id'] as const;
const orderBy = (alias: string) => ORDER_COLS.map((c) => `${alias}.${c}`).join(', ');

interface Head {
  term: string;
  label: number;
  vehicle_id: string;
  make_name: string;
  model_name: string;
  neg_year: number;
  variant_key: string;
}

/**
 * Every query token must match (as a prefix, case- and accent-insensitively) a make, model, variant
 * or year token of the vehicle. Rank: more whole-word matches first, then make, model, newest year,
 * variant (no variant first).
 *
 * Tokens are first expanded to whole terms in `search_dict`; the token that matches the fewest
 * vehicles drives the search. Each of its terms is a branch: the term's postings (search_terms),
 * which its primary key keeps in result order, filtered as they are read (published, category, the
 * other tokens checked inside the vehicle's row) and cut at `limit`. Whether the driving token
 * matched whole is fixed per branch, and the other tokens add the same whole-match count to every
 * row (a token whose terms are only itself always matches whole, one absent from the dictionary
 * never does), so the first `limit` rows of each branch hold the answer. With many branches (a short
 * prefix) the first passing row of each is read first: the `limit`-th best of those heads bounds how
 * far any branch is read, and branches with no passing row are dropped. Only when another token
 * matches both whole and as a prefix (its whole-match count then varies by vehicle) is every branch
 * read in full and sorted.
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
  const driverTerms = perToken[d]!.map((e) => e.term);
  const others = perToken.map((terms, i) => ({ token: tokens[i]!, terms: terms.map((e) => e.term) })).filter((_, i) => i !== d);
  const mixed = others.some((o) => o.terms.length > 1 && o.terms.includes(o.token));

  const params: unknown[] = [];
  const p = (value: unknown, cast: string) => {
    params.push(value);
    return `$${params.length}::${cast}`;
  };
  // What a branch row must pass, and its whole-match count.
  const filters = [`st.published`, `st.category_id = ANY(${p(categoryIds, 'text[]')})`, ...others.map((o) => `st.terms && ${p(o.terms, 'text[]')}`)];
  const count = mixed ? `(SELECT count(*)::int FROM unnest(${p(tokens, 'text[]')}) AS t(x) WHERE t.x = ANY(st.terms))` : '';
  const shared = params.length; // the parameters every statement below uses; the branches' own come after
  const cols = `st.vehicle_id, ${ORDER_COLS.slice(0, 4).map((c) => `st.${c}`).join(', ')}`;
  // One branch, its term a parameter of its own: planned with that term's statistics, the ordered
  // index scan wins whenever the branch is long (a shared plan over unnest() would sort it whole).
  const branch = (term: string, extra: string, cut: string) =>
    `(SELECT ${cols}, ${mixed ? count : String(term === tokens[d] ? 1 : 0)} AS label
        FROM search_terms st
       WHERE st.term = ${p(term, 'text')} AND ${filters.join(' AND ')}${extra}
       ORDER BY ${orderBy('st')} ${cut})`;
  // Many branches at once, each cut short by `cut` or by `extra` (an index bound).
  const lateral = (terms: string[], extra: string, cut: string, withTerm = false) =>
    `SELECT ${withTerm ? 'b.term, ' : ''}x.* FROM unnest(${p(terms, 'text[]')}, ${p(terms.map((t) => (t === tokens[d] ? 1 : 0)), 'int[]')}) AS b(term, label)
       CROSS JOIN LATERAL (SELECT ${cols}, ${mixed ? count : 'b.label'} AS label
         FROM search_terms st
        WHERE st.term = b.term AND ${filters.join(' AND ')}${extra}
        ORDER BY ${orderBy('st')} ${cut}) x`;

  let parts: string[];
  let lim: string;
  if (mixed) {
    lim = p(limit, 'int');
    parts = [lateral(driverTerms, '', '')];
  } else if (driverTerms.length * limit <= DIRECT_ROWS) {
    lim = p(limit, 'int');
    parts = driverTerms.map((t) => branch(t, '', `LIMIT ${lim}`));
  } else {
    const heads = await db.query<Head>(`${lateral(driverTerms, '', 'LIMIT 1', true)} ORDER BY x.label DESC, ${orderBy('x')}`, [...params]);
    params.length = shared;
    lim = p(limit, 'int');
    // The limit-th distinct vehicle among the heads: nothing worse than it can make the answer.
    const seen = new Set<string>();
    let last = heads.length - 1;
    for (let i = 0; i < heads.length; i++) {
      seen.add(heads[i]!.vehicle_id);
      if (seen.size === limit) {
        last = i;
        break;
      }
    }
    const bound = seen.size === limit ? heads[last]! : null;
    const used = heads.slice(0, last + 1);
    parts = used.filter((h) => !bound || h.label > bound.label).map((h) => branch(h.term, '', `LIMIT ${lim}`));
    const capped = used.filter((h) => bound && h.label === bound.label).map((h) => h.term);
    if (bound && capped.length > 0) {
      const row = `(${p(bound.make_name, 'text')}, ${p(bound.model_name, 'text')}, ${p(bound.neg_year, 'int')}, ${p(bound.variant_key, 'text')}, ${p(bound.vehicle_id, 'text')})`;
      parts.push(lateral(capped, ` AND (${orderBy('st')}) <= ${row}`, `LIMIT ${lim}`));
    }
    if (parts.length === 0) return [];
  }

  const rows = await db.query<{
    make: string;
    make_slug: string;
    model: string;
    model_slug: string;
    year: number;
    variant: string | null;
    variant_slug: string | null;
    category: string;
  }>(
    `WITH hit AS (${parts.join(' UNION ALL ')}),
     best AS (
       SELECT h.vehicle_id, max(h.label) AS exact, h.make_name, h.model_name, h.neg_year, h.variant_key
         FROM hit h GROUP BY ${orderBy('h')}
        ORDER BY exact DESC, ${orderBy('h')} LIMIT ${lim})
     SELECT mk.name AS make, mk.slug AS make_slug, md.name AS model, md.slug AS model_slug,
            v.year, v.variant_name AS variant, v.variant_slug, c.name AS category
       FROM best x
       JOIN vehicles v ON v.id = x.vehicle_id
       JOIN models md ON md.id = v.model_id
       JOIN makes mk ON mk.id = md.make_id
       JOIN categories c ON c.id = v.category_id
      ORDER BY x.exact DESC, ${orderBy('x')}`,
    params,
  );
  return rows.map((r) => ({
    make: r.make,
    makeSlug: r.make_slug,
    model: r.model,
    modelSlug: r.model_slug,
    year: r.year,
    variant: r.variant,
    variantSlug: r.variant_slug,
    category: r.category,
  }));
}
