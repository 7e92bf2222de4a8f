import { Router, type Request, type Response } from 'express';
import type { CatalogService } from '../../catalog/catalog-service.ts';
import type { ImageJsonHandler } from './v1-image.ts';
import { SEGMENT_RE, SLUG_RE, VIEW_RE, validateParams } from '../path-params.ts';

/**
 * The catalog walk: make › model › year › variant › view. `/{year}/{x}` is a variant when x is
 * not a view id (import refuses variant slugs equal to view ids), otherwise an image.
 */
export function catalogRoutes(deps: { catalog: CatalogService; image: ImageJsonHandler }): Router {
  const r = Router();
  const { catalog } = deps;
  // slugs, years and view ids are checked against their alphabets before any query (404 otherwise). A
  // year in the slug alphabet that is not four digits (`…/years`) gets to the catalog, which answers
  // an unknown make or model first and then says the year is not one.
  validateParams(r, { make: SLUG_RE, model: SLUG_RE, year: { re: SLUG_RE, message: 'Year not found' }, x: SEGMENT_RE, variant: SLUG_RE, view: VIEW_RE });
  const p = (res: Response) => res.locals.principal;
  const param = (req: Request, name: string) => String(req.params[name]);

  r.get('/makes', async (_req, res) => {
    // the hottest call: the cached answer's bytes, with the header res.json() would set
    res.set('Content-Type', 'application/json; charset=utf-8').send(await catalog.listMakesJson(p(res)));
  });
  const models = async (req: Request, res: Response) => {
    res.json(await catalog.listModels(p(res), param(req, 'make')));
  };
  r.get('/makes/:make', models);
  r.get('/makes/:make/models', models);
  r.get('/makes/:make/models/:model', async (req, res) => {
    res.json(await catalog.listYears(p(res), param(req, 'make'), param(req, 'model')));
  });
  r.get('/makes/:make/models/:model/:year', async (req, res) => {
    res.json(await catalog.yearDetail(p(res), param(req, 'make'), param(req, 'model'), param(req, 'year')));
  });
  r.get('/makes/:make/models/:model/:year/:x', async (req, res) => {
    const x = param(req, 'x');
    if (catalog.isViewSegment(x)) {
      await deps.image(req, res, { variant: null, view: x });
      return;
    }
    res.json(await catalog.variantDetail(p(res), param(req, 'make'), param(req, 'model'), param(req, 'year'), x));
  });
  r.get('/makes/:make/models/:model/:year/:variant/:view', async (req, res) => {
    await deps.image(req, res, { variant: param(req, 'variant'), view: param(req, 'view') });
  });
  return r;
}
