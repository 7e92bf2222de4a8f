import { parse as parseCsv } from 'csv-parse/sync';
import { z } from 'zod';
import { displayName } from '../display-name.ts';
import { VIEW_IDS, isViewId } from '../../shared/views.ts';
import { SET_ID_RE, SET_ID_RULE } from '../../shared/asset-format/set-id.ts';

/** The catalog exchange format (`vehicle-catalog/v1`); docs/catalog.md describes it. */
const slug = z.string().regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be a lower-case slug (a-z, 0-9, hyphens)').max(64);
const name = displayName(120);

const variantSchema = z
  .object({
    slug: slug.nullable(),
    name: name.nullable(),
    category: slug,
    // the renderer's rule: a row naming a set it would refuse is refused here, with the row
    asset_set: z.string().regex(SET_ID_RE, `must be a set id the renderer serves (${SET_ID_RULE})`),
    published: z.boolean().default(true),
    unpublished_views: z.array(z.string()).default([]),
  })
  .strict()
  .superRefine((v, ctx) => {
    if ((v.slug === null) !== (v.name === null)) {
      ctx.addIssue({ code: 'custom', message: 'slug and name are both null or both set', path: ['slug'] });
    }
    if (v.slug !== null && isViewId(v.slug)) {
      ctx.addIssue({ code: 'custom', message: `"${v.slug}" is a view id and cannot be a variant slug`, path: ['slug'] });
    }
    v.unpublished_views.forEach((view, i) => {
      if (!isViewId(view)) {
        ctx.addIssue({ code: 'custom', message: `unknown view "${view}" (one of ${VIEW_IDS.join(', ')})`, path: ['unpublished_views', i] });
      }
    });
  });

const yearSchema = z
  .object({ year: z.number().int().min(1886).max(2100), variants: z.array(variantSchema).min(1) })
  .strict()
  .superRefine((y, ctx) => {
    if (y.variants.length > 1) {
      y.variants.forEach((v, i) => {
        if (v.slug === null) ctx.addIssue({ code: 'custom', message: 'a year with several variants needs a slug on each', path: ['variants', i, 'slug'] });
      });
    }
    const seen = new Set<string>();
    y.variants.forEach((v, i) => {
      const k = v.slug ?? '';
      if (seen.has(k)) ctx.addIssue({ code: 'custom', message: `duplicate variant "${k}"`, path: ['variants', i, 'slug'] });
      seen.add(k);
    });
  });

const modelSchema = z.object({ slug, name, years: z.array(yearSchema).min(1) }).strict();
const makeSchema = z.object({ slug, name, models: z.array(modelSchema).min(1) }).strict();

export const catalogSchema = z
  .object({
    format: z.literal('vehicle-catalog/v1'),
    categories: z.array(z.object({ slug, name }).strict()),
    makes: z.array(makeSchema),
  })
  .strict()
  .superRefine((c, ctx) => {
    const cats = new Set(c.categories.map((x) => x.slug));
    const dup = (list: string[], path: (i: number) => (string | number)[], what: string) => {
      const seen = new Set<string>();
      list.forEach((s, i) => {
        if (seen.has(s)) ctx.addIssue({ code: 'custom', message: `duplicate ${what} "${s}"`, path: path(i) });
        seen.add(s);
      });
    };
    dup(c.categories.map((x) => x.slug), (i) => ['categories', i, 'slug'], 'category');
    dup(c.makes.map((m) => m.slug), (i) => ['makes', i, 'slug'], 'make');
    c.makes.forEach((mk, a) => {
      dup(mk.models.map((m) => m.slug), (i) => ['makes', a, 'models', i, 'slug'], 'model');
      mk.models.forEach((md, b) => {
        dup(md.years.map((y) => String(y.year)), (i) => ['makes', a, 'models', b, 'years', i, 'year'], 'year');
        md.years.forEach((y, d) =>
          y.variants.forEach((v, e) => {
            if (!cats.has(v.category)) {
              ctx.addIssue({ code: 'custom', message: `unknown category "${v.category}"`, path: ['makes', a, 'models', b, 'years', d, 'variants', e, 'category'] });
            }
          }),
        );
      });
    });
  });

