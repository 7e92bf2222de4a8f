import { isIPv4, isIPv6 } from 'node:net';
import { LRUCache } from 'lru-cache';
import { ServiceError } from '../../shared/errors.ts';

export interface FailureThrottle {
  /** Throws rate_limited (429 with Retry-After) while `subject` is over its limit. */
  check(subject: string, nowMs?: number): void;
  fail(subject: string, nowMs?: number): void;
}

/** The 429's message unless a throttle names its own (the admin API's). */
const SIGN_IN_MESSAGE = 'Too many failed sign-in attempts, retry later';

/**
 * Failed authentications per subject (a client address, an email) in a fixed window: the dashboard's
 * sign-ins and the admin API's bearer token. Over the limit every attempt answers 429 until the window
 * ends, right password or token included, so guessing stays blind. In-process: each gateway instance
 * keeps its own counts (docs/dashboard.md). Bounded memory: the least recently seen subjects go first.
 */
export function createFailureThrottle(opts: { limit: number; windowMs: number; maxSubjects?: number; message?: string }): FailureThrottle {
  const message = opts.message ?? SIGN_IN_MESSAGE;
  const entries = new LRUCache<string, { count: number; resetAt: number }>({ max: opts.maxSubjects ?? 50_000 });
  const current = (subject: string, now: number) => {
    const e = entries.get(subject);
    return e && e.resetAt > now ? e : null;
  };
  return {
    check(subject, now = Date.now()) {
      const e = current(subject, now);
      if (e && e.count >= opts.limit) {
        throw new ServiceError('rate_limited', message, {
          headers: { 'Retry-After': String(Math.max(1, Math.ceil((e.resetAt - now) / 1000))) },
        });
      }
    },
    fail(subject, now = Date.now()) {
      const e = current(subject, now);
      if (e) e.count += 1;
      else entries.set(subject, { count: 1, resetAt: now + opts.windowMs });
    },
  };
}

/**
 * The subject an address is throttled as. An IPv6 client is normally handed a whole /64 (and can pick
 * any address in it), so IPv6 addresses count per /64; IPv4 addresses count one by one, and an
 * IPv4-mapped IPv6 address (`::ffff:a.b.c.d`, what a dual-stack socket reports) as its IPv4 address.
 * Different spellings of one /64 give one subject. Anything else (`unknown`) is its own subject.
 */
export function addressSubject(address: string): string {
  const plain = address.replace(/%.*$/, ''); // a zone id (fe80::1%eth0) names the interface, not the client
  if (isIPv4(plain)) return plain;
  const h = isIPv6(plain) ? hextets(plain) : null;
  if (!h) return address;
  if (h.slice(0, 5).every((x) => x === 0) && h[5] === 0xffff) {
    return [h[6]! >> 8, h[6]! & 0xff, h[7]! >> 8, h[7]! & 0xff].join('.');
  }
  return `${h.slice(0, 4).map((x) => x.toString(16)).join(':')}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, a dotted IPv4 tail converted). */
function hextets(address: string): number[] | null {
  let s = address.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    s = `${s.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = s.split('::') as [string, string | undefined];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((x) => parseInt(x, 16)));
  const left = parse(head);
  const right = tail === undefined ? [] : parse(tail);
  const groups = tail === undefined ? left : [...left, ...new Array<number>(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((x) => Number.isInteger(x) && x >= 0 && x <= 0xffff) ? groups : null;
}

/** A FailureThrottle over client addresses, grouped by addressSubject. */
export function createAddressThrottle(opts: { limit: number; windowMs: number; maxSubjects?: number; message?: string }): FailureThrottle {
  const inner = createFailureThrottle(opts);
  return {
    check: (address, now) => inner.check(addressSubject(address), now),
    fail: (address, now) => inner.fail(addressSubject(address), now),
  };
}
