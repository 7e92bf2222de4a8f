import { ServiceError } from '../../shared/errors.ts';
import { elapsedInMinute, minuteCounts, minuteIndex, rpmAdmits, rpmWaitMs, type MinuteCounts } from './window.ts';

/**
 * The guard on image downloads (docs/limits.md, "Image downloads"). Downloads are not billed, but a
 * render costs the renderer far more than a /v1 call costs the gateway, so each organisation (from
 * the signed URL's grant) may have at most `concurrent` renders in flight on this gateway and at most
 * `perMinute` cache-miss renders in a sliding minute (current + previous calendar minute, weighted, as
 * for the rpm limit). A download whose picture this gateway already served recently is presumed a
 * renderer cache hit and is not held back by the minute limit; whichever it turns out to be is what
 * is counted. Over the guard: 429 rate_limited with Retry-After.
 */
export interface DownloadGuard {
  /** Takes a slot for `org` or throws 429. `likelyHit`: the picture was served recently. */
  admit(org: string, likelyHit: boolean, nowMs?: number): DownloadTicket;
  /** Renders in flight for `org` (tests, metrics). */
  inFlight(org: string): number;
}

export interface DownloadTicket {
  /** Gives the slot back; `miss` says whether the renderer had to render (counted in the minute). */
  release(miss: boolean, nowMs?: number): void;
}


export const DOWNLOAD_LIMIT_MESSAGE = 'Too many image renders for this organization, retry later';

export function createDownloadGuard(opts: { concurrent: number; perMinute: number }): DownloadGuard {
  const active = new Map<string, number>();
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

  return {
    admit(org, likelyHit, now = Date.now()) {
      sweep(now);
      const running = active.get(org) ?? 0;
      if (running >= opts.concurrent) {
        throw new ServiceError('rate_limited', DOWNLOAD_LIMIT_MESSAGE, { headers: { 'Retry-After': '1' } });
      }
      const w = windowOf(org, now);
      let reserved = false;
      if (!likelyHit) {
        if (!admits(w, now)) {
          throw new ServiceError('rate_limited', DOWNLOAD_LIMIT_MESSAGE, { headers: { 'Retry-After': String(retryAfter(w, now)) } });
        }
        w.curr++; // reserved now, so that concurrent misses cannot all pass the check
        reserved = true;
      }
      active.set(org, running + 1);
      const reservedMinute = w.minute;
      let released = false;
      return {
        release(miss, at = Date.now()) {
          if (released) return;
          released = true;
          const n = (active.get(org) ?? 1) - 1;
          if (n <= 0) active.delete(org);
          else active.set(org, n);
          const cw = windowOf(org, at);
          if (reserved && !miss && cw.minute === reservedMinute && cw.curr > 0) cw.curr--; // a hit after all
          if (!reserved && miss) cw.curr++;
        },
      };
    },
    inFlight(org) {
      return active.get(org) ?? 0;
    },
  };
}