export type CatalogFile = z.infer<typeof catalogSchema>;

export class CatalogFileError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid catalog:\n  ${problems.slice(0, 50).join('\n  ')}${problems.length > 50 ? `\n  … ${problems.length - 50} more` : ''}`);
    this.name = 'CatalogFileError';
  }
}

function formatPath(path: PropertyKey[]): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`)).join('').replace(/^\./, '');
}

export function validateCatalog(data: unknown): CatalogFile {
  const r = catalogSchema.safeParse(data);
  if (!r.success) throw new CatalogFileError(r.error.issues.map((i) => `${formatPath(i.path) || '(root)'}: ${i.message}`));
  return r.data;
}

export function parseCatalogJson(text: string): CatalogFile {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new CatalogFileError([`not valid JSON: ${(err as Error).message}`]);
  }
  return validateCatalog(data);
}

export const CSV_COLUMNS = [
  'make_slug', 'make_name', 'model_slug', 'model_name', 'year', 'variant_slug', 'variant_name',
  'category_slug', 'category_name', 'asset_set', 'published', 'unpublished_views',
] as const;

/**
 * The flat vehicle list: one row per variant, columns CSV_COLUMNS; `unpublished_views` separated
 * by spaces or '|'. Errors name the line and column.
 */
export function parseCatalogCsv(text: string): CatalogFile {
  let records: Record<string, string>[];
  // the header as read, also when no row follows it: a file of only a wrong header is an error, not an empty catalog
  let header: string[] | null = null;
  try {
    records = parseCsv(text, {
      columns: (h: string[]) => (header = h),
      skip_empty_lines: true,
      trim: true,
      bom: true,
    });
  } catch (err) {
    throw new CatalogFileError([`not valid CSV: ${(err as Error).message}`]);
  }
  const problems: string[] = [];
  const found: string[] = header ?? [];
  if (header === null) problems.push(`line 1: no header line (columns ${CSV_COLUMNS.join(', ')})`);
  else for (const col of CSV_COLUMNS) if (!found.includes(col)) problems.push(`line 1: missing column ${col}`);
  if (problems.length) throw new CatalogFileError(problems);

  const categories = new Map<string, string>();
  const makes = new Map<string, { slug: string; name: string; models: Map<string, { slug: string; name: string; years: Map<number, unknown[]> }> }>();
  records.forEach((r, i) => {
    const line = i + 2;
    const year = Number(r.year);
    if (!Number.isInteger(year)) problems.push(`line ${line}, column year: "${r.year}" is not a year`);
    const published = (r.published ?? '').toLowerCase();
    if (!['true', 'false', '1', '0', ''].includes(published)) problems.push(`line ${line}, column published: use true or false`);
    categories.set(r.category_slug!, r.category_name || r.category_slug!);
    let mk = makes.get(r.make_slug!);
    if (!mk) makes.set(r.make_slug!, (mk = { slug: r.make_slug!, name: r.make_name!, models: new Map() }));
    let md = mk.models.get(r.model_slug!);
    if (!md) mk.models.set(r.model_slug!, (md = { slug: r.model_slug!, name: r.model_name!, years: new Map() }));
    const variants = md.years.get(year) ?? [];
    md.years.set(year, variants);
    variants.push({
      slug: r.variant_slug || null,
      name: r.variant_name || null,
      category: r.category_slug,
      asset_set: r.asset_set,
      published: published === '' ? true : published === 'true' || published === '1',
      unpublished_views: (r.unpublished_views ?? '').split(/[\s|]+/).filter(Boolean),
    });
  });
  if (problems.length) throw new CatalogFileError(problems);
  return validateCatalog({
    format: 'vehicle-catalog/v1',
    categories: [...categories].map(([slug, name]) => ({ slug, name })),
    makes: [...makes.values()].map((mk) => ({
      slug: mk.slug,
      name: mk.name,
      models: [...mk.models.values()].map((md) => ({
        slug: md.slug,
        name: md.name,
        years: [...md.years].sort((a, b) => b[0] - a[0]).map(([year, variants]) => ({ year, variants })),
      })),
    })),
  });
}
