// The one door to the gateway's /dashboard/api: JSON in and out, the CSRF header on every call (the
// server needs it on state-changing calls and on the playground's billed GETs), and every failure turned into an ApiError the pages can show ({error, message} bodies).

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Seconds, from Retry-After on a 429. */
    readonly retryAfter: number | null = null,
    /** When the answer arrived: a wait is counted from here, not from each time the page draws it. */
    readonly receivedAt: Date = new Date(),
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const API_BASE = '/dashboard/api';

export interface ApiClient {
  get<T>(path: string): Promise<T>;
  send<T>(method: 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T>;
  setCsrfToken(token: string | null): void;
}

/** `onUnauthorized` runs on every 401 outside the sign-in calls: the session is gone, go to sign-in. */
export function createApiClient(onUnauthorized: () => void): ApiClient {
  let csrf: string | null = null;

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    // every call: state-changing ones and the billed playground GETs (/v1) need it
    if (csrf) headers['x-csrf-token'] = csrf;
    let res: Response;
    try {
      res = await fetch(API_BASE + path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        credentials: 'same-origin',
      });
    } catch {
      throw new ApiError(0, 'network', 'The service could not be reached. Check your connection and try again.');
    }
    if (res.status === 204) return undefined as T;
    const text = await res.text();
    let json: unknown = null;
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (!res.ok) {
      const err = json as { error?: string; message?: string } | null;
      const retry = Number(res.headers.get('retry-after'));
      const e = new ApiError(
        res.status,
        err?.error ?? 'error',
        err?.message ?? `The service answered ${res.status}.`,
        Number.isFinite(retry) && retry > 0 ? retry : null,
      );
      if (res.status === 401 && !path.startsWith('/sign-in')) onUnauthorized();
      throw e;
    }
    return json as T;
  }

  return {
    get: (path) => call('GET', path),
    send: (method, path, body) => call(method, path, body),
    setCsrfToken(token) {
      csrf = token;
    },
  };
}

/** A problem the page finds in a form before sending it: its message is shown as it is. */
export class FormProblem extends Error {}

/** A sentence for any thrown value: 403 says why, 429 says when to try again. */
export function describeError(e: unknown): string {
  if (e instanceof FormProblem) return e.message;
  if (e instanceof ApiError) {
    if (e.status === 429) return `${sentence(e.message)} ${retryPhrase(e)}`;
    return e.message;
  }
  return 'Something went wrong. Please try again.';
}

/** The server's messages are phrases without a full stop: one is added where another sentence follows. */
function sentence(message: string): string {
  return /[.!?]$/.test(message) ? message : `${message}.`;
}

const DAY_MS = 86_400_000;

/**
 * When to try again, in the unit a person reads, never shorter than the wait (Retry-After is seconds).
 * A spent monthly quota waits until the next UTC month starts, days away: that day is named, the end
 * of the wait rounded to the nearest UTC midnight, so a browser clock a little behind the server's
 * does not name the day before.
 */
export function retryPhrase(e: ApiError): string {
  const s = e.retryAfter;
  if (!s) return 'Try again shortly.';
  const at = e.receivedAt.getTime() + s * 1000;
  const day = (ms: number) => new Date(ms).toLocaleString('en-GB', { day: 'numeric', month: 'long', year: 'numeric', timeZone: 'UTC' });
  if (e.code === 'quota_exceeded') return `The quota renews on ${day(Math.round(at / DAY_MS) * DAY_MS)} (UTC).`;
  const unit = (n: number, name: string) => `${n} ${name}${n === 1 ? '' : 's'}`;
  if (s < 90) return `Try again in ${unit(s, 'second')}.`;
  if (s < 90 * 60) return `Try again in ${unit(Math.ceil(s / 60), 'minute')}.`;
  if (s < 36 * 3600) return `Try again in ${unit(Math.ceil(s / 3600), 'hour')}.`;
  const when = new Date(at).toISOString().slice(11, 16);
  return `Try again on ${day(at)} at ${when} (UTC).`;
}
