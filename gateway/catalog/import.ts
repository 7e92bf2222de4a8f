import type { Database, Queryable } from '../db/database.ts';
import { VIEW_IDS } from '../../shared/views.ts';
import { AssetSetError } from '../../shared/asset-format/set-json.ts';
import type { AssetSetDirectory, SetDescription } from './asset-sets.ts';
import { CatalogFileError, type CatalogFile } from './catalog-file.ts';
import { categoryId, makeId, modelId, vehicleId } from './ids.ts';
import { insertPostings, vehicleTerms } from './search-terms.ts';
import { untimed, type Phase } from '../start-phase.ts';

export interface ImportSummary {
  categories: number;
  makes: number;
  models: number;
  vehicles: number;
  views: number;
}

const BATCH = 2000;

async function inBatches<T>(rows: T[], fn: (chunk: T[]) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < rows.length; i += BATCH) await fn(rows.slice(i, i + BATCH));
}

/**
 * Applies a validated catalog in one transaction: upserts categories, makes, models, vehicles and
 * their views (shadow and plate quad copied from the asset set), and rebuilds their search terms.
 * Everything the file does not mention is left as it is. Asset sets are all resolved first, so a
 * missing set refuses the whole file before anything is written.
 */
export async function importCatalog(db: Database, assets: AssetSetDirectory, file: CatalogFile, opts: { phase?: Phase } = {}): Promise<ImportSummary> {
  const phase = opts.phase ?? untimed;
  const setIds = new Set<string>();
  for (const mk of file.makes) for (const md of mk.models) for (const y of md.years) for (const v of y.variants) setIds.add(v.asset_set);
  const sets = new Map<string, SetDescription>();
  const problems: string[] = [];
  for (const id of setIds) {
    let d: SetDescription | null;
    try {
      d = await assets.describe(id);
    } catch (e) {
      if (!(e instanceof AssetSetError)) throw e;
      problems.push(`asset_set "${id}": ${e.message}`);
      continue;
    }
    if (!d) problems.push(`asset_set "${id}": no such asset set`);
    else sets.set(id, d);
  }
  if (problems.length) throw new CatalogFileError(problems);

  const cats = file.categories.map((c) => [categoryId(c.slug), c.slug, c.name] as const);
  const makes: (readonly [string, string, string])[] = [];
  const models: (readonly [string, string, string, string])[] = [];
  const vehicles: (readonly [string, string, number, string | null, string | null, string, string, boolean])[] = [];
  const views: (readonly [string, string, boolean, boolean, string | null, string, string, string, number, number, boolean])[] = [];
  const terms: (readonly [string, string])[] = []; // vehicle id, its search terms joined by spaces
  for (const mk of file.makes) {
    const mkId = makeId(mk.slug);
    makes.push([mkId, mk.slug, mk.name]);
    for (const md of mk.models) {
      const mdId = modelId(mk.slug, md.slug);
      models.push([mdId, mkId, md.slug, md.name]);
      for (const y of md.years) {
        for (const v of y.variants) {
          const vid = vehicleId(mk.slug, md.slug, y.year, v.slug);
          vehicles.push([vid, mdId, y.year, v.slug, v.name, categoryId(v.category), v.asset_set, v.published]);
          const set = sets.get(v.asset_set)!;
          for (const view of VIEW_IDS) {
            const info = set.views[view];
            if (!info) continue;
            views.push([vid, view, !v.unpublished_views.includes(view), info.shadow,
              info.plateQuad ? JSON.stringify(info.plateQuad) : null, set.id, view, set.revision, info.width, info.height, info.coverage]);
          }
          terms.push([vid, vehicleTerms({ makeName: mk.name, makeSlug: mk.slug, modelName: md.name, modelSlug: md.slug,
            variantName: v.name, variantSlug: v.slug, year: y.year }).sort().join(' ')]);
        }
      }
    }
  }

  await db.transaction(async (tx) => {
    await upsert(tx, cats, `INSERT INTO categories (id, slug, name)
        SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
        ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name WHERE categories.name IS DISTINCT FROM EXCLUDED.name`);
    await upsert(tx, makes, `INSERT INTO makes (id, slug, name)
        SELECT * FROM unnest($1::text[], $2::text[], $3::text[])
        ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name WHERE makes.name IS DISTINCT FROM EXCLUDED.name`);
    await upsert(tx, models, `INSERT INTO models (id, make_id, slug, name)
        SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])
        ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name WHERE models.name IS DISTINCT FROM EXCLUDED.name`);
    await upsert(tx, vehicles, `INSERT INTO vehicles (id, model_id, year, variant_slug, variant_name, category_id, asset_set, published)
        SELECT * FROM unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bool[])
        ON CONFLICT (id) DO UPDATE SET variant_name = EXCLUDED.variant_name, category_id = EXCLUDED.category_id,
          asset_set = EXCLUDED.asset_set, published = EXCLUDED.published
        WHERE (vehicles.variant_name, vehicles.category_id, vehicles.asset_set, vehicles.published)
          IS DISTINCT FROM (EXCLUDED.variant_name, EXCLUDED.category_id, EXCLUDED.asset_set, EXCLUDED.published)`);
    await upsert(tx, views, `INSERT INTO vehicle_views (vehicle_id, view, published, shadow, plate_quad, asset_set, asset_view, asset_revision, width, height, transparent)
        SELECT a, b, c, d, e::jsonb, f, g, h, i, j, k FROM unnest($1::text[], $2::text[], $3::bool[], $4::bool[], $5::text[], $6::text[], $7::text[], $8::text[], $9::int[], $10::int[], $11::bool[])
          AS t(a, b, c, d, e, f, g, h, i, j, k)
        ON CONFLICT (vehicle_id, view) DO UPDATE SET published = EXCLUDED.published, shadow = EXCLUDED.shadow,
          plate_quad = EXCLUDED.plate_quad, asset_set = EXCLUDED.asset_set, asset_view = EXCLUDED.asset_view,
          asset_revision = EXCLUDED.asset_revision, width = EXCLUDED.width, height = EXCLUDED.height,
          transparent = EXCLUDED.transparent
        WHERE (vehicle_views.published, vehicle_views.shadow, vehicle_views.plate_quad, vehicle_views.asset_set,
               vehicle_views.asset_view, vehicle_views.asset_revision, vehicle_views.width, vehicle_views.height,
               vehicle_views.transparent)
          IS DISTINCT FROM (EXCLUDED.published, EXCLUDED.shadow, EXCLUDED.plate_quad, EXCLUDED.asset_set,
               EXCLUDED.asset_view, EXCLUDED.asset_revision, EXCLUDED.width, EXCLUDED.height, EXCLUDED.transparent)`);
    // Imports never delete, so a file that names the variants of a year once stored without any would
    // leave an unnamed vehicle beside named ones that no path can reach: refuse it whole.
    const mixed = await tx.query<{ make: string; model: string; year: number }>(
      `SELECT mk.slug AS make, md.slug AS model, v.year FROM vehicles v
         JOIN models md ON md.id = v.model_id JOIN makes mk ON mk.id = md.make_id
        WHERE v.model_id = ANY($1::text[])
        GROUP BY mk.slug, md.slug, v.year
       HAVING count(*) > 1 AND bool_or(v.variant_slug IS NULL)`,
      [[...new Set(vehicles.map((v) => v[1]))]],
    );
    if (mixed.length > 0) {
      throw new CatalogFileError(mixed.map((m) => `${m.make}/${m.model}/${m.year}: a year stored without variants cannot gain named variants; give the existing vehicle a variant slug`));
    }
    // Postings are rewritten only for vehicles whose terms change (or that have none yet): the names,
    // publication and category copied into the others follow through migration 004's triggers, so
    // importing the same file again writes no posting. Tokens never hold a space.
    const stale: string[] = [];
    await phase('built the search index', async () => {
      await inBatches([...terms], async (chunk) => {
        const rows = await tx.query<{ id: string }>(
          `SELECT t.id FROM unnest($1::text[], $2::text[]) AS t(id, terms) JOIN vehicles v ON v.id = t.id
            WHERE v.terms IS DISTINCT FROM string_to_array(t.terms, ' ')
               OR NOT EXISTS (SELECT 1 FROM search_terms st WHERE st.vehicle_id = t.id)`,
          [chunk.map((c) => c[0]), chunk.map((c) => c[1])]);
        stale.push(...rows.map((r) => r.id));
      });
      await inBatches(stale, (ids) => tx.query('DELETE FROM search_terms WHERE vehicle_id = ANY($1::text[])', [ids]));
      await upsert(tx, terms, `UPDATE vehicles v SET terms = string_to_array(t.terms, ' ')
          FROM unnest($1::text[], $2::text[]) AS t(id, terms)
         WHERE v.id = t.id AND v.terms IS DISTINCT FROM string_to_array(t.terms, ' ')`);
      // Each posting copies its vehicle's order, filters and terms (migration 004) from the rows just written.
      await inBatches(stale, (ids) => insertPostings(tx, 'v.id = ANY($1::text[])', [ids]));
      if (stale.length > 0) {
        await tx.query('DELETE FROM search_dict');
        await tx.query('INSERT INTO search_dict (term, n) SELECT term, count(DISTINCT vehicle_id)::int FROM search_terms GROUP BY term');
      }
    });
  });
  // A bulk import changes the best plans at once, and PGlite never runs autovacuum.
  for (const t of ['categories', 'makes', 'models', 'vehicles', 'vehicle_views', 'search_terms', 'search_dict']) {
    await db.query(`ANALYZE ${t}`);
  }
  return { categories: cats.length, makes: makes.length, models: models.length, vehicles: vehicles.length, views: views.length };
}

/** Column-wise batches: one unnest statement per chunk of rows. */
async function upsert(tx: Queryable, rows: readonly (readonly unknown[])[], sql: string): Promise<void> {
  await inBatches([...rows], (chunk) => {
    const cols = chunk[0]!.map((_, i) => chunk.map((r) => r[i]));
    return tx.query(sql, cols);
  });
}
