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

/**
 * Every query token must be a prefix of a make, model, variant or year token of the vehicle
 * (case- and accent-insensitive). Rank: whole-token matches over prefix matches, then make, model,
 * newest year. Each token is a range scan on search_terms' primary key; no table scan.
 */
export async function searchVehicles(
  db: Queryable,
  q: string,
  categoryIds: string[],
  limit: number,
): Promise<SearchResult[]> {
  const tokens = [...new Set(tokenize(q))].slice(0, MAX_TOKENS);
  if (tokens.length === 0 || categoryIds.length === 0) return [];
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
    `WITH q AS (
       SELECT lo COLLATE "C" AS lo, hi COLLATE "C" AS hi, i
         FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS t(lo, hi, i)),
     m AS (
       SELECT st.vehicle_id, q.i, max(CASE WHEN st.term = q.lo THEN 2 ELSE 1 END) AS s
         FROM q JOIN search_terms st ON st.term >= q.lo AND st.term < q.hi
        GROUP BY st.vehicle_id, q.i),
     hits AS (
       SELECT vehicle_id, sum(s)::int AS score FROM m GROUP BY vehicle_id HAVING count(*) = $3)
     SELECT mk.name AS make, mk.slug AS make_slug, md.name AS model, md.slug AS model_slug,
            v.year, v.variant_name AS variant, v.variant_slug, c.name AS category
       FROM hits h
       JOIN vehicles v ON v.id = h.vehicle_id
       JOIN models md ON md.id = v.model_id
       JOIN makes mk ON mk.id = md.make_id
       JOIN categories c ON c.id = v.category_id
      WHERE v.published AND v.category_id = ANY($4::text[])
      ORDER BY h.score DESC, mk.name, md.name, v.year DESC, v.variant_name NULLS FIRST
      LIMIT $5`,
    [tokens, tokens.map(prefixUpperBound), tokens.length, categoryIds, limit],
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
