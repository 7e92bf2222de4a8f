import { LRUCache } from 'lru-cache';
import { MESSAGES, ServiceError } from '../../shared/errors.ts';
import { isViewId, sortViews, type ViewId } from '../../shared/views.ts';
import { CATALOG_INVALIDATION } from '../auth/authenticator.ts';
import type { InvalidationBus } from '../auth/invalidation-bus.ts';
import type { Principal } from '../auth/principal.ts';
import type { CatalogRepo, MakeRow, ModelRow, VehicleRow, ViewRow } from './catalog-repo.ts';

/** The vehicle object of catalog and image answers (spec section 2, plus slugs for building paths). */
export interface VehicleDto {
  id: string;
  make: string;
  model: string;
  year: number;
  variant: string | null;
  category: string;
  category_id: string;
  make_slug: string;
  model_slug: string;
  variant_slug: string | null;
}

export const ref = (r: MakeRow | ModelRow) => ({ id: r.id, slug: r.slug, name: r.name });

export function vehicleDto(v: VehicleRow): VehicleDto {
  return {
    id: v.id,
    make: v.make_name,
    model: v.model_name,
    year: v.year,
    variant: v.variant_name,
    category: v.category_name,
    category_id: v.category_id,
    make_slug: v.make_slug,
    model_slug: v.model_slug,
    variant_slug: v.variant_slug,
  };
}

export const MAKES_TTL_MS = 2000;

type ImageTargetRows = Awaited<ReturnType<CatalogRepo['listPublishedVehiclesWithView']>>;

const YEAR_RE = /^\d{4}$/;

const notFound = (what: string, detail?: string) => new ServiceError('not_found', detail ? `${what} not found: ${detail}` : `${what} not found`);

/**
 * A path segment as a message quotes it. Only segments inside the slug, id or view alphabets get this
 * far (hardening.ts refuses the rest before any query), so the quote carries nothing but [A-Za-z0-9_-].
 */
const quote = (segment: string) => `"${segment}"`;

/** A list a message offers as the choices; a long one is cut, the caller can walk the catalog for the rest. */
function choices(items: readonly string[], max = 12): string {
  return items.length > max ? `${items.slice(0, max).join(', ')}, …` : items.join(', ');
}

function variantSlugs(vehicles: readonly VehicleRow[]): string[] {
  return vehicles.flatMap((v) => (v.variant_slug === null ? [] : [v.variant_slug]));
}

/** 404 for a variant slug that names none of the year's vehicles visible to the caller. */
function variantNotFound(slug: string, visible: readonly VehicleRow[]): ServiceError {
  const slugs = variantSlugs(visible);
  return notFound('Variant', `no variant ${quote(slug)} for this year${slugs.length > 0 ? ` (variants: ${choices(slugs)})` : ''}`);
}

function categories(p: Principal): string[] {
  return p.contract?.categoryIds ?? [];
}

/** What a `/{year}/{x}` path segment turned out to be. */
export type YearChild =
  | { kind: 'variant'; vehicle: VehicleRow }
  | { kind: 'view'; vehicle: VehicleRow; view: ViewRow };

/**
 * The spec's catalog semantics: only published vehicles in the caller's contract categories are
 * visible; a make, model or year with nothing visible is 404; an image of a published vehicle
 * outside the contract is 403.
 */
export class CatalogService {
  /**
   * The make list is the hottest catalog call and the same for every contract with the same
   * categories; it is kept for a short while (a catalog change shows at once through the bus, within
   * MAKES_TTL_MS without it).
   */
  private readonly makesCache = new LRUCache<string, Promise<Buffer>>({ max: 1000, ttl: MAKES_TTL_MS });
  /**
   * The image call's lookup (make, model, year, view → the year's published vehicles with that view),
   * for as long as the make list: the second hottest call, and the same rows for every caller.
   */
  private readonly imageTargets = new LRUCache<string, Promise<ImageTargetRows>>({ max: 20_000, ttl: MAKES_TTL_MS });
  /** A lookup that started before a catalog change must not fill the cache with what it read. */
  private generation = 0;

  /**
   * `bus`: catalog changes (an import, a vehicle or view (un)published: CATALOG_INVALIDATION, published
   * by the admin service on every instance) drop the cached answers at once; without it they expire.
   */
  constructor(
    private readonly repo: CatalogRepo,
    opts: { bus?: InvalidationBus } = {},
  ) {
    opts.bus?.onInvalidate((id) => {
      if (id !== CATALOG_INVALIDATION) return;
      this.generation++;
      this.makesCache.clear();
      this.imageTargets.clear();
    });
  }

  /** Caches `load()`'s promise under `key` unless the catalog changed meanwhile; failures are not kept. */
  private cached<T>(cache: LRUCache<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
    let hit = cache.get(key);
    if (!hit) {
      const gen = this.generation;
      hit = load();
      cache.set(key, hit);
      hit.then(
        () => {
          if (gen !== this.generation && cache.get(key) === hit) cache.delete(key);
        },
        () => {
          if (cache.get(key) === hit) cache.delete(key);
        },
      );
    }
    return hit;
  }

