import crypto from 'node:crypto';
import type { KeyedSecret } from '../../shared/config-fields.ts';

export const KEY_PREFIX = 'svc_live_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 24; // 24 × log2(62) ≈ 143 random bits
const CHECK_LENGTH = 6;
const KEY_RE = new RegExp(`^${KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECK_LENGTH}}$`);

function randomBase62(n: number): string {
  let out = '';
  while (out.length < n) {
    for (const b of crypto.randomBytes(n * 2)) {
      // Rejection sampling keeps the distribution uniform (248 = 4 × 62).
      if (b < 248 && out.length < n) out += ALPHABET[b % 62];
    }
  }
  return out;
}

function checksum(body: string): string {
  // the one-shot form: no Hash object per call (this runs for every authenticated request)
  const digest = crypto.hash('sha256', KEY_PREFIX + body, 'buffer');
  let out = '';
  for (let i = 0; i < CHECK_LENGTH; i++) out += ALPHABET[digest[i]! % 62];
  return out;
}

export function generateApiKey(): { key: string; displayPrefix: string } {
  const body = randomBase62(BODY_LENGTH);
  const key = `${KEY_PREFIX}${body}${checksum(body)}`;
  return { key, displayPrefix: key.slice(0, KEY_PREFIX.length + 6) };
}

/** Format and checksum only: refuses a mistyped or made-up key without touching a database. */
export function isWellFormedApiKey(key: string): boolean {
  if (!KEY_RE.test(key)) return false;
  const rest = key.slice(KEY_PREFIX.length);
  const body = rest.slice(0, BODY_LENGTH);
  return crypto.timingSafeEqual(Buffer.from(checksum(body)), Buffer.from(rest.slice(BODY_LENGTH)));
}

export function hashApiKey(key: string, secret: KeyedSecret): string {
  return crypto.createHmac('sha256', secret.secret).update(key).digest('hex');
}
