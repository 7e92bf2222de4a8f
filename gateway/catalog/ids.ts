import crypto from 'node:crypto';

/** Stable ids derived from natural keys, so re-importing a catalog updates rows instead of duplicating. */
function stable(prefix: string, ...parts: (string | number | null)[]): string {
  const h = crypto.createHash('sha256').update(parts.map((p) => String(p ?? '')).join('\u0000')).digest('base64url');
  return `${prefix}_${h.slice(0, 16)}`;
}

export const categoryId = (slug: string) => stable('cat', slug);
export const makeId = (slug: string) => stable('mk', slug);
export const modelId = (make: string, model: string) => stable('md', make, model);
export const vehicleId = (make: string, model: string, year: number, variant: string | null) =>
  stable('veh', make, model, year, variant);

/** Random ids for things people create (organisations, keys, members). */
export function randomId(prefix: string): string {
  return `${prefix}_${crypto.randomBytes(12).toString('base64url')}`;
}
