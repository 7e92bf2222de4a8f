import { ServiceError } from '../../shared/errors.ts';
import { singleParam } from '../../shared/query-param.ts';
import type { Principal } from '../auth/principal.ts';
import type { Queryable } from '../db/database.ts';
import type { Limiter } from '../limits/limiter.ts';
import { utcMonth } from '../limits/limiter.ts';
import { USAGE_KINDS, type UsageKind } from './kinds.ts';
import { utcDay, type UsageDelta, type UsageRecorder } from './recorder.ts';

export interface UsageReport {
  month: string;
  monthly_quota: number;
  requests: number;
  remaining: number;
  days: Array<{ date: string; requests: number }>;
  by_key: Array<{ key_id: string | null; name: string | null; prefix: string | null; requests: number }>;
  by_kind: Array<{ kind: UsageKind; requests: number }>;
}

const MONTH_RE = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** `month=YYYY-MM`, default the current UTC month. */
export function parseMonthParam(raw: unknown, nowMs = Date.now()): string {
  const text = singleParam('month', raw);
  if (text === undefined) return utcMonth(nowMs);
  const m = MONTH_RE.exec(text);
  if (!m || Number(m[1]) < 2000 || Number(m[1]) > 2100) {
    throw new ServiceError('bad_request', 'Parameter month must be a UTC month as YYYY-MM (for example 2026-01)');
  }
  return text;
}

/** The playground's row in by_key: no key id, named for where its calls come from. */
export const PLAYGROUND_KEY_NAME = 'dashboard';

/**
 * GET /v1/usage's answer: `requests`/`remaining` from the limiter (the same figures as /v1/me), the
 * per-day, per-key and per-kind split from usage_daily plus this instance's unflushed counts.
 */
export async function usageReport(
  deps: { db: Queryable; limiter: Limiter; recorder: UsageRecorder },
  p: Principal,
  month: string,
  nowMs = Date.now(),
): Promise<UsageReport> {
  const [y, mo] = month.split('-').map(Number) as [number, number];
  const first = `${month}-01`;
  const next = utcDay(Date.UTC(y, mo, 1));
  const today = utcDay(nowMs);

  const counts = await deps.recorder.withPending(async (pending) => {
    const rows = await deps.db.query<{ key_id: string | null; kind: UsageKind; day: string; requests: number }>(
      `SELECT key_id, kind, to_char(day, 'YYYY-MM-DD') AS day, requests FROM usage_daily
        WHERE org_id = $1 AND day >= $2::date AND day < $3::date`,
      [p.orgId, first, next],
    );
    const mine = pending.filter((d: UsageDelta) => d.orgId === p.orgId && d.day >= first && d.day < next);
    return [...rows, ...mine.map((d) => ({ key_id: d.keyId, kind: d.kind, day: d.day, requests: d.delta }))];
  });

  const perDay = new Map<string, number>();
  const perKey = new Map<string | null, number>();
  const perKind = new Map<UsageKind, number>();
  for (const r of counts) {
    perDay.set(r.day, (perDay.get(r.day) ?? 0) + r.requests);
    perKey.set(r.key_id, (perKey.get(r.key_id) ?? 0) + r.requests);
    perKind.set(r.kind, (perKind.get(r.kind) ?? 0) + r.requests);
  }

  const days: UsageReport['days'] = [];
  for (let d = 1; ; d++) {
    const date = utcDay(Date.UTC(y, mo - 1, d));
    if (date >= next || date > today) break;
    days.push({ date, requests: perDay.get(date) ?? 0 });
  }

  const keyIds = [...perKey.keys()].filter((k): k is string => k !== null);
  const keys = keyIds.length
    ? await deps.db.query<{ id: string; name: string | null; prefix: string }>('SELECT id, name, prefix FROM api_keys WHERE id = ANY($1::text[])', [keyIds])
    : [];
  const byKey = [...perKey.entries()]
    .map(([keyId, requests]) => {
      const k = keys.find((x) => x.id === keyId);
      return { key_id: keyId, name: keyId === null ? PLAYGROUND_KEY_NAME : (k?.name ?? null), prefix: k?.prefix ?? null, requests };
    })
    .sort((a, b) => b.requests - a.requests || String(a.key_id).localeCompare(String(b.key_id)));

  const quota = p.contract?.monthlyQuota ?? 0;
  const requests = await deps.limiter.monthlyUsage(p.orgId, month);
  return {
    month,
    monthly_quota: quota,
    requests,
    remaining: Math.max(0, quota - requests),
    days,
    by_key: byKey,
    by_kind: USAGE_KINDS.map((kind) => ({ kind, requests: perKind.get(kind) ?? 0 })),
  };
}
