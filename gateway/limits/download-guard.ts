import { ServiceError, outage } from '../../shared/errors.ts';
import { elapsedInMinute, minuteCounts, minuteIndex, rpmAdmits, rpmWaitMs, type MinuteCounts } from './window.ts';

/**
 * The guard on image downloads (docs/limits.md, "Image downloads"). Downloads are not billed, but a
 * render costs the renderer far more than a /v1 call costs the gateway, so each organisation (from
 * the signed URL's grant) may have at most `concurrent` renders in flight on this gateway and at most
 * `perMinute` cache-miss renders in a sliding minute (current + previous calendar minute, weighted, as
 * for the rpm limit). A download over the concurrent limit waits for a slot, first come first served,
 * up to `queued` waiting per organisation and `waitMs` each: a page that fetches a batch answer's nine
 * pictures at once gets them all, a few at a time. A download whose picture this gateway already
 * served recently is presumed a renderer cache hit and is not held back by the minute limit; whichever
 * it turns out to be is what is counted. Over the guard (the minute spent, the wait full or too long):
 * 429 rate_limited with Retry-After; but a wait that is full or too long because no renderer can be
 * reached (its slots are held by downloads waiting for a restart) is the outage it is: 503 unavailable,
 * not counted against the organisation.
 */
export interface DownloadGuard {
  /**
   * A slot for `org` once one is free, or 429. `likelyHit`: the picture was served recently.
   * `signal`: the client went away; a waiting download leaves the queue (and the promise rejects).
   */
  admit(org: string, likelyHit: boolean, opts?: { signal?: AbortSignal; nowMs?: number }): Promise<DownloadTicket>;
  /** Renders in flight for `org` (tests, metrics). */
  inFlight(org: string): number;
  /** Downloads of `org` waiting for a slot (tests, metrics). */
  waiting(org: string): number;
  /** Renders in flight and downloads waiting, all organisations together (metrics: no label per organisation). */
  totals(): { inFlight: number; waiting: number };
}

/** Why a download was refused: its organisation's minute was spent, no room to wait, or the wait ran out. */
export type DownloadRefusal = 'minute' | 'queue_full' | 'wait_timeout';

export interface DownloadTicket {
  /** Gives the slot back; `miss` says whether the renderer had to render (counted in the minute). */
  release(miss: boolean, nowMs?: number): void;
  /** How long the download waited for its slot, in milliseconds. */
  readonly waitedMs: number;
}

export const DOWNLOAD_LIMIT_MESSAGE = 'Too many image renders for this organization, retry later';

const refused = (retryAfterSeconds: number) =>
  new ServiceError('rate_limited', DOWNLOAD_LIMIT_MESSAGE, { headers: { 'Retry-After': String(retryAfterSeconds) } });

interface Waiter {
  grant: () => void;
}

