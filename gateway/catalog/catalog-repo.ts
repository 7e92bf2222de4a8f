import type { Queryable } from '../db/database.ts';
import { sortViews, type ViewId } from '../../shared/views.ts';

export interface MakeRow {
  id: string;
  slug: string;
  name: string;
}

export interface ModelRow {
  id: string;
  slug: string;
  name: string;
}

export interface VehicleRow {
  id: string;
  make_id: string;
  make_slug: string;
  make_name: string;
  model_id: string;
  model_slug: string;
  model_name: string;
  year: number;
  variant_slug: string | null;
  variant_name: string | null;
  category_id: string;
  category_slug: string;
  category_name: string;
  asset_set: string;
  published: boolean;
}

export interface ViewRow {
  view: ViewId;
  published: boolean;
  shadow: boolean;
  plate_quad: [number, number][] | null;
  asset_set: string;
  asset_view: string;
  asset_revision: string;
  width: number;
  height: number;
  /** The view has a coverage layer: it can be rendered on a transparent background. */
  transparent: boolean;
}

const VEHICLE_COLUMNS = `
  SELECT v.id, mk.id AS make_id, mk.slug AS make_slug, mk.name AS make_name,
         md.id AS model_id, md.slug AS model_slug, md.name AS model_name,
         v.year, v.variant_slug, v.variant_name,
         c.id AS category_id, c.slug AS category_slug, c.name AS category_name,
         v.asset_set, v.published`;
const VEHICLE_FROM = `
    FROM vehicles v
    JOIN models md ON md.id = v.model_id
    JOIN makes mk ON mk.id = md.make_id
    JOIN categories c ON c.id = v.category_id`;
const VEHICLE_SELECT = `${VEHICLE_COLUMNS}${VEHICLE_FROM}`;

/**
 * Read side of the catalog. Every list takes the caller's contract categories: only published
 * vehicles in those categories are visible.
 */
export class CatalogRepo {
  constructor(private readonly db: Queryable) {}

  listVisibleMakes(categoryIds: string[]): Promise<MakeRow[]> {
    return this.db.query<MakeRow>(
      `SELECT mk.id, mk.slug, mk.name FROM makes mk
        WHERE EXISTS (SELECT 1 FROM models md JOIN vehicles v ON v.model_id = md.id
                       WHERE md.make_id = mk.id AND v.published AND v.category_id = ANY($1::text[]))
        ORDER BY mk.name, mk.slug`,
      [categoryIds],
    );
  }

  async findMake(slug: string): Promise<MakeRow | null> {
    const rows = await this.db.query<MakeRow>('SELECT id, slug, name FROM makes WHERE slug = $1', [slug]);
    return rows[0] ?? null;
  }

  async findModel(makeId: string, slug: string): Promise<ModelRow | null> {
    const rows = await this.db.query<ModelRow>(
      'SELECT id, slug, name FROM models WHERE make_id = $1 AND slug = $2',
      [makeId, slug],
    );
    return rows[0] ?? null;
  }

  /** Visible models of a make with their visible years, newest first. */
  listVisibleModels(makeId: string, categoryIds: string[]): Promise<Array<ModelRow & { years: number[] }>> {
    return this.db.query(
      `SELECT md.id, md.slug, md.name,
              ARRAY(SELECT DISTINCT v.year FROM vehicles v
                     WHERE v.model_id = md.id AND v.published AND v.category_id = ANY($2::text[])
                     ORDER BY v.year DESC) AS years
         FROM models md
        WHERE md.make_id = $1
          AND EXISTS (SELECT 1 FROM vehicles v WHERE v.model_id = md.id AND v.published
                        AND v.category_id = ANY($2::text[]))
        ORDER BY md.name, md.slug`,
      [makeId, categoryIds],
    );
  }

  listVisibleYears(modelId: string, categoryIds: string[]): Promise<Array<{ year: number; variant_count: number }>> {
    return this.db.query(
      `SELECT v.year, count(*)::int AS variant_count FROM vehicles v
        WHERE v.model_id = $1 AND v.published AND v.category_id = ANY($2::text[])
        GROUP BY v.year ORDER BY v.year DESC`,
      [modelId, categoryIds],
    );
  }

  /** Published vehicles of a model year, whatever the contract (the caller decides 403 vs 404). */
  listPublishedVehicles(modelId: string, year: number): Promise<VehicleRow[]> {
    return this.db.query<VehicleRow>(
      `${VEHICLE_SELECT}
        WHERE v.model_id = $1 AND v.year = $2 AND v.published
        ORDER BY v.variant_name NULLS FIRST, v.variant_slug`,
      [modelId, year],
    );
  }

  /**
   * `listPublishedVehicles` of the model year that `makeSlug`/`modelSlug` name, each with its view
   * `view` when that view is published (else null), in one round trip: the image call's hot path.
   */
  async listPublishedVehiclesWithView(
    makeSlug: string,
    modelSlug: string,
    year: number,
    view: ViewId,
  ): Promise<Array<{ vehicle: VehicleRow; view: ViewRow | null }>> {
    const rows = await this.db.query<VehicleRow & { vv: ViewRow | null }>(
      `${VEHICLE_COLUMNS},
              CASE WHEN vv.view IS NULL THEN NULL ELSE json_build_object(
                'view', vv.view, 'published', vv.published, 'shadow', vv.shadow, 'plate_quad', vv.plate_quad,
                'asset_set', vv.asset_set, 'asset_view', vv.asset_view, 'asset_revision', vv.asset_revision,
                'width', vv.width, 'height', vv.height, 'transparent', vv.transparent) END AS vv
       ${VEHICLE_FROM}
         LEFT JOIN vehicle_views vv ON vv.vehicle_id = v.id AND vv.view = $4 AND vv.published
        WHERE mk.slug = $1 AND md.slug = $2 AND v.year = $3 AND v.published
        ORDER BY v.variant_name NULLS FIRST, v.variant_slug`,
      [makeSlug, modelSlug, year, view],
    );
    return rows.map(({ vv, ...vehicle }) => ({ vehicle, view: vv }));
  }

  async findVehicleById(id: string): Promise<VehicleRow | null> {
    const rows = await this.db.query<VehicleRow>(`${VEHICLE_SELECT} WHERE v.id = $1`, [id]);
    return rows[0] ?? null;
  }

  async listViews(vehicleId: string): Promise<ViewRow[]> {
    const rows = await this.db.query<ViewRow>(
      `SELECT view, published, shadow, plate_quad, asset_set, asset_view, asset_revision, width, height, transparent
         FROM vehicle_views WHERE vehicle_id = $1`,
      [vehicleId],
    );
    const order = sortViews(rows.map((r) => r.view));
    return order.map((v) => rows.find((r) => r.view === v)!);
  }

  async findPublishedView(vehicleId: string, view: string): Promise<ViewRow | null> {
    const rows = await this.db.query<ViewRow>(
      `SELECT view, published, shadow, plate_quad, asset_set, asset_view, asset_revision, width, height, transparent
         FROM vehicle_views WHERE vehicle_id = $1 AND view = $2 AND published`,
      [vehicleId, view],
    );
    return rows[0] ?? null;
  }

  listCategories(): Promise<Array<{ id: string; slug: string; name: string }>> {
    return this.db.query('SELECT id, slug, name FROM categories ORDER BY lower(name), name, slug');
  }
}
