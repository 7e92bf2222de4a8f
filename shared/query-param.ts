import { ServiceError } from './errors.ts';

/**
 * A query parameter given at most once: its text, or undefined when absent. Given twice (Express
 * parses `?a=1&a=2` to an array, `?a[b]=1` to an object) is the caller's mistake, answered the same
 * way for every parameter.
 */
export function singleParam(name: string, v: unknown): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v === 'string') return v;
  throw new ServiceError('bad_request', `Parameter ${name} must be given once`);
}