export function createDownloadGuard(opts: {
  concurrent: number;
  perMinute: number;
  queued?: number;
  waitMs?: number;
  /** Each refusal, by reason (metrics). */
  onRefused?: (reason: DownloadRefusal) => void;
  /** No renderer can be reached now (the renderer client's view): a full or timed-out wait is then a 503. */
  rendererUnreachable?: () => boolean;
  /** The clock the minute is read from (the limiter's: GatewayOptions.limitsClock); waits are timed in real time. */
  clock?: () => number;
}): DownloadGuard {
  const clock = opts.clock ?? Date.now;
  const refuse = (reason: DownloadRefusal, retryAfterSeconds: number) => {
    if ((reason === 'queue_full' || reason === 'wait_timeout') && opts.rendererUnreachable?.()) {
      return outage();
    }
    opts.onRefused?.(reason);
    return refused(retryAfterSeconds);
  };
  const maxQueued = opts.queued ?? 16;
  const waitMs = opts.waitMs ?? 10_000;
  const active = new Map<string, number>();
  const queues = new Map<string, Waiter[]>();
  const windows = new Map<string, MinuteCounts>();

  const windowOf = (org: string, now: number): MinuteCounts => minuteCounts(windows, org, minuteIndex(now));

  // the sliding minute of the rpm limit, with its arithmetic (window.ts)
  const admits = (w: MinuteCounts, now: number) => rpmAdmits(w.prev, w.curr, elapsedInMinute(now), opts.perMinute);
  const retryAfter = (w: MinuteCounts, now: number): number =>
    Math.max(1, Math.ceil(rpmWaitMs(w.prev, w.curr, elapsedInMinute(now), opts.perMinute) / 1000));

  // forget idle organisations now and then so the maps stay small
  let sweeps = 0;
  const sweep = (now: number) => {
    if (++sweeps % 1024 !== 0) return;
    const minute = minuteIndex(now);
    for (const [org, w] of windows) if (w.minute < minute - 1 && !active.get(org)) windows.delete(org);
  };

  /** A freed slot goes straight to the organisation's oldest waiter, else back. */
  const free = (org: string) => {
    const q = queues.get(org);
    const next = q?.shift();
    if (q && q.length === 0) queues.delete(org);
    if (next) next.grant();
    else {
      const n = (active.get(org) ?? 1) - 1;
      if (n <= 0) active.delete(org);
      else active.set(org, n);
    }
  };

  /** Waits for a slot the way `free` hands them over; the slot is counted as taken when granted. */
  const waitForSlot = (org: string, signal: AbortSignal | undefined): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      let q = queues.get(org);
      if (!q) queues.set(org, (q = []));
      const leave = () => {
        const i = q!.indexOf(w);
        if (i >= 0) q!.splice(i, 1);
        if (q!.length === 0 && queues.get(org) === q) queues.delete(org);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const w: Waiter = {
        grant: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = () => {
        leave();
        reject(new ServiceError('unavailable', 'The download was cancelled'));
      };
      const timer = setTimeout(() => {
        leave();
        reject(refuse('wait_timeout', 1));
      }, waitMs);
      timer.unref?.();
      signal?.addEventListener('abort', onAbort, { once: true });
      q.push(w);
    });

  return {
    async admit(org, likelyHit, { signal, nowMs } = {}) {
      const now = nowMs ?? clock();
      sweep(now);
      if (signal?.aborted) throw new ServiceError('unavailable', 'The download was cancelled');
      const running = active.get(org) ?? 0;
      const mustWait = running >= opts.concurrent;
      if (mustWait && (queues.get(org)?.length ?? 0) >= maxQueued) throw refuse('queue_full', 1);
      // the minute first: a download the minute refuses would only wait to be refused
      const w = windowOf(org, now);
      let reserved = false;
      if (!likelyHit) {
        if (!admits(w, now)) throw refuse('minute', retryAfter(w, now));
        w.curr++; // reserved now, so that concurrent misses cannot all pass the check
        reserved = true;
      }
      const reservedMinute = w.minute;
      const unreserve = (at: number) => {
        const cw = windowOf(org, at);
        if (reserved && cw.minute === reservedMinute && cw.curr > 0) cw.curr--;
      };
      const t0 = Date.now();
      if (mustWait) {
        try {
          await waitForSlot(org, signal);
        } catch (e) {
          unreserve(clock());
          throw e;
        }
      } else {
        active.set(org, running + 1);
      }
      const waitedMs = Date.now() - t0;
      let released = false;
      return {
        waitedMs,
        release(miss, at = clock()) {
          if (released) return;
          released = true;
          free(org);
          if (!miss) unreserve(at); // a hit after all (unreserve gives back only what was reserved)
          if (!reserved && miss) windowOf(org, at).curr++;
        },
      };
    },
    inFlight(org) {
      return active.get(org) ?? 0;
    },
    waiting(org) {
      return queues.get(org)?.length ?? 0;
    },
    totals() {
      let inFlight = 0;
      let waiting = 0;
      for (const n of active.values()) inFlight += n;
      for (const q of queues.values()) waiting += q.length;
      return { inFlight, waiting };
    },
  };
}
