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

export const FIELD = { make: 1, model: 2, variant: 3, year: 4 } as const;

/** The rows of search_terms for one vehicle. */
export function vehicleTerms(v: {
  makeName: string;
  makeSlug: string;
  modelName: string;
  modelSlug: string;
  variantName: string | null;
  variantSlug: string | null;
  year: number;
}): Array<{ term: string; field: number }> {
  const out = new Map<string, { term: string; field: number }>();
  const add = (text: string | null, field: number) => {
    if (!text) return;
    for (const t of tokenize(text)) out.set(`${t}|${field}`, { term: t, field });
  };
  add(v.makeName, FIELD.make);
  add(v.makeSlug, FIELD.make);
  add(v.modelName, FIELD.model);
  add(v.modelSlug, FIELD.model);
  add(v.variantName, FIELD.variant);
  add(v.variantSlug, FIELD.variant);
  add(String(v.year), FIELD.year);
  return [...out.values()];
}

/** The exclusive upper bound of the prefix range of `t` in byte order. */
export function prefixUpperBound(t: string): string {
  const last = t.codePointAt(t.length - 1)!;
  return t.slice(0, t.length - 1) + String.fromCodePoint(last + 1);
}
