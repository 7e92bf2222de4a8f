import { isViewId } from '../../shared/views.ts';

/** What a /v1 call is, for GET /v1/usage's by_kind (docs/api.md). */
export const USAGE_KINDS = ['catalog', 'search', 'image', 'batch', 'spin', 'account'] as const;
export type UsageKind = (typeof USAGE_KINDS)[number];

/**
 * Classifies a /v1 path (relative to /v1) the way the router resolves it: image JSON is the
 * six-segment `/makes/…/{year}/{view}` (a variant slug is never a view id) or the seven-segment path
 * with a variant; anything unknown (a 404) counts as catalog.
 */
export function classifyV1Path(pathname: string): UsageKind {
  const s = pathname.split('/').filter(Boolean);
  const first = s[0]?.toLowerCase();
  if (s.length === 1 && first === 'search') return 'search';
  if (s.length === 1 && (first === 'me' || first === 'usage' || first === 'events')) return 'account';
  if (s.length === 3 && first === 'vehicles' && s[2]!.toLowerCase() === 'images') return 'batch';
  if (s.length === 3 && first === 'vehicles' && s[2]!.toLowerCase() === 'spin') return 'spin';
  if (first === 'makes' && s[2]?.toLowerCase() === 'models' && ((s.length === 6 && isViewId(s[5]!)) || s.length === 7)) return 'image';
  return 'catalog';
}
