import { expect } from 'chai';
import { request, type Answer, type TestGateway } from './gateway-fixture.ts';

/**
 * A browser's view of the dashboard API: it keeps the session cookie it is given and sends the CSRF
 * token on every call, as the pages do.
 */
export class DashboardClient {
  cookie: string | null = null;
  csrf: string | null = null;
  setCookie: string[] = [];

  constructor(readonly base: string) {}

  async call(method: string, p: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
    const h: Record<string, string> = { ...headers };
    if (this.cookie) h.cookie = this.cookie;
    // on every call, as the pages send it: state-changing calls and the billed playground need it
    if (this.csrf && !('x-csrf-token' in h)) h['x-csrf-token'] = this.csrf;
    if (body !== undefined) h['content-type'] = 'application/json';
    const res = await fetch(`${this.base}/dashboard/api${p}`, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body), redirect: 'manual' });
    this.setCookie = res.headers.getSetCookie();
    for (const c of this.setCookie) {
      const [pair] = c.split(';');
      if (pair!.startsWith('vis_session=') || pair!.startsWith('__Host-vis_session=')) this.cookie = pair!.endsWith('=') ? null : pair!;
    }
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    if (res.ok && parsed && typeof parsed === 'object' && 'csrf_token' in parsed) this.csrf = (parsed as { csrf_token: string }).csrf_token;
    return { status: res.status, headers: res.headers, body: parsed, text };
  }

  /** Signs in with a fresh link for the member (issued through the admin API). */
  async signInByLink(gw: TestGateway, memberId: string): Promise<Answer> {
    const link = await gw.admin.call('POST', `/members/${memberId}/sign-in-links`);
    expect(link.status, link.text).to.equal(201);
    return this.call('POST', '/sign-in/link', { token: tokenOf(link.body.url) });
  }
}

export function tokenOf(url: string): string {
  return new URL(url).hash.replace(/^#token=/, '');
}

/** Every error body is exactly {error, message}. */
export function expectError(a: Answer, status: number, code: string): void {
  expect(a.status, a.text).to.equal(status);
  expect(Object.keys(a.body ?? {}).sort(), a.text).to.deep.equal(['error', 'message']);
  expect(a.body.error).to.equal(code);
  expect(a.body.message).to.be.a('string').and.not.equal('');
}

/** An organisation with a contract, a key and a member signed in to the dashboard. */
export async function signedInCustomer(gw: TestGateway, contract: Record<string, unknown> = {}) {
  const c = await gw.admin.customer(contract);
  const member = await gw.admin.addMember(c.org, `m-${Math.random().toString(36).slice(2)}@example.com`);
  const client = new DashboardClient(gw.url);
  const a = await client.signInByLink(gw, member.id);
  expect(a.status, a.text).to.equal(200);
  return { ...c, member, client };
}

export { request };
