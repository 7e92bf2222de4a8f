import type { Queryable } from '../db/database.ts';
import type { CatalogFile } from './catalog-file.ts';

/** Writes the whole catalog in the import format; importing the result changes nothing. */
export async function exportCatalog(db: Queryable): Promise<CatalogFile> {
  const categories = await db.query<{ slug: string; name: string }>('SELECT slug, name FROM categories ORDER BY slug');
  const rows = await db.query<{
    make_slug: string; make_name: string; model_slug: string; model_name: string; year: number;
    variant_slug: string | null; variant_name: string | null; category: string; asset_set: string;
    published: boolean; unpublished_views: string[];
  }>(`SELECT mk.slug AS make_slug, mk.name AS make_name, md.slug AS model_slug, md.name AS model_name,
             v.year, v.variant_slug, v.variant_name, c.slug AS category, v.asset_set, v.published,
             ARRAY(SELECT vv.view FROM vehicle_views vv WHERE vv.vehicle_id = v.id AND NOT vv.published ORDER BY vv.view) AS unpublished_views
        FROM vehicles v JOIN models md ON md.id = v.model_id JOIN makes mk ON mk.id = md.make_id
        JOIN categories c ON c.id = v.category_id
       ORDER BY mk.slug, md.slug, v.year DESC, v.variant_slug NULLS FIRST`);
  const makes: CatalogFile['makes'] = [];
  for (const r of rows) {
    let mk = makes[makes.length - 1];
    if (!mk || mk.slug !== r.make_slug) makes.push((mk = { slug: r.make_slug, name: r.make_name, models: [] }));
    let md = mk.models[mk.models.length - 1];
    if (!md || md.slug !== r.model_slug) mk.models.push((md = { slug: r.model_slug, name: r.model_name, years: [] }));
    let y = md.years[md.years.length - 1];
    if (!y || y.year !== r.year) md.years.push((y = { year: r.year, variants: [] }));
    y.variants.push({ slug: r.variant_slug, name: r.variant_name, category: r.category, asset_set: r.asset_set,
      published: r.published, unpublished_views: r.unpublished_views });
  }
  return { format: 'vehicle-catalog/v1', categories, makes };
}
