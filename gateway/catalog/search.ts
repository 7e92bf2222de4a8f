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

/**
 * Every query token must match (as a prefix, case- and accent-insensitively) a make, model, variant
 * or year token of the vehicle. Tokens are first expanded to whole terms in `search_dict`; the token
 * that matches the fewest vehicles drives the search (its postings are the candidates), and the
 * others are checked inside each candidate's row (`vehicles.terms`). Rank: more whole-word matches first, then make,
 * model, newest year.
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
  const perToken = tokens.map((_, i) => expanded.filter((e) => e.i === i + 1));
  if (perToken.some((terms) => terms.length === 0)) return [];
  const weight = (terms: typeof expanded) => terms.reduce((s, e) => s + e.n, 0);
  const driver = perToken.reduce((best, cur) => (weight(cur) < weight(best) ? cur : best));
  const others = perToken.filter((t) => t !== driver);

  // One array parameter per other token: the row must share at least one term with each.
  const params: unknown[] = [driver.map((e) => e.term), categoryIds, tokens, limit];
  const otherChecks = others.map((terms) => {
    params.push(terms.map((e) => e.term));
    return `AND v.terms && $${params.length}::text[]`;
  });
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
    `WITH cand AS MATERIALIZED (
       SELECT DISTINCT st.vehicle_id FROM search_terms st WHERE st.term = ANY($1::text[])),
     ok AS MATERIALIZED (
       SELECT v.model_id, v.year, v.variant_name, v.variant_slug, v.category_id,
              (SELECT count(*) FROM unnest($3::text[]) AS t(x) WHERE t.x = ANY(v.terms)) AS exact
         FROM cand c JOIN vehicles v ON v.id = c.vehicle_id
        WHERE v.published AND v.category_id = ANY($2::text[]) ${otherChecks.join(' ')})
     SELECT mk.name AS make, mk.slug AS make_slug, md.name AS model, md.slug AS model_slug,
            x.year, x.variant_name AS variant, x.variant_slug, c.name AS category
       FROM ok x
       JOIN models md ON md.id = x.model_id
       JOIN makes mk ON mk.id = md.make_id
       JOIN categories c ON c.id = x.category_id
      ORDER BY x.exact DESC, mk.name, md.name, x.year DESC, x.variant_name NULLS FIRST
      LIMIT $4`,
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
