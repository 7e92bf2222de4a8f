import crypto from 'node:crypto';

/** 256-bit random tokens (cookie ids, link tokens, CSRF tokens), base64url. */
export const randomToken = () => crypto.randomBytes(32).toString('base64url');

/** What the database keeps of a bearer token: its SHA-256 (a leaked table signs no one in). */
export const tokenHash = (token: string) => crypto.createHash('sha256').update(token).digest('hex');

export function equalSecrets(a: string, b: string): boolean {
  const x = crypto.createHash('sha256').update(a).digest();
  const y = crypto.createHash('sha256').update(b).digest();
  return crypto.timingSafeEqual(x, y);
}
