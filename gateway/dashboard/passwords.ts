import { hash, verify } from '@node-rs/argon2';
import { ServiceError } from '../../shared/errors.ts';

/** argon2id (the library's default algorithm), OWASP's minimum cost: 19 MiB, 2 passes, 1 lane. */
const COST = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

/**
 * One Unicode form for every password (NIST SP 800-63B): the same characters typed or pasted as
 * composed or decomposed sequences are the same password.
 */
const normalise = (password: string) => password.normalize('NFKC');

export function checkNewPassword(password: unknown): string {
  const p = typeof password === 'string' ? normalise(password) : null;
  // characters, not UTF-16 code units: an emoji is one character of a password, not two
  const length = p === null ? 0 : [...p].length;
  if (p === null || length < PASSWORD_MIN || length > PASSWORD_MAX) {
    throw new ServiceError('bad_request', `Invalid password: it must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long`);
  }
  return p;
}

export function hashPassword(password: string): Promise<string> {
  return hash(normalise(password), COST);
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, normalise(password));
  } catch {
    return false; // a malformed stored hash never signs anyone in
  }
}

let dummy: Promise<string> | null = null;
/** Spends the time of one verification, so an unknown email answers as slowly as a wrong password. */
export async function verifyNothing(password: string): Promise<void> {
  dummy ??= hashPassword('an unused password, only ever verified against');
  await verifyPassword(await dummy, password);
}
