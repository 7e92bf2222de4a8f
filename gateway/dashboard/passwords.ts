import { hash, verify } from '@node-rs/argon2';
import { ServiceError } from '../../shared/errors.ts';

/** argon2id (the library's default algorithm), OWASP's minimum cost: 19 MiB, 2 passes, 1 lane. */
const COST = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 256;

export function checkNewPassword(password: unknown): string {
  if (typeof password !== 'string' || password.length < PASSWORD_MIN || password.length > PASSWORD_MAX) {
    throw new ServiceError('bad_request', `Invalid password: it must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters long`);
  }
  return password;
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, COST);
}

export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
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
