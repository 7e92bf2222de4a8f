import type { Queryable } from '../db/database.ts';

/** Lower-case, accents and ligatures folded, split into alphanumeric tokens. */
export function normaliseText(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .replace(/æ/g, 'ae')
    .replace(/œ/g, 'oe')
    .replace(/ø/g, 'o')
    .replace(/ł/g, 'l')
    .replace(/đ/g, 'd');
}

export function tokenize(s: string): string[] {
  return normaliseText(s)
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t.length > 0);
}

/** The distinct search terms of one vehicle: the tokens of its make, model and variant (names and slugs) and its year. */
export function vehicleTerms(v: {
  makeName: string;
  makeSlug: string;
  modelName: string;
  modelSlug: string;
  variantName: string | null;
  variantSlug: string | null;
  year: number;
}): string[] {
  const out = new Set<string>();
  for (const text of [v.makeName, v.makeSlug, v.modelName, v.modelSlug, v.variantName, v.variantSlug, String(v.year)]) {
    if (text) for (const t of tokenize(text)) out.add(t);
  }
  return [...out];
}

/**
 * A search_terms row (migration 004) is one term of one vehicle with copies of what a search reads
 * while scanning: the result order (make name, model name, newest year first, no variant first),
 * the filters (published, category) and the vehicle's terms (for the other query tokens).
 * importCatalog and the search benchmark's bulk loader both write postings here, so they cannot disagree.
 */
const POSTING_COLUMNS = 'vehicle_id, make_name, model_name, neg_year, variant_key, category_id, published, terms';
const POSTING_VALUES = "v.id, mk.name, md.name, -v.year, coalesce(v.variant_name, ''), v.category_id, v.published, v.terms";

/** Writes the postings of the vehicles that `where` selects (alias v) from their `terms`; `params` go with `where`. */
export async function insertPostings(db: Queryable, where: string, params: readonly unknown[] = []): Promise<void> {
  await db.query(
    `INSERT INTO search_terms (term, ${POSTING_COLUMNS})
     SELECT t.term, ${POSTING_VALUES}
       FROM vehicles v JOIN models md ON md.id = v.model_id JOIN makes mk ON mk.id = md.make_id
      CROSS JOIN LATERAL unnest(v.terms) AS t(term)
      WHERE ${where}`,
    params,
  );
}

/** The exclusive upper bound of the prefix range of `t` in byte order. */
export function prefixUpperBound(t: string): string {
  const last = t.codePointAt(t.length - 1)!;
  return t.slice(0, t.length - 1) + String.fromCodePoint(last + 1);
}
