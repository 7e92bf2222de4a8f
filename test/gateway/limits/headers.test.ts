import { expect } from 'chai';
import { rateLimitHeaders } from '../../../gateway/limits/headers.ts';
import { createMemoryLimiter } from '../../../gateway/limits/memory-limiter.ts';
import { fakeClock } from './helpers.ts';

describe('rate-limit answer fields', () => {
  it('admitted: RateLimit-Policy and RateLimit in structured-field form, no Retry-After', async () => {
    const clock = fakeClock(Date.UTC(2031, 4, 10, 12, 0, 48)); // May: 31 days
    const l = createMemoryLimiter({ clock });
    const d = await l.consume({ keyId: 'k', orgId: 'o', rpmLimit: 60, monthlyQuota: 10_000 });
    const h = rateLimitHeaders(d, clock());
    expect(h['RateLimit-Policy']).to.equal('"minute";q=60;w=60, "month";q=10000;w=2678400');
    expect(h.RateLimit).to.equal(`"minute";r=59;t=12, "month";r=9999;t=${d.quota.resetSeconds}`);
    expect(h).to.not.have.property('Retry-After');
  });

  it('refused: Retry-After in integer seconds', async () => {
    const clock = fakeClock(Date.UTC(2031, 4, 10, 12, 0, 48));
    const l = createMemoryLimiter({ clock });
    await l.consume({ keyId: 'k', orgId: 'o', rpmLimit: 1, monthlyQuota: 10 });
    const d = await l.consume({ keyId: 'k', orgId: 'o', rpmLimit: 1, monthlyQuota: 10 });
    const h = rateLimitHeaders(d, clock());
    expect(d.reason).to.equal('rate_limited');
    expect(h['Retry-After']).to.match(/^\d+$/);
    expect(Number(h['Retry-After'])).to.equal(72); // 12 s to the next minute + the whole next minute (prev 1 must weigh 0)
    expect(h.RateLimit).to.match(/^"minute";r=0;t=12, "month";r=9;t=\d+$/);
  });
});