  /**
   * `{ makes }`, already serialised: the same bytes for every caller with the same categories until
   * the entry expires, so it is serialised once per entry instead of once per request.
   */
  listMakesJson(p: Principal): Promise<Buffer> {
    const cats = categories(p);
    return this.cached(this.makesCache, cats.join(','), () =>
      this.repo.listVisibleMakes(cats).then((makes) => Buffer.from(JSON.stringify({ makes: makes.map(ref) }))),
    );
  }

  private async make(p: Principal, slug: string) {
    const mk = await this.repo.findMake(slug);
    if (!mk) throw notFound('Make');
    const models = await this.repo.listVisibleModels(mk.id, categories(p));
    if (models.length === 0) throw notFound('Make');
    return { mk, models };
  }

  async listModels(p: Principal, makeSlug: string) {
    const { mk, models } = await this.make(p, makeSlug);
    return { make: ref(mk), models: models.map((m) => ({ ...ref(m), years: m.years })) };
  }

  private async model(p: Principal, makeSlug: string, modelSlug: string) {
    const mk = await this.repo.findMake(makeSlug);
    if (!mk) throw notFound('Make');
    const md = await this.repo.findModel(mk.id, modelSlug);
    if (!md) throw notFound('Model');
    return { mk, md };
  }

  async listYears(p: Principal, makeSlug: string, modelSlug: string) {
    const { mk, md } = await this.model(p, makeSlug, modelSlug);
    const years = await this.repo.listVisibleYears(md.id, categories(p));
    if (years.length === 0) throw notFound('Model');
    return { make: ref(mk), model: ref(md), years };
  }

  private async yearVehicles(p: Principal, makeSlug: string, modelSlug: string, yearRaw: string) {
    const { mk, md } = await this.model(p, makeSlug, modelSlug);
    if (!YEAR_RE.test(yearRaw)) {
      // the usual guess is a listing (`…/models/{model}/years`): point at the call that lists the years
      throw notFound('Year', `${quote(yearRaw)} is not a year; the years of this model are listed at /v1/makes/${mk.slug}/models/${md.slug}`);
    }
    const year = Number(yearRaw);
    const published = await this.repo.listPublishedVehicles(md.id, year);
    const allowed = new Set(categories(p));
    const visible = published.filter((v) => allowed.has(v.category_id));
    return { mk, md, year, published, visible };
  }

  private async publishedViewIds(v: VehicleRow): Promise<ViewId[]> {
    return (await this.repo.listViews(v.id)).filter((x) => x.published).map((x) => x.view);
  }

  private async vehicleWithViews(mk: MakeRow, md: ModelRow, v: VehicleRow) {
    return { make: ref(mk), model: ref(md), vehicle: vehicleDto(v), views: await this.publishedViewIds(v) };
  }

  /**
   * 404 for `/{year}/{x}` where x is neither a view id nor a visible variant's slug. What x was meant
   * to be follows from the year: with one vehicle and no variants it can only be a view; with one
   * named variant it could be either; with several, a view would need the variant first, so a variant.
   */
  private async unknownYearChild(x: string, visible: readonly VehicleRow[]): Promise<ServiceError> {
    if (visible.length > 1) return variantNotFound(x, visible);
    const only = visible[0]!;
    const views = choices(sortViews(await this.publishedViewIds(only)));
    if (only.variant_slug === null) return notFound('View', `${quote(x)} is not a view of this vehicle (views: ${views})`);
    return new ServiceError('not_found', `No variant or view ${quote(x)} for this year (variants: ${only.variant_slug}; views: ${views})`);
  }

  /** 404 for a view segment that is not one of the nine view ids. */
  private async unknownView(view: string, vehicle: VehicleRow): Promise<ServiceError> {
    return notFound('View', `${quote(view)} is not a view of this vehicle (views: ${choices(sortViews(await this.publishedViewIds(vehicle)))})`);
  }

  /** GET …/{year}: the vehicle and views when one variant is visible, else the variant choices. */
  async yearDetail(p: Principal, makeSlug: string, modelSlug: string, yearRaw: string) {
    const { mk, md, year, visible } = await this.yearVehicles(p, makeSlug, modelSlug, yearRaw);
    if (visible.length === 0) throw notFound('Year');
    if (visible.length === 1) return this.vehicleWithViews(mk, md, visible[0]!);
    return {
      make: ref(mk),
      model: ref(md),
      year,
      variants: visible.map((v) => ({
        slug: v.variant_slug,
        name: v.variant_name,
        vehicle_id: v.id,
        category: v.category_name,
        category_id: v.category_id,
      })),
    };
  }

  /** GET …/{year}/{variant}: the variant's views. */
  async variantDetail(p: Principal, makeSlug: string, modelSlug: string, yearRaw: string, variantSlug: string) {
    const { mk, md, visible } = await this.yearVehicles(p, makeSlug, modelSlug, yearRaw);
    const v = visible.find((x) => x.variant_slug === variantSlug);
    if (v) return this.vehicleWithViews(mk, md, v);
    if (visible.length === 0) throw notFound('Year');
    throw await this.unknownYearChild(variantSlug, visible);
  }

