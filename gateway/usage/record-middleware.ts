import type { RequestHandler } from 'express';
import { isDashboardKeyId } from '../auth/principal.ts';
import { classifyV1Path } from './kinds.ts';
import type { UsageRecorder } from './recorder.ts';

/**
 * Placed right after the /v1 gate (key or dashboard session, then the limiter): every admitted call
 * is recorded, whatever the route then answers, exactly as the limiter counts it.
 */
export function recordAdmittedCalls(recorder: UsageRecorder): RequestHandler {
  return (req, res, next) => {
    const p = res.locals.principal;
    recorder.record(p.orgId, isDashboardKeyId(p.keyId) ? null : p.keyId, classifyV1Path(req.path));
    next();
  };
}
