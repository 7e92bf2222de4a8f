import type { Router } from 'express';
import { z } from 'zod';
import { WebhookEndpoints } from '../../events/endpoints.ts';
import { EVENT_TYPES } from '../../events/types.ts';
import { parseBody } from '../parse-body.ts';

/** `{ url, events? }`: events empty or absent means every type. */
export const webhookBody = z.object({
  url: z.string().min(1).max(2048),
  events: z.array(z.enum(EVENT_TYPES)).max(EVENT_TYPES.length * 2).optional(),
});

/** The webhook calls of the admin API (docs/events.md), on the admin router behind its token. */
export function addWebhookAdminRoutes(r: Router, endpoints: WebhookEndpoints): void {
  const param = (v: unknown) => String(v);
  r.post('/organizations/:org/webhooks', async (req, res) => {
    const b = parseBody(webhookBody, req.body);
    res.status(201).json(await endpoints.create(param(req.params.org), b.url, b.events ?? []));
  });
  r.get('/organizations/:org/webhooks', async (req, res) => {
    res.json({ webhooks: await endpoints.list(param(req.params.org), { requireOrg: true }) });
  });
  r.delete('/webhooks/:id', async (req, res) => {
    res.json(await endpoints.remove(param(req.params.id), null));
  });
  r.post('/webhooks/:id/rotate-secret', async (req, res) => {
    res.json(await endpoints.rotateSecret(param(req.params.id), null));
  });
  r.get('/webhooks/:id/deliveries', async (req, res) => {
    res.json({ deliveries: await endpoints.deliveries(param(req.params.id), null) });
  });
}