  /**
   * Resolves the vehicle an image path names, applying the contract's category (403) and the view's
   * publication (404). `variantSlug` null: the year must resolve to a single vehicle.
   *
   * The hot path is one query (the model year's published vehicles with the asked view); only when it
   * finds nothing are the make, model and year looked up one by one, to answer the right 404.
   */
  async resolveImageTarget(
    p: Principal,
    makeSlug: string,
    modelSlug: string,
    yearRaw: string,
    variantSlug: string | null,
    viewId: string,
  ): Promise<{ vehicle: VehicleRow; view: ViewRow }> {
    if (YEAR_RE.test(yearRaw) && isViewId(viewId)) {
      const rows = await this.cached(this.imageTargets, `${makeSlug}\n${modelSlug}\n${yearRaw}\n${viewId}`, () =>
        this.repo.listPublishedVehiclesWithView(makeSlug, modelSlug, Number(yearRaw), viewId),
      );
      if (rows.length > 0) {
        const vehicle = this.imageVehicle(p, rows.map((r) => r.vehicle), variantSlug);
        const view = rows.find((r) => r.vehicle === vehicle)!.view;
        if (!view) throw notFound('View', `${viewId} is not published for this vehicle`);
        return { vehicle, view };
      }
    }
    const { published } = await this.yearVehicles(p, makeSlug, modelSlug, yearRaw);
    if (published.length === 0) throw notFound('Year');
    const vehicle = this.imageVehicle(p, published, variantSlug);
    if (!isViewId(viewId)) throw await this.unknownView(viewId, vehicle);
    const view = await this.repo.findPublishedView(vehicle.id, viewId);
    if (!view) throw notFound('View', `${viewId} is not published for this vehicle`);
    return { vehicle, view };
  }

  /** The vehicle of an image path among the model year's published ones (404 variant, 403 category). */
  private imageVehicle(p: Principal, published: VehicleRow[], variantSlug: string | null): VehicleRow {
    const allowed = categories(p);
    let vehicle: VehicleRow;
    if (variantSlug !== null) {
      const named = published.find((x) => x.variant_slug === variantSlug);
      // the choices offered are the visible ones only: a variant outside the contract is not shown by the walk either
      if (!named) throw variantNotFound(variantSlug, published.filter((v) => allowed.includes(v.category_id)));
      vehicle = named;
    } else {
      const visible = published.filter((v) => allowed.includes(v.category_id));
      if (visible.length > 1) throw new ServiceError('not_found', 'This year has several variants: put the variant slug before the view');
      vehicle = visible[0] ?? published[0]!; // all outside the contract: the category answer below applies
    }
    if (!allowed.includes(vehicle.category_id)) {
      throw new ServiceError('forbidden', MESSAGES.categoryNotInContract);
    }
    return vehicle;
  }

  /**
   * The batch call's target: a published vehicle by id (404), in the contract's categories (403), and
   * its published views — all of them (catalog order), or the listed ones, each of which must be
   * published (404 naming the first that is not, as the single image call would answer).
   */
  async resolveVehicleViews(p: Principal, vehicleId: string, viewIds: readonly ViewId[] | null): Promise<{ vehicle: VehicleRow; views: ViewRow[] }> {
    const vehicle = await this.publishedVehicle(p, vehicleId);
    const published = (await this.repo.listViews(vehicle.id)).filter((v) => v.published);
    if (viewIds === null) return { vehicle, views: published };
    const views = viewIds.map((id) => {
      const row = published.find((v) => v.view === id);
      if (!row) throw new ServiceError('not_found', `View not found: ${id} is not published for this vehicle`);
      return row;
    });
    return { vehicle, views };
  }

  /**
   * The spin call's target: a published vehicle by id (404), in the contract's categories (403), and
   * the revision of its asset set as the catalog has it (from the vehicle's view rows of that set; null
   * when it has none).
   */
  async resolveSpinTarget(p: Principal, vehicleId: string): Promise<{ vehicle: VehicleRow; revision: string | null }> {
    const vehicle = await this.publishedVehicle(p, vehicleId);
    const row = (await this.repo.listViews(vehicle.id)).find((v) => v.asset_set === vehicle.asset_set);
    return { vehicle, revision: row?.asset_revision ?? null };
  }

  /** A published vehicle by id (404), in the contract's categories (403). */
  private async publishedVehicle(p: Principal, vehicleId: string): Promise<VehicleRow> {
    const vehicle = await this.repo.findVehicleById(vehicleId);
    if (!vehicle || !vehicle.published) throw notFound('Vehicle');
    if (!categories(p).includes(vehicle.category_id)) {
      throw new ServiceError('forbidden', MESSAGES.categoryNotInContract);
    }
    return vehicle;
  }

  /** Decides whether `/{year}/{x}` names a variant or a view. Variant slugs never equal view ids. */
  isViewSegment(segment: string): boolean {
    return isViewId(segment);
  }
}
