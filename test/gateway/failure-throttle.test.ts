import { expect } from 'chai';
import { addressSubject, createAddressThrottle } from '../../gateway/auth/failure-throttle.ts';

const WINDOW = 60_000;
const T0 = Date.UTC(2031, 4, 10);

/** Fails `n` sign-ins from each address, then tells whether `probe` is refused. */
function refusedAfter(addresses: string[], probe: string, limit = 3): boolean {
  const t = createAddressThrottle({ limit, windowMs: WINDOW });
  for (const a of addresses) t.fail(a, T0);
  try {
    t.check(probe, T0 + 1);
    return false;
  } catch (err) {
    expect((err as { code?: string }).code).to.equal('rate_limited');
    return true;
  }
}

describe('failed-authentication throttle (dashboard sign-ins, admin API): client addresses', () => {
  it('IPv6 addresses count per /64: other addresses of the same /64 are refused, the next /64 is not', () => {
    const attacker = ['2001:db8:1:2::a', '2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2:1234::9'];
    expect(refusedAfter(attacker, '2001:db8:1:2::77')).to.equal(true);
    expect(refusedAfter(attacker, '2001:0DB8:0001:0002:0:0:0:1')).to.equal(true); // another spelling
    expect(refusedAfter(attacker, '2001:db8:1:3::a')).to.equal(false);
    expect(refusedAfter(attacker.slice(0, 2), '2001:db8:1:2::77')).to.equal(false); // under the limit
  });

  it('IPv4 addresses count one by one, and an IPv4-mapped IPv6 address as its IPv4 address', () => {
    expect(refusedAfter(['192.0.2.1', '192.0.2.1', '192.0.2.1'], '192.0.2.2')).to.equal(false);
    expect(refusedAfter(['192.0.2.1', '192.0.2.1', '192.0.2.1'], '192.0.2.1')).to.equal(true);
    expect(refusedAfter(['::ffff:192.0.2.1', '192.0.2.1', '::FFFF:c000:201'], '192.0.2.1')).to.equal(true);
    expect(refusedAfter(['::ffff:192.0.2.1', '::ffff:192.0.2.1', '::ffff:192.0.2.1'], '::ffff:192.0.2.9')).to.equal(false);
  });

  it('names the subject: IPv4 as is, IPv6 as its canonical /64, anything unparsable unchanged', () => {
    expect(addressSubject('203.0.113.7')).to.equal('203.0.113.7');
    expect(addressSubject('::ffff:203.0.113.7')).to.equal('203.0.113.7');
    expect(addressSubject('::ffff:cb00:7107')).to.equal('203.0.113.7');
    expect(addressSubject('2001:DB8::1')).to.equal('2001:db8:0:0::/64');
    expect(addressSubject('2001:db8:0:0:1::')).to.equal('2001:db8:0:0::/64');
    expect(addressSubject('::1')).to.equal('0:0:0:0::/64');
    expect(addressSubject('fe80::1%eth0')).to.equal('fe80:0:0:0::/64');
    expect(addressSubject('64:ff9b::192.0.2.1')).to.equal('64:ff9b:0:0::/64'); // a dotted tail outside ::ffff:0:0/96 stays IPv6
    expect(addressSubject('unknown')).to.equal('unknown');
  });

  it('answers the message it was made with (the admin API names its own), with Retry-After to the end of the window', () => {
    const t = createAddressThrottle({ limit: 1, windowMs: WINDOW, message: 'Too many failed authentication attempts from this address, retry later' });
    t.fail('2001:db8:5::1', T0);
    let err = null as { code?: string; message?: string; headers?: Record<string, string> } | null;
    try {
      t.check('2001:db8:5::2', T0 + 15_000); // the same /64
    } catch (e) {
      err = e as typeof err;
    }
    expect(err?.code).to.equal('rate_limited');
    expect(err?.message).to.equal('Too many failed authentication attempts from this address, retry later');
    expect(err?.headers).to.deep.equal({ 'Retry-After': '45' });
  });
});
