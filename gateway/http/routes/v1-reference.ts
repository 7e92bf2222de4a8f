import { Router } from 'express';
import { NAMED_COLORS } from '../../../shared/colors.ts';
import { VIEWS } from '../../../shared/views.ts';

/** GET /v1/colors and /v1/views: the spec's reference tables (authenticated and counted like every /v1 call). */
export function referenceRoutes(): Router {
  const r = Router();
  const colors = { colors: Object.entries(NAMED_COLORS).map(([name, hex]) => ({ name, hex })) };
  const views = { views: VIEWS.map((v) => ({ id: v.id, label: v.label })) };
  r.get('/colors', (_req, res) => {
    res.json(colors);
  });
  r.get('/views', (_req, res) => {
    res.json(views);
  });
  return r;
}
