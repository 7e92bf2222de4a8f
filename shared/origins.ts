/**
 * Browser origins as CORS compares them: `scheme://host[:port]`, http or https, no path, query,
 * fragment or credentials. Used for the gateway's CORS_ALLOWED_ORIGINS and a contract's
 * allowed_origins, so both hold the form a browser sends in its Origin header.
 */
export function canonicalOrigin(raw: string): string | null {
  const text = raw.trim();
  if (text.length === 0 || text.length > 255) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username || url.password || url.search || url.hash || url.pathname !== '/') return null;
  // "https://a.example/" is accepted (a trailing slash); anything else after the authority is not
  if (!/^https?:\/\/[^/?#]+\/?$/i.test(text)) return null;
  return url.origin;
}

/** Parses a comma-separated list; throws naming the first entry that is not an origin. */
export function parseOriginList(raw: string): string[] {
  const out: string[] = [];
  for (const part of raw.split(',').map((s) => s.trim()).filter(Boolean)) {
    const o = canonicalOrigin(part);
    if (!o) throw new Error(`"${part}" is not an origin (scheme://host[:port], http or https)`);
    if (!out.includes(o)) out.push(o);
  }
  return out;
}
