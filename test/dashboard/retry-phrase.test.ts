import { expect } from 'chai';
import { ApiError, describeError, retryPhrase } from '../../dashboard/src/api.ts';

/** A 429 as the dashboard's API client makes it, received at `at` (the browser's clock) with Retry-After `s`. */
const tooMany = (code: string, s: number | null, at: string) => new ApiError(429, code, 'Monthly request quota exceeded for this organization', s, new Date(at));

/** Seconds from `from` to the start of the next UTC month: the gateway's Retry-After for a spent quota. */
const toNextMonth = (from: string) => {
  const d = new Date(from);
  return Math.ceil((Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) - d.getTime()) / 1000);
};

describe('dashboard: when to try again after a 429 (dashboard/src/api.ts retryPhrase)', () => {
  it('a spent monthly quota names the first day of the next UTC month, across month and year ends', () => {
    for (const [now, day] of [
      ['2026-01-31T23:59:50Z', '1 February 2026'],
      ['2028-02-28T12:00:00Z', '1 March 2028'], // a leap year: the 29th is still February
      ['2028-02-29T23:00:00Z', '1 March 2028'],
      ['2026-12-31T23:59:59.500Z', '1 January 2027'],
      ['2026-11-24T08:00:00Z', '1 December 2026'],
    ] as const) {
      expect(retryPhrase(tooMany('quota_exceeded', toNextMonth(now), now)), now).to.equal(`The quota renews on ${day} (UTC).`);
    }
  });

  it('a browser clock behind or ahead of the gateway by minutes still names the right day', () => {
    const server = '2026-11-30T23:59:30Z';
    const wait = toNextMonth(server); // 30 s
    for (const skewMs of [-5 * 60_000, -2_000, 0, 2_000, 5 * 60_000]) {
      const browser = new Date(Date.parse(server) + skewMs).toISOString();
      expect(retryPhrase(tooMany('quota_exceeded', wait, browser)), `skew ${skewMs} ms`).to.equal('The quota renews on 1 December 2026 (UTC).');
    }
  });

  it('the same error says the same thing however late the page draws it', () => {
    const e = tooMany('quota_exceeded', toNextMonth('2026-11-30T23:59:30Z'), '2026-11-30T23:59:30Z');
    const first = describeError(e);
    expect(describeError(e)).to.equal(first);
    expect(first).to.equal('Monthly request quota exceeded for this organization. The quota renews on 1 December 2026 (UTC).');
  });

  it('shorter waits are said in seconds, minutes or hours, never shorter than the wait', () => {
    const at = '2026-11-24T08:00:00Z';
    const phrase = (s: number | null) => retryPhrase(new ApiError(429, 'rate_limited', 'x', s, new Date(at)));
    expect(phrase(null)).to.equal('Try again shortly.');
    expect(phrase(1)).to.equal('Try again in 1 second.');
    expect(phrase(13)).to.equal('Try again in 13 seconds.');
    expect(phrase(89)).to.equal('Try again in 89 seconds.');
    expect(phrase(90)).to.equal('Try again in 2 minutes.');
    expect(phrase(140)).to.equal('Try again in 3 minutes.'); // 2.33 minutes: rounded up, not down
    expect(phrase(880)).to.equal('Try again in 15 minutes.');
    expect(phrase(3 * 3600 + 1)).to.equal('Try again in 4 hours.');
    expect(phrase(40 * 3600)).to.equal('Try again on 26 November 2026 at 00:00 (UTC).');
  });

  it('the server message and the wait read as two sentences', () => {
    const e = new ApiError(429, 'rate_limited', 'Requests per minute exceeded for the dashboard playground', 13, new Date());
    expect(describeError(e)).to.equal('Requests per minute exceeded for the dashboard playground. Try again in 13 seconds.');
    const dotted = new ApiError(429, 'rate_limited', 'Slow down.', 2, new Date());
    expect(describeError(dotted)).to.equal('Slow down. Try again in 2 seconds.');
  });
});
