import dns from 'node:dns';
import net from 'node:net';

/**
 * Where a webhook may be sent (docs/events.md, "Safety"): https only, and never to a private,
 * loopback, link-local or otherwise non-public address, checked on the name's resolved addresses
 * both when the endpoint is created and at every delivery (the delivery connects to the very
 * address it checked, so a DNS answer that changes in between cannot reach an internal host).
 */
const BLOCKED = new net.BlockList();
for (const [net4, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24],
  ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) BLOCKED.addSubnet(net4, bits, 'ipv4');
for (const [net6, bits] of [
  ['::', 96], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) BLOCKED.addSubnet(net6, bits, 'ipv6');

/** Whether an IP address (v4 or v6, an IPv4-mapped v6 by its v4) is one a webhook must not reach. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
  if (mapped) return isPrivateAddress(mapped[1]!);
  const family = net.isIP(bare);
  if (family === 0) return true; // not an address: nothing to vouch for
  return BLOCKED.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

export class TargetRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TargetRefused';
  }
}

export interface TargetPolicy {
  /** WEBHOOK_ALLOW_PRIVATE_TARGETS: http and private addresses allowed (development, tests). */
  allowPrivate: boolean;
  /** Name resolution (default dns.lookup, every address); tests answer a name with chosen addresses. */
  resolve?: (host: string) => Promise<string[]>;
}

const defaultResolve = async (host: string) => (await dns.promises.lookup(host, { all: true, verbatim: true })).map((a) => a.address);

/** The URL as parsed, or TargetRefused with a message fit for the caller (creation) or the log (delivery). */
export function checkUrlShape(raw: string, policy: TargetPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TargetRefused('url must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(policy.allowPrivate && url.protocol === 'http:')) throw new TargetRefused('url must use https');
  if (url.username || url.password) throw new TargetRefused('url must not carry credentials');
  if (!url.hostname) throw new TargetRefused('url must name a host');
  return url;
}

/**
 * The addresses `url`'s host resolves to, all of them public (or anything, with allowPrivate).
 * A host that resolves to one private address among public ones is refused: the connection could
 * pick it.
 */
export async function vetAddresses(url: URL, policy: TargetPolicy): Promise<string[]> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  if (net.isIP(host)) addresses = [host];
  else {
    try {
      addresses = await (policy.resolve ?? defaultResolve)(host);
    } catch {
      throw new TargetRefused(`url's host ${host} could not be resolved`);
    }
    if (addresses.length === 0) throw new TargetRefused(`url's host ${host} could not be resolved`);
  }
  if (!policy.allowPrivate && addresses.some(isPrivateAddress)) {
    throw new TargetRefused('url must not point at a private, loopback or link-local address');
  }
  return addresses;
}

/** The creation-time check: shape and addresses. */
export async function checkTarget(raw: string, policy: TargetPolicy): Promise<URL> {
  const url = checkUrlShape(raw, policy);
  await vetAddresses(url, policy);
  return url;
}
