import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'chai';
import { MESSAGES } from '../../shared/errors.ts';
import { backendLabel } from './support/backend.ts';
import { DashboardClient, expectError, signedInCustomer, tokenOf } from './support/dashboard-client.ts';
import { DASHBOARD_MAX_ACTIVE_KEYS, DASHBOARD_MAX_NEW_KEYS_PER_DAY, LISTED_REVOKED_KEYS } from '../../gateway/dashboard/keys.ts';
import { request, startTestGateway, type TestGateway } from './support/gateway-fixture.ts';
import { captureLog } from '../support/log-capture.ts';

const IMAGE_PATH = '/v1/makes/koruna/models/cargo/2020/front_left';

describe(`dashboard API (${backendLabel()})`, function () {
  this.timeout(60_000);
  let gw: TestGateway;
  let dist: string;
  before(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-dash-dist-'));
    gw = await startTestGateway({
      env: { DASHBOARD_DIST_DIR: dist, DASHBOARD_SIGN_IN_FAILURES_PER_EMAIL: '3', DASHBOARD_SIGN_IN_FAILURES_PER_ADDRESS: '1000' },
    });
  });
  after(async () => {
    await gw?.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  describe('happy', () => {
    it('the admin API issues a single-use link whose token sits in the fragment; signing in with it sets the session cookie', async () => {
      const org = await gw.admin.createOrg('Link org');
      const m = await gw.admin.addMember(org.id, 'first@example.com');
      const link = await gw.admin.call('POST', `/members/${m.id}/sign-in-links`);
      expect(link.status).to.equal(201);
      expect(Object.keys(link.body).sort()).to.deep.equal(['expires_at', 'url']);
      expect(link.body.url).to.match(/^http:\/\/localhost:\d+\/dashboard\/sign-in#token=[A-Za-z0-9_-]{43}$/);
      const ttl = (Date.parse(link.body.expires_at) - Date.now()) / 1000;
      expect(ttl).to.be.within(880, 905); // DASHBOARD_LINK_TTL_SECONDS default 900

      const client = new DashboardClient(gw.url);
      const a = await client.call('POST', '/sign-in/link', { token: tokenOf(link.body.url) });
      expect(a.status, a.text).to.equal(200);
      expect(a.body.member).to.deep.equal({ id: m.id, email: 'first@example.com', has_password: false });
      expect(a.body.csrf_token).to.match(/^[A-Za-z0-9_-]{43}$/);
      const cookie = client.setCookie.find((c) => c.startsWith('vis_session='))!;
      expect(cookie).to.match(/; HttpOnly/i);
      expect(cookie).to.match(/; SameSite=Strict/i);
      expect(cookie).to.match(/; Path=\/dashboard(;|$)/);
      expect(cookie).to.not.match(/; Secure/i); // the public base URL is http here
      expect(a.headers.get('cache-control')).to.equal('no-store');

      const s = await client.call('GET', '/session');
      expect(s.status).to.equal(200);
      expect(s.body).to.deep.equal({
        member: { id: m.id, email: 'first@example.com', has_password: false },
        organization: { id: org.id, name: 'Link org' },
        csrf_token: a.body.csrf_token,
      });
      // only a hash of the cookie's id and of the link's token is stored
      const id = client.cookie!.slice('vis_session='.length);
      expect(await gw.db.query('SELECT 1 FROM dashboard_sessions WHERE id_hash = $1', [id])).to.have.length(0);
      expect(await gw.db.query('SELECT 1 FROM sign_in_links WHERE token_hash = $1', [tokenOf(link.body.url)])).to.have.length(0);
    });

    it('behind an https public base URL the links are https and the cookie is __Host-vis_session (Secure, Path=/); a plain vis_session is not read there', async () => {
      const g2 = await startTestGateway({ db: gw.db, dataDir: gw.dataDir, seedDemo: false, env: { PUBLIC_BASE_URL: 'https://images.example.com' } });
      try {
        const org = await g2.admin.createOrg();
        const m = await g2.admin.addMember(org.id, 'tls@example.com');
        const link = await g2.admin.call('POST', `/members/${m.id}/sign-in-links`);
        expect(link.body.url).to.match(/^https:\/\/images\.example\.com\/dashboard\/sign-in#token=/);
        const client = new DashboardClient(g2.url);
        expect((await client.call('POST', '/sign-in/link', { token: tokenOf(link.body.url) })).status).to.equal(200);
        // a __Host- cookie: Secure, Path=/, no Domain, so no sibling subdomain can set or shadow it
        const cookie = client.setCookie.find((c) => c.startsWith('__Host-vis_session='))!;
        expect(cookie).to.match(/; Secure/i);
        expect(cookie).to.match(/; Path=\/(;|$)/);
        expect(cookie).to.match(/; HttpOnly/i);
        expect(cookie).to.not.match(/; Domain=/i);
        expect(client.setCookie.some((c) => c.startsWith('vis_session='))).to.equal(false);
        const id = client.cookie!.slice('__Host-vis_session='.length);
        expect((await client.call('GET', '/session')).status).to.equal(200);
        // the same id under the plain name (what a subdomain could plant) is not read behind https
        const planted = new DashboardClient(g2.url);
        planted.cookie = `vis_session=${id}`;
        expect((await planted.call('GET', '/session')).status).to.equal(401);
        const out = await client.call('POST', '/sign-out');
        expect(out.status).to.equal(204);
        expect(client.setCookie.join()).to.match(/__Host-vis_session=;.*Path=\/(;|,|$)/);
      } finally {
        await g2.close();
      }
    });

    it('the CLI prints a sign-in link that works', async () => {
      const org = await gw.admin.createOrg();
      const m = await gw.admin.addMember(org.id, 'cli@example.com');
      const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'gateway/cli/admin.ts', 'members', 'sign-in-link', m.id], {
        env: { ...process.env, ADMIN_URL: gw.url, ADMIN_TOKEN: gw.adminToken },
      });
      const url = stdout.trim();
      expect(url).to.match(/\/dashboard\/sign-in#token=/);
      const client = new DashboardClient(gw.url);
      expect((await client.call('POST', '/sign-in/link', { token: tokenOf(url) })).status).to.equal(200);
    });

    it('a member sets a password (argon2id) and signs in with it; changing it needs the current one and ends other sessions', async () => {
      const c = await signedInCustomer(gw);
      const other = new DashboardClient(gw.url);
      expect((await other.signInByLink(gw, c.member.id)).status).to.equal(200);

      expect((await c.client.call('PUT', '/password', { password: 'correct horse battery' })).status).to.equal(204);
      const [row] = await gw.db.query<{ password_hash: string }>('SELECT password_hash FROM members WHERE id = $1', [c.member.id]);
      expect(row!.password_hash).to.match(/^\$argon2id\$/);
      expect((await c.client.call('GET', '/session')).body.member.has_password).to.equal(true);
      expectError(await other.call('GET', '/session'), 401, 'unauthorized'); // the other session ended

      const p = new DashboardClient(gw.url);
      const a = await p.call('POST', '/sign-in/password', { email: c.member.email.toUpperCase(), password: 'correct horse battery' });
      expect(a.status, a.text).to.equal(200);
      expect(a.body.member).to.deep.equal({ id: c.member.id, email: c.member.email, has_password: true });
      expect((await p.call('GET', '/session')).status).to.equal(200);

      expectError(await p.call('PUT', '/password', { password: 'another long password' }), 403, 'forbidden');
      expect((await p.call('PUT', '/password', { password: 'another long password', current_password: 'correct horse battery' })).status).to.equal(204);
      expectError(await new DashboardClient(gw.url).call('POST', '/sign-in/password', { email: c.member.email, password: 'correct horse battery' }), 401, 'unauthorized');
      expect((await new DashboardClient(gw.url).call('POST', '/sign-in/password', { email: c.member.email, password: 'another long password' })).status).to.equal(200);
    });

    it('a password is compared in one Unicode form (NFKC): typed composed or decomposed, it is the same password', async () => {
      const c = await signedInCustomer(gw);
      const decomposed = 'Grüße aus Köln, Zoë'.normalize('NFD');
      expect((await c.client.call('PUT', '/password', { password: decomposed })).status).to.equal(204);
      const a = await new DashboardClient(gw.url).call('POST', '/sign-in/password', { email: c.member.email, password: decomposed.normalize('NFC') });
      expect(a.status, a.text).to.equal(200);
      // the length limits count the normalised characters: 200 accented letters (400 code units as NFD) are within 256
      expect((await c.client.call('PUT', '/password', { password: 'é'.repeat(200).normalize('NFD'), current_password: decomposed })).status).to.equal(204);
    });

    it('the contract page shows the same figures as GET /v1/me', async () => {
      const c = await signedInCustomer(gw, { categories: ['suv', 'sports'], allowed_formats: ['png', 'webp'], rpm_limit: 77, monthly_quota: 5000 });
      await gw.getWithKey(c.key, '/v1/makes');
      const me = await gw.getWithKey(c.key, '/v1/me');
      const page = await c.client.call('GET', '/contract');
      expect(page.status).to.equal(200);
      expect(page.body).to.deep.equal({ organization: me.body.organization, contract: me.body.contract, usage: me.body.usage });
      expect(page.body.usage.requests).to.equal(2); // the dashboard's own calls are not billed
      expect(page.body.contract.rpm_limit).to.equal(77);
    });

    it('keys: create (secret shown once), list, use, revoke — and /v1 refuses the revoked key at once', async () => {
      const c = await signedInCustomer(gw);
      const created = await c.client.call('POST', '/keys', { name: 'ci pipeline' });
      expect(created.status, created.text).to.equal(201);
      expect(Object.keys(created.body).sort()).to.deep.equal(['created_at', 'id', 'key', 'name', 'prefix']);
      expect(created.body.key).to.match(/^svc_live_/);
      expect(created.body.key.startsWith(created.body.prefix.replace(/…$/, ''))).to.equal(true);

      expect((await gw.getWithKey(created.body.key, '/v1/makes')).status).to.equal(200);
      const list = await c.client.call('GET', '/keys');
      expect(list.status).to.equal(200);
      const mine = list.body.keys.find((k: { id: string }) => k.id === created.body.id);
      expect(Object.keys(mine).sort()).to.deep.equal(['created_at', 'id', 'last_used_at', 'name', 'prefix', 'revoked_at']);
      expect(mine).to.include({ name: 'ci pipeline', prefix: created.body.prefix, revoked_at: null });
      expect(mine.last_used_at).to.be.a('string');
      expect(list.text).to.not.include(created.body.key); // the secret is never shown again
      expect(list.body.keys.map((k: { id: string }) => k.id)).to.include(c.keyId);

      const revoked = await c.client.call('POST', `/keys/${created.body.id}/revoke`);
      expect(revoked.status).to.equal(200);
      expect(Object.keys(revoked.body).sort()).to.deep.equal(['id', 'revoked_at']);
      expectError(await gw.getWithKey(created.body.key, '/v1/makes'), 401, 'unauthorized');
      const after = (await c.client.call('GET', '/keys')).body.keys.find((k: { id: string }) => k.id === created.body.id);
      expect(after.revoked_at).to.equal(revoked.body.revoked_at);
    });

    it('the playground mirror runs /v1 as the organisation: counted against the quota and shown in usage under no key', async () => {
      const c = await signedInCustomer(gw, { monthly_quota: 4 });
      const makes = await c.client.call('GET', '/v1/makes');
      expect(makes.status, makes.text).to.equal(200);
      expect(makes.headers.get('ratelimit')).to.match(/"month";r=3;/);
      expect(makes.body).to.deep.equal((await gw.getWithKey(c.key, '/v1/makes')).body); // same handlers, same answer
      const me = await c.client.call('GET', '/v1/me');
      expect(me.body.key).to.deep.equal({ id: null, name: null, prefix: null });
      expect(me.body.organization.id).to.equal(c.org);
      expect((await gw.admin.usage(c.org)).requests).to.equal(3);

      const usage = await c.client.call('GET', '/usage');
      expect(usage.status).to.equal(200);
      expect(usage.body.requests).to.equal(3);
      const playground = usage.body.by_key.find((k: { key_id: string | null }) => k.key_id === null);
      expect(playground).to.deep.equal({ key_id: null, name: 'dashboard', prefix: null, requests: 2 });
      expect(usage.body.by_kind.find((k: { kind: string }) => k.kind === 'account').requests).to.equal(1);

      // the quota is the organisation's: the playground's calls used it up for the keys too
      expect((await c.client.call('GET', '/v1/colors')).status).to.equal(200);
      expectError(await c.client.call('GET', '/v1/colors'), 429, 'quota_exceeded');
      expectError(await gw.getWithKey(c.key, '/v1/makes'), 429, 'quota_exceeded');
    });

    it('the playground has the per-minute limit of the contract, through the same limiter (429 rate_limited with Retry-After)', async () => {
      const c = await signedInCustomer(gw, { rpm_limit: 2 });
      expect((await c.client.call('GET', '/v1/colors')).status).to.equal(200);
      expect((await c.client.call('GET', '/v1/views')).status).to.equal(200);
      const limited = await c.client.call('GET', '/v1/makes');
      expectError(limited, 429, 'rate_limited');
      expect(limited.body.message).to.equal('Requests per minute exceeded for the dashboard playground'); // it has no key
      expect(Number(limited.headers.get('retry-after'))).to.be.within(1, 120);
      expect((await gw.admin.usage(c.org)).requests).to.equal(2); // the refused call is not counted
      expect((await gw.getWithKey(c.key, '/v1/makes')).status).to.equal(200); // the spec's window is per key
    });

    it('playground image URLs are normal signed /images URLs its organisation may download', async () => {
      const c = await signedInCustomer(gw);
      const img = await c.client.call('GET', `${IMAGE_PATH}?format=png&width=400`);
      expect(img.status, img.text).to.equal(200);
      expect(img.body.image_url).to.match(/^http:\/\/localhost:\d+\/images\/[^/]+\.png$/);
      const u = new URL(img.body.image_url);
      // the grant is accepted (no renderer in this suite: 503, not 401/403)
      expectError(await request(gw.url + u.pathname), 503, 'unavailable');
      await gw.admin.ban(c.member.id);
      expectError(await request(gw.url + u.pathname), 403, 'forbidden');
    });

    it('serves the built pages: index.html for client-side routes, assets, a strict CSP; /dashboard redirects', async () => {
      fs.mkdirSync(path.join(dist, 'assets'), { recursive: true });
      fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>Dashboard</title><script type="module" src="/dashboard/assets/app.js"></script>');
      fs.writeFileSync(path.join(dist, 'assets', 'app.js'), 'console.log(1)');
      for (const p of ['/dashboard/', '/dashboard/sign-in', '/dashboard/keys', '/dashboard/usage', '/dashboard/playground', '/dashboard/account']) {
        const a = await request(gw.url + p);
        expect(a.status, p).to.equal(200);
        expect(a.headers.get('content-type')).to.match(/^text\/html/);
        expect(a.text).to.include('<title>Dashboard</title>');
        const csp = a.headers.get('content-security-policy')!;
        expect(csp).to.include("default-src 'self'");
        expect(csp).to.include("script-src 'self'");
        expect(csp).to.not.include('unsafe-inline');
        expect(csp).to.include("frame-ancestors 'none'");
        expect(a.headers.get('x-content-type-options')).to.equal('nosniff');
      }
      const js = await request(`${gw.url}/dashboard/assets/app.js`);
      expect(js.status).to.equal(200);
      expect(js.headers.get('cache-control')).to.include('immutable');
      const r = await fetch(`${gw.url}/dashboard`, { redirect: 'manual' });
      expect(r.status).to.equal(301);
      expect(r.headers.get('location')).to.equal('/dashboard/');
      expectError(await request(`${gw.url}/dashboard/assets/missing.js`), 404, 'not_found');
      // a Range, satisfiable or not, gets the whole file: no 416 outside the error catalogue
      for (const range of ['bytes=99999-', 'bytes=0-3', 'bytes=nonsense']) {
        for (const p of ['/dashboard/assets/app.js', '/dashboard/keys']) {
          const ranged = await request(gw.url + p, { headers: { range: range } });
          expect(ranged.status, `${p} ${range}`).to.equal(200);
          expect(ranged.headers.get('accept-ranges'), `${p} ${range}`).to.equal(null);
          expect(ranged.text, `${p} ${range}`).to.equal(p.endsWith('.js') ? 'console.log(1)' : fs.readFileSync(path.join(dist, 'index.html'), 'utf8'));
        }
      }
    });
  });

  describe('errors', () => {
    it('a used or expired link is 401; a link for an unknown member is 404', async () => {
      const org = await gw.admin.createOrg();
      const m = await gw.admin.addMember(org.id, 'once@example.com');
      const link = await gw.admin.call('POST', `/members/${m.id}/sign-in-links`);
      const token = tokenOf(link.body.url);
      expect((await new DashboardClient(gw.url).call('POST', '/sign-in/link', { token })).status).to.equal(200);
      expectError(await new DashboardClient(gw.url).call('POST', '/sign-in/link', { token }), 401, 'unauthorized');

      const old = await gw.admin.call('POST', `/members/${m.id}/sign-in-links`);
      await gw.db.query("UPDATE sign_in_links SET expires_at = now() - interval '1 second' WHERE member_id = $1 AND used_at IS NULL", [m.id]);
      expectError(await new DashboardClient(gw.url).call('POST', '/sign-in/link', { token: tokenOf(old.body.url) }), 401, 'unauthorized');
      expectError(await new DashboardClient(gw.url).call('POST', '/sign-in/link', { token: 'x'.repeat(43) }), 401, 'unauthorized');
      expectError(await gw.admin.call('POST', '/members/mem_doesnotexist/sign-in-links'), 404, 'not_found');
      expectError(await gw.admin.call('POST', `/members/${m.id}/sign-in-links`, undefined, 'wrong-token-wrong-token'), 401, 'unauthorized');
    });

    it('without a session every API call is 401, the playground included', async () => {
      const client = new DashboardClient(gw.url);
      for (const p of ['/session', '/contract', '/keys', '/usage', '/v1/makes', '/nowhere']) expectError(await client.call('GET', p), 401, 'unauthorized');
      client.cookie = 'vis_session=forged';
      expectError(await client.call('GET', '/session'), 401, 'unauthorized');
    });

    it('bad bodies and parameters are 400; an unknown API path is 404', async () => {
      const c = await signedInCustomer(gw);
      expectError(await c.client.call('POST', '/keys', {}), 400, 'bad_request');
      expectError(await c.client.call('POST', '/keys', { name: '   ' }), 400, 'bad_request');
      expectError(await c.client.call('PUT', '/password', { password: 'short' }), 400, 'bad_request');
      // characters, not UTF-16 code units: six emoji are 6 characters (too short), 200 are within 256
      expectError(await c.client.call('PUT', '/password', { password: '🚗'.repeat(6) }), 400, 'bad_request');
      expectError(await c.client.call('PUT', '/password', { password: '🚗'.repeat(257) }), 400, 'bad_request');
      expectError(await c.client.call('GET', '/usage?month=2026-13'), 400, 'bad_request');
      expectError(await c.client.call('POST', '/sign-in/password', { email: 'a@example.com' }), 400, 'bad_request');
      const raw = await fetch(`${gw.url}/dashboard/api/keys`, {
        method: 'POST',
        headers: { cookie: c.client.cookie!, 'x-csrf-token': c.client.csrf!, 'content-type': 'application/json' },
        body: '{not json',
      });
      expect(raw.status).to.equal(400);
      expectError(await c.client.call('GET', '/nowhere'), 404, 'not_found');
      expectError(await c.client.call('DELETE', '/keys'), 405, 'method_not_allowed');
    });

    it('sign-out ends the session and clears the cookie', async () => {
      const c = await signedInCustomer(gw);
      const cookie = c.client.cookie!;
      const out = await c.client.call('POST', '/sign-out');
      expect(out.status).to.equal(204);
      expect(c.client.setCookie.join()).to.match(/vis_session=;.*Path=\/dashboard/);
      c.client.cookie = cookie; // a copy kept by an attacker is dead too
      expectError(await c.client.call('GET', '/session'), 401, 'unauthorized');
    });

    it('idle and absolute lifetimes end a session', async () => {
      const a = await signedInCustomer(gw);
      await gw.db.query("UPDATE dashboard_sessions SET last_seen_at = now() - interval '13 hours' WHERE member_id = $1", [a.member.id]);
      expectError(await a.client.call('GET', '/session'), 401, 'unauthorized');
      const b = await signedInCustomer(gw);
      await gw.db.query("UPDATE dashboard_sessions SET expires_at = now() - interval '1 second' WHERE member_id = $1", [b.member.id]);
      expectError(await b.client.call('GET', '/session'), 401, 'unauthorized');
    });

    it('a session lives its whole idle time after its last use, though a use within the touch interval is not written', async () => {
      // DASHBOARD_SESSION_IDLE_SECONDS 90: last_seen_at is written at most every 9 s, so a session last
      // written 95 s ago may have been used 86 s ago: still live. Written 100 s ago: 91 s unused at least, ended.
      const g2 = await startTestGateway({ db: gw.db, dataDir: gw.dataDir, seedDemo: false, env: { DASHBOARD_SESSION_IDLE_SECONDS: '90' } });
      try {
        const a = await signedInCustomer(g2);
        const setSeen = (ago: number) =>
          gw.db.query(`UPDATE dashboard_sessions SET last_seen_at = now() - $2::int * interval '1 second' WHERE member_id = $1`, [a.member.id, ago]);
        const seenAgo = async () =>
          Number((await gw.db.query<{ ago: number }>('SELECT EXTRACT(EPOCH FROM now() - last_seen_at) AS ago FROM dashboard_sessions WHERE member_id = $1', [a.member.id]))[0]!.ago);
        await setSeen(5);
        expect((await a.client.call('GET', '/session')).status).to.equal(200);
        expect(await seenAgo()).to.be.at.least(4); // within the touch interval: not written
        await setSeen(95);
        expect((await a.client.call('GET', '/session')).status).to.equal(200);
        expect(await seenAgo()).to.be.below(5); // written now
        await setSeen(100);
        expectError(await a.client.call('GET', '/session'), 401, 'unauthorized');
      } finally {
        await g2.close();
      }
    });

    it('ended sessions and spent links of a member are deleted at their next sign-in and link, not kept forever', async () => {
      const a = await signedInCustomer(gw); // one link used, one session
      const live = new DashboardClient(gw.url);
      expect((await live.signInByLink(gw, a.member.id)).status).to.equal(200); // a second link and session
      expect((await a.client.call('POST', '/sign-out')).status).to.equal(204);
      const count = async (table: string) => (await gw.db.query(`SELECT 1 FROM ${table} WHERE member_id = $1`, [a.member.id])).length;
      expect(await count('dashboard_sessions')).to.equal(2); // one live, one signed out
      const unused = await gw.admin.call('POST', `/members/${a.member.id}/sign-in-links`);
      expect(await count('sign_in_links')).to.equal(1); // the used ones went: only the new link is left
      expect((await new DashboardClient(gw.url).call('POST', '/sign-in/link', { token: tokenOf(unused.body.url) })).status).to.equal(200);
      expect(await count('dashboard_sessions')).to.equal(2); // the signed-out one went; the live one stays, with the new one
      expect((await live.call('GET', '/session')).status).to.equal(200);
    });

    it('without a built dashboard the pages answer 503 JSON', async () => {
      const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-dash-empty-'));
      const g2 = await startTestGateway({ db: gw.db, dataDir: gw.dataDir, seedDemo: false, env: { DASHBOARD_DIST_DIR: path.join(empty, 'dist') } });
      try {
        const a = await request(`${g2.url}/dashboard/keys`);
        expectError(a, 503, 'unavailable');
        expect(a.headers.get('content-type')).to.match(/^application\/json/);
      } finally {
        await g2.close();
        fs.rmSync(empty, { recursive: true, force: true });
      }
    });
  });

  describe('security', () => {
    it(`a member cannot hold more than ${DASHBOARD_MAX_ACTIVE_KEYS} active keys, even creating them at once; revoking frees a place; the operator is not capped`, async () => {
      const c = await signedInCustomer(gw);
      // the customer fixture's own key is active too; fill up to two places short through the admin API
      const active = async () => (await gw.db.query('SELECT 1 FROM api_keys WHERE org_id = $1 AND revoked_at IS NULL', [c.org])).length;
      for (let n = await active(); n < DASHBOARD_MAX_ACTIVE_KEYS - 2; n++) await gw.admin.createKey(c.org, `fill ${n}`);
      const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => c.client.call('POST', '/keys', { name: `race ${i}` })));
      expect(answers.map((a) => a.status).sort()).to.deep.equal([201, 201, 403, 403, 403, 403]);
      for (const a of answers.filter((x) => x.status === 403)) expectError(a, 403, 'forbidden');
      expect(answers.find((a) => a.status === 403)!.body.message).to.equal(
        `An organization can have at most ${DASHBOARD_MAX_ACTIVE_KEYS} active keys; revoke one to create another`,
      );
      expect(await active()).to.equal(DASHBOARD_MAX_ACTIVE_KEYS);
      const made = answers.find((a) => a.status === 201)!.body as { id: string };
      expect((await c.client.call('POST', `/keys/${made.id}/revoke`)).status).to.equal(200);
      expect((await c.client.call('POST', '/keys', { name: 'after revoke' })).status).to.equal(201);
      expectError(await c.client.call('POST', '/keys', { name: 'one too many' }), 403, 'forbidden');
      // the operator's admin API has no cap
      await gw.admin.createKey(c.org, 'operator');
      expect(await active()).to.equal(DASHBOARD_MAX_ACTIVE_KEYS + 1);
    });

    it(`creating and revoking cannot grow the key table without bound: ${DASHBOARD_MAX_NEW_KEYS_PER_DAY} new keys a day, and the list shows ${LISTED_REVOKED_KEYS} revoked keys at most`, async () => {
      const c = await signedInCustomer(gw);
      // keys made and revoked earlier today (and some yesterday, which do not count), straight into the table
      const insert = (n: number, prefix: string, createdAt: string) =>
        gw.db.query(
          `INSERT INTO api_keys (id, org_id, name, prefix, key_hash, secret_id, created_at, revoked_at)
           SELECT $2 || g, $1, 'old', 'svc_live_old', $2 || 'hash' || g, 'test', ${createdAt}, ${createdAt}
             FROM generate_series(1, $3) g`,
          [c.org, `${prefix}_${c.org}_`, n],
        );
      await insert(50, 'yday', "now() - interval '2 days'");
      const madeToday = (await gw.db.query<{ n: number }>("SELECT count(*)::int AS n FROM api_keys WHERE org_id = $1 AND created_at > now() - interval '1 day'", [c.org]))[0]!.n;
      await insert(DASHBOARD_MAX_NEW_KEYS_PER_DAY - madeToday - 1, 'today', 'now()');
      expect((await c.client.call('POST', '/keys', { name: 'the last one today' })).status).to.equal(201);
      const refused = await c.client.call('POST', '/keys', { name: 'one more' });
      expectError(refused, 403, 'forbidden');
      expect(refused.body.message).to.equal(`An organization can create at most ${DASHBOARD_MAX_NEW_KEYS_PER_DAY} keys a day; retry tomorrow`);
      const keys = (await c.client.call('GET', '/keys')).body.keys as { revoked_at: string | null }[];
      expect(keys.filter((k) => k.revoked_at !== null)).to.have.length(LISTED_REVOKED_KEYS);
      expect(keys.filter((k) => k.revoked_at === null)).to.have.length(2); // the fixture's key and the last one
    });

    it('state-changing calls need the session CSRF token: missing or wrong is 403', async () => {
      const c = await signedInCustomer(gw);
      expectError(await c.client.call('POST', '/keys', { name: 'x' }, { 'x-csrf-token': '' }), 403, 'forbidden');
      expectError(await c.client.call('POST', '/keys', { name: 'x' }, { 'x-csrf-token': 'A'.repeat(43) }), 403, 'forbidden');
      const other = await signedInCustomer(gw);
      expectError(await c.client.call('POST', '/keys', { name: 'x' }, { 'x-csrf-token': other.client.csrf! }), 403, 'forbidden');
      expectError(await c.client.call('POST', '/sign-out', undefined, { 'x-csrf-token': '' }), 403, 'forbidden');
      expectError(await c.client.call('PUT', '/password', { password: 'long enough password' }, { 'x-csrf-token': '' }), 403, 'forbidden');
      expect((await c.client.call('GET', '/keys')).body.keys).to.have.length(1); // nothing was created
      expectError(await c.client.call('POST', `/keys/${c.keyId}/revoke`, undefined, { 'x-csrf-token': '' }), 403, 'forbidden');
      expect((await gw.getWithKey(c.key, '/v1/makes')).status).to.equal(200); // not revoked
    });

    it('the playground mirror is billed, so its GETs need the CSRF token too: a same-site <img> or link cannot spend the quota', async () => {
      const c = await signedInCustomer(gw);
      expectError(await c.client.call('GET', '/v1/makes', undefined, { 'x-csrf-token': '' }), 403, 'forbidden');
      expectError(await c.client.call('GET', `${IMAGE_PATH}?format=png`, undefined, { 'x-csrf-token': 'A'.repeat(43) }), 403, 'forbidden');
      expect((await gw.admin.usage(c.org)).requests).to.equal(0); // refused before the limiter: not billed
      expect((await c.client.call('GET', '/v1/makes')).status).to.equal(200);
      expect((await gw.admin.usage(c.org)).requests).to.equal(1);
      expect((await c.client.call('GET', '/keys', undefined, { 'x-csrf-token': '' })).status).to.equal(200); // free reads need none
    });

    it('a cross-origin Origin is refused even with the right token, and so is a cross-site sign-in', async () => {
      const c = await signedInCustomer(gw);
      expectError(await c.client.call('POST', '/keys', { name: 'x' }, { origin: 'https://evil.example' }), 403, 'forbidden');
      expectError(await c.client.call('POST', '/keys', { name: 'x' }, { 'sec-fetch-site': 'cross-site' }), 403, 'forbidden');
      expect((await c.client.call('POST', '/keys', { name: 'x' }, { origin: gw.url })).status).to.equal(201);
      const m = await gw.admin.addMember(c.org, 'xsite@example.com');
      const link = await gw.admin.call('POST', `/members/${m.id}/sign-in-links`);
      expectError(await new DashboardClient(gw.url).call('POST', '/sign-in/link', { token: tokenOf(link.body.url) }, { origin: 'https://evil.example' }), 403, 'forbidden');
      // login CSRF without an Origin (an old browser): a form can only send form or text/plain bodies, never
      // JSON, and those are refused by type (415) even when they hold JSON (the admin API, token-authenticated, reads them)
      for (const [type, body] of [
        ['text/plain', JSON.stringify({ token: tokenOf(link.body.url) })],
        ['application/x-www-form-urlencoded', JSON.stringify({ token: tokenOf(link.body.url) })],
        ['application/x-www-form-urlencoded', `token=${tokenOf(link.body.url)}`],
      ]) {
        const r = await fetch(`${gw.url}/dashboard/api/sign-in/link`, { method: 'POST', headers: { 'content-type': type! }, body });
        expect(r.status, type).to.equal(415);
        expect(r.headers.getSetCookie()).to.deep.equal([]);
      }
      expect((await new DashboardClient(gw.url).call('POST', '/sign-in/link', { token: tokenOf(link.body.url) })).status).to.equal(200); // not spent
    });

    it('failed password sign-ins are throttled per email: 429 with Retry-After, right password included', async () => {
      const c = await signedInCustomer(gw);
      await c.client.call('PUT', '/password', { password: 'the right password' });
      const p = new DashboardClient(gw.url);
      for (let i = 0; i < 3; i++) expectError(await p.call('POST', '/sign-in/password', { email: c.member.email, password: `wrong password ${i}` }), 401, 'unauthorized');
      const t = await p.call('POST', '/sign-in/password', { email: c.member.email, password: 'the right password' });
      expectError(t, 429, 'rate_limited');
      expect(Number(t.headers.get('retry-after'))).to.be.within(1, 900);
    });

    it('failed sign-ins are throttled per client address', async () => {
      const g2 = await startTestGateway({ db: gw.db, dataDir: gw.dataDir, seedDemo: false, env: { DASHBOARD_SIGN_IN_FAILURES_PER_ADDRESS: '4' } });
      try {
        const p = new DashboardClient(g2.url);
        for (let i = 0; i < 2; i++) expectError(await p.call('POST', '/sign-in/link', { token: `bad-${i}` }), 401, 'unauthorized');
        for (let i = 0; i < 2; i++) expectError(await p.call('POST', '/sign-in/password', { email: `nobody${i}@example.com`, password: 'whatever it is' }), 401, 'unauthorized');
        const t = await p.call('POST', '/sign-in/link', { token: 'bad-again' });
        expectError(t, 429, 'rate_limited');
        expect(t.headers.get('retry-after')).to.match(/^\d+$/);
      } finally {
        await g2.close();
      }
    });

    it('a ban ends every session of the organisation at once, refuses sign-in (403) and new links; sessions stay dead after unban', async () => {
      const c = await signedInCustomer(gw);
      const colleague = await gw.admin.addMember(c.org, 'colleague@example.com');
      await c.client.call('PUT', '/password', { password: 'password before the ban' });
      await gw.admin.ban(colleague.id); // another member of the organisation
      expectError(await c.client.call('GET', '/session'), 401, 'unauthorized');
      expectError(await c.client.call('GET', '/v1/makes'), 401, 'unauthorized');
      expect(await gw.db.query('SELECT 1 FROM dashboard_sessions WHERE org_id = $1', [c.org])).to.have.length(0);

      const linkWhileBanned = await gw.admin.call('POST', `/members/${c.member.id}/sign-in-links`);
      expectError(linkWhileBanned, 403, 'forbidden');
      expect(linkWhileBanned.body.message).to.equal(MESSAGES.banned);
      const pw = await new DashboardClient(gw.url).call('POST', '/sign-in/password', { email: c.member.email, password: 'password before the ban' });
      expectError(pw, 403, 'forbidden');
      expect(pw.body.message).to.equal(MESSAGES.banned);

      await gw.admin.unban(colleague.id);
      expectError(await c.client.call('GET', '/session'), 401, 'unauthorized');
      expect((await new DashboardClient(gw.url).signInByLink(gw, c.member.id)).status).to.equal(200);
    });

    it('a link issued before the ban is refused with 403 after it', async () => {
      const c = await signedInCustomer(gw);
      const link = await gw.admin.call('POST', `/members/${c.member.id}/sign-in-links`);
      await gw.admin.ban(c.member.id);
      const a = await new DashboardClient(gw.url).call('POST', '/sign-in/link', { token: tokenOf(link.body.url) });
      expectError(a, 403, 'forbidden');
      expect(a.body.message).to.equal(MESSAGES.banned);
    });

    it('the session check reads the ban from the database, so a ban written by another instance applies at once', async () => {
      const c = await signedInCustomer(gw);
      const colleague = await gw.admin.addMember(c.org, 'elsewhere@example.com');
      // what another gateway instance's ban leaves in the shared database, before any of its deletes
      await gw.db.query('UPDATE members SET banned = true WHERE id = $1', [colleague.id]);
      expectError(await c.client.call('GET', '/keys'), 401, 'unauthorized');
    });

    it('two simultaneous sign-ins with one link: exactly one session is made', async () => {
      const org = await gw.admin.createOrg();
      const m = await gw.admin.addMember(org.id, 'race@example.com');
      const link = await gw.admin.call('POST', `/members/${m.id}/sign-in-links`);
      const token = tokenOf(link.body.url);
      const answers = await Promise.all(Array.from({ length: 6 }, () => new DashboardClient(gw.url).call('POST', '/sign-in/link', { token })));
      expect(answers.map((a) => a.status).sort()).to.deep.equal([200, 401, 401, 401, 401, 401]);
      expect(await gw.db.query('SELECT 1 FROM dashboard_sessions WHERE member_id = $1', [m.id])).to.have.length(1);
    });

    it('no secret of a sign-in reaches the log: link token, session cookie, CSRF token, passwords, the new key', async () => {
      const captured = captureLog();
      const g2 = await startTestGateway({ db: gw.db, dataDir: gw.dataDir, seedDemo: false, logger: captured.logger('test-gateway') });
      try {
        const c = await signedInCustomer(g2);
        const link = await g2.admin.call('POST', `/members/${c.member.id}/sign-in-links`);
        const token = tokenOf(link.body.url);
        const b = new DashboardClient(g2.url);
        expect((await b.call('POST', '/sign-in/link', { token })).status).to.equal(200);
        expect((await b.call('PUT', '/password', { password: 'a secret password 1' })).status).to.equal(204);
        expectError(await new DashboardClient(g2.url).call('POST', '/sign-in/password', { email: c.member.email, password: 'a wrong password 2' }), 401, 'unauthorized');
        const created = await b.call('POST', '/keys', { name: 'logged?' });
        expect(created.status).to.equal(201);
        expect((await b.call('GET', '/v1/makes')).status).to.equal(200);
        expectError(await b.call('POST', '/keys', { name: 'x' }, { 'x-csrf-token': 'wrong' }), 403, 'forbidden');
        expect(await b.call('POST', '/sign-out')).to.include({ status: 204 });
        const log = captured.text();
        expect(log).to.include('/dashboard/api/sign-in/link'); // the calls were logged
        const secrets = [token, b.csrf!, c.client.cookie!.slice('vis_session='.length), 'a secret password 1', 'a wrong password 2', created.body.key];
        for (const secret of secrets) expect(log.includes(secret), `log holds ${secret}`).to.equal(false);
      } finally {
        await g2.close();
      }
    });

    it('a member sees only their own organisation: another organisation\'s key is not found and keeps working', async () => {
      const a = await signedInCustomer(gw);
      const b = await signedInCustomer(gw);
      expectError(await a.client.call('POST', `/keys/${b.keyId}/revoke`), 404, 'not_found');
      expect((await gw.getWithKey(b.key, '/v1/makes')).status).to.equal(200);
      const ids = (await a.client.call('GET', '/keys')).body.keys.map((k: { id: string }) => k.id);
      expect(ids).to.deep.equal([a.keyId]);
      expect((await a.client.call('GET', '/contract')).body.organization.id).to.equal(a.org);
      expect((await a.client.call('GET', '/v1/me')).body.organization.id).to.equal(a.org);
    });
  });
});
