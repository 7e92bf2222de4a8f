import { expect } from 'chai';
import net from 'node:net';
import { startTestGateway, request, type TestGateway } from './support/gateway-fixture.ts';
import { expectErrorBody, rawRequest } from './support/raw-http.ts';

describe('hardening (real gateway on port 0)', function () {
  this.timeout(60_000);
  let gw: TestGateway;
  let key: string;

  before(async () => {
    gw = await startTestGateway({ env: { ADMIN_AUTH_FAILURES_PER_MINUTE: '5' } });
    key = (await gw.admin.customer({ rpm_limit: 1_000_000, monthly_quota: 2_000_000_000 })).key;
  });
  after(async () => {
    await gw?.close();
  });

  describe('path parameters outside their alphabets never reach SQL', () => {
    for (const p of ['/v1/makes/%00', '/v1/makes/a%00b/models', '/v1/makes/aurelia/models/%00', '/v1/makes/aurelia/models/vento/%00', '/v1/makes/aurelia/models/vento/2024/%00', '/v1/makes/aurelia/models/vento/2024/base/%00', "/v1/makes/a'b", '/v1/makes/%C3%A9', '/v1/makes/' + 'a'.repeat(300)]) {
      it(`GET ${p.slice(0, 60)} → 404 JSON`, async () => {
        const a = await gw.getWithKey(key, p);
        expect(a.status).to.equal(404);
        expectErrorBody(a.text, p);
      });
    }
    for (const p of ['/organizations/%00', '/organizations/%00/contract', '/organizations/org_x%00/usage', '/vehicles/%00/views/front', '/keys/%00/revoke', '/members/%27%3B/ban']) {
      it(`admin ${p} → 404 JSON`, async () => {
        const method = p.endsWith('revoke') || p.endsWith('ban') ? 'POST' : p.startsWith('/vehicles') ? 'PATCH' : 'GET';
        const a = await gw.admin.call(method, p, method === 'GET' ? undefined : { published: true });
        expect(a.status, p).to.equal(404);
        expectErrorBody(a.text, p);
      });
    }
    it('search with a NUL byte is 400, not 500; a C1 control (NEL) too', async () => {
      const a = await gw.getWithKey(key, '/v1/search?q=ab%00c');
      expect(a.status).to.equal(400);
      expectErrorBody(a.text, 'search NUL');
      const c1 = await gw.getWithKey(key, '/v1/search?q=a%C2%85b');
      expect(c1.status).to.equal(400);
      expect(expectErrorBody(c1.text, 'search C1').message).to.equal('Parameter q contains control characters');
    });
  });

  describe('image tokens', () => {
    const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT', kid: 'k1' })).toString('base64url');
    for (const t of [`${header}.eyJhIjo.x`, `eyJhIjo.eyJhIjo.x`, `${header}.${Buffer.from('[1,2').toString('base64url')}.sig`, `${header}.e30.x`, 'a.b.c', `${header}.${Buffer.from('null').toString('base64url')}.x`]) {
      it(`/images/${t.slice(0, 40)}….webp → 4xx JSON`, async () => {
        const a = await gw.get(`/images/${t}.webp`);
        expect(a.status).to.be.within(400, 499);
        expectErrorBody(a.text, t);
      });
    }
  });

  describe('parser-level errors answer JSON (raw bytes on a socket)', () => {
    const cases: [string, string | Buffer, number][] = [
      ['control byte in the path', 'GET /v1/\x01colors HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      ['space in the path', 'GET /v1/co lors HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      ['invalid method', 'G@T /v1 HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      ['bad HTTP version', 'GET /v1 HTTP/9.Z\r\nHost: x\r\n\r\n', 400],
      ['garbage', '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03', 400],
      ['bad chunk size', 'POST /admin/v1/organizations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer TOKEN\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\nabc\r\n0\r\n\r\n', 400],
      ['Content-Length and Transfer-Encoding', 'POST /v1 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400],
      ['two different Content-Lengths', 'POST /v1 HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd', 400],
      ['invalid header name', 'GET /v1 HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n', 400],
      ['NUL in a header value', 'GET /v1 HTTP/1.1\r\nHost: x\r\nX-A: a\x00b\r\n\r\n', 400],
      ['headers over the limit', `GET /v1 HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`, 431],
      ['URL over the header limit', `GET /v1/${'a'.repeat(70_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
    ];
    for (const [name, bytes, status] of cases) {
      it(`${name} → ${status} {error, message}`, async () => {
        const a = await rawRequest(gw.port, typeof bytes === 'string' ? bytes.replace('TOKEN', gw.adminToken) : bytes);
        expect(a.status, a.raw.slice(0, 200)).to.equal(status);
        expect(a.headers['content-type']).to.match(/^application\/json/);
        expect(Number(a.headers['content-length'])).to.equal(Buffer.byteLength(a.body));
        expect(a.headers['cache-control'], 'an error answer no cache may keep').to.equal('no-store');
        const b = expectErrorBody(a.body, name);
        if (status === 431) expect(b.error).to.equal('headers_too_large');
      });
    }
  });

  describe("what Node's HTTP server would answer by itself is answered as the service does (raw bytes)", () => {
    // a gateway of its own: a wrong admin token below must not count towards the throttle tested further down
    let gw: TestGateway;
    let key: string;
    before(async () => {
      gw = await startTestGateway();
      key = (await gw.admin.customer({ rpm_limit: 1_000_000, monthly_quota: 2_000_000_000 })).key;
    });
    after(async () => {
      await gw?.close();
    });
    it('HTTP/1.1 without Host → 400 JSON (Node sent an empty body)', async () => {
      const a = await rawRequest(gw.port, 'GET /v1 HTTP/1.1\r\n\r\n');
      expect(a.status, a.raw.slice(0, 200)).to.equal(400);
      expect(expectErrorBody(a.body, 'no Host').message).to.equal('The request has no Host header');
      // HTTP/1.0 has no Host requirement
      const old = await rawRequest(gw.port, 'GET /v1 HTTP/1.0\r\n\r\n');
      expect(old.raw).to.match(/^HTTP\/1\.1 200 /);
    });
    it('two Host lines or a Host that is not a host → 400 JSON (RFC 9112 §3.2); usual forms pass', async () => {
      const bad: [string, string][] = [
        ['Host: a\r\nHost: b\r\n', 'The request has more than one Host header'],
        ['Host: x\r\nhost: x\r\n', 'The request has more than one Host header'],
        ['Host: a/b@c\r\n', 'The request has an invalid Host header'],
        ['Host: user@example.com\r\n', 'The request has an invalid Host header'],
        ['Host: example.com:80x\r\n', 'The request has an invalid Host header'],
      ];
      for (const [lines, message] of bad) {
        const a = await rawRequest(gw.port, `GET /v1 HTTP/1.1\r\n${lines}\r\n`);
        expect(a.status, lines).to.equal(400);
        expect(expectErrorBody(a.body, lines).message, lines).to.equal(message);
      }
      for (const host of ['localhost', 'localhost:8080', 'api.example.com', 'api.example.com.', '127.0.0.1:9', '[::1]:8080', '[fe80::1%25eth0]:8080', 'xn--bcher-kva.example', '']) {
        const a = await rawRequest(gw.port, `GET /v1 HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
        expect(a.status, `Host: ${host}`).to.equal(200);
      }
    });
    it('an expectation other than 100-continue is ignored (RFC 9110 allows it), not a bare 417', async () => {
      const a = await rawRequest(gw.port, 'GET /v1 HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n');
      expect(a.status, a.raw.slice(0, 200)).to.equal(200);
    });
    it('CONNECT → 405 JSON instead of a closed socket', async () => {
      const a = await rawRequest(gw.port, 'CONNECT evil.example:443 HTTP/1.1\r\nHost: evil.example:443\r\n\r\n');
      expect(a.status, a.raw.slice(0, 200)).to.equal(405);
      expect(expectErrorBody(a.body, 'CONNECT').error).to.equal('method_not_allowed');
    });
    it('Expect: 100-continue gets no 100 before the admin token is checked; with the right token, 100 and then the answer', async () => {
      const head = (token: string) =>
        `POST /admin/v1/organizations HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 19\r\nExpect: 100-continue\r\n\r\n`;
      const wrong = await rawRequest(gw.port, head('wrong-token'));
      expect(wrong.raw).not.to.contain('100 Continue');
      expect(wrong.status).to.equal(401);
      const answer = await new Promise<string>((resolve) => {
        const socket = net.connect(gw.port, '127.0.0.1');
        let raw = '';
        socket.on('connect', () => socket.write(head(gw.adminToken)));
        socket.on('data', (d) => {
          const before = raw;
          raw += d.toString('latin1');
          if (!before.includes('100 Continue') && raw.includes('100 Continue')) socket.write('{"name":"continue"}');
          if (/\r\n\r\n\{.*\}$/s.test(raw)) socket.destroy();
        });
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(raw));
        setTimeout(() => socket.destroy(), 5000);
      });
      expect(answer).to.match(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
    });
    it('requests pipelined ahead of a malformed one are all answered, in order, before its 400', async () => {
      const get = `GET /v1/makes HTTP/1.1\r\nHost: x\r\nx-api-key: ${key}\r\n\r\n`;
      // read until the server closes (rawRequest stops at the first complete answer)
      const raw = await new Promise<string>((resolve) => {
        const socket = net.connect(gw.port, '127.0.0.1');
        let got = '';
        socket.on('connect', () => socket.write(get.repeat(5) + 'G\x01T / HTTP/1.1\r\n\r\n'));
        socket.on('data', (d) => (got += d.toString('latin1')));
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(got));
        setTimeout(() => socket.destroy(), 10_000);
      });
      const statuses = [...raw.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
      expect(statuses, raw.slice(0, 300)).to.deep.equal([200, 200, 200, 200, 200, 400]);
      expectErrorBody(raw.slice(raw.lastIndexOf('\r\n\r\n') + 4), 'pipelined 400');
    });
  });

  describe('405 for a known path and a wrong method', () => {
    it('DELETE /v1/colors → 405 with Allow', async () => {
      const a = await request(`${gw.url}/v1/colors`, { method: 'DELETE', headers: { 'x-api-key': key } });
      expect(a.status).to.equal(405);
      expect(a.headers.get('allow')).to.equal('GET, HEAD, OPTIONS');
      expect(expectErrorBody(a.text, '405').error).to.equal('method_not_allowed');
    });
    it('the 405 message names the methods of Allow, and no cache may keep it', async () => {
      for (const [m, p, headers] of [['POST', '/v1/makes', { 'x-api-key': key }], ['PUT', '/images/abc.webp', {}], ['POST', '/healthz', {}]] as const) {
        const a = await request(`${gw.url}${p}`, { method: m, headers });
        expect(a.status, `${m} ${p}`).to.equal(405);
        expect(expectErrorBody(a.text, p).message).to.equal(`Method ${m} is not allowed here; use ${a.headers.get('allow')}`);
        expect(a.headers.get('cache-control'), `${m} ${p}`).to.equal('no-store');
      }
    });
    it('every /v1 answer and every refusal carries Cache-Control: no-store (they are the key\'s own)', async () => {
      const answers = [
        await gw.getWithKey(key, '/v1/makes'),
        await gw.getWithKey(key, '/v1/me'),
        await gw.get('/v1/makes'),
        await gw.getWithKey(key, '/v1/nowhere'),
        await gw.get('/v1'),
        await gw.get('/nowhere'),
        await gw.get('/images/abc.webp'),
      ];
      expect(answers.map((a) => a.status)).to.deep.equal([200, 200, 401, 404, 200, 404, 400]);
      for (const a of answers) expect(a.headers.get('cache-control'), `${a.status} ${a.text.slice(0, 80)}`).to.equal('no-store');
    });
    it('POST /healthz and PUT /images/x → 405 with Allow', async () => {
      for (const [m, p] of [['POST', '/healthz'], ['PUT', '/images/abc.webp'], ['DELETE', '/readyz']]) {
        const a = await request(`${gw.url}${p}`, { method: m });
        expect(a.status, `${m} ${p}`).to.equal(405);
        expect(a.headers.get('allow')).to.contain('GET');
        expectErrorBody(a.text, `${m} ${p}`);
      }
    });
    it('admin: DELETE /admin/v1/categories → 405 (after the token)', async () => {
      const a = await gw.admin.call('DELETE', '/categories');
      expect(a.status).to.equal(405);
      expect(a.headers.get('allow')).to.equal('GET, HEAD, OPTIONS');
      expectErrorBody(a.text, 'admin 405');
    });
    it('the key-less root /v1: another method is 405 with Allow (not 401)', async () => {
      for (const m of ['PUT', 'POST', 'DELETE']) {
        const a = await request(`${gw.url}/v1`, { method: m });
        expect(a.status, m).to.equal(405);
        expect(a.headers.get('allow')).to.equal('GET, HEAD, OPTIONS');
        expect(expectErrorBody(a.text, `${m} /v1`).error).to.equal('method_not_allowed');
      }
    });
    it('a plain OPTIONS (no CORS preflight) is 204 with Allow and no body, on every kind of route', async () => {
      const cases: [string, Record<string, string>, string][] = [
        ['/v1', {}, 'GET, HEAD, OPTIONS'],
        ['/docs/openapi.json', {}, 'GET, HEAD, OPTIONS'],
        ['/v1/makes', { 'x-api-key': key }, 'GET, HEAD, OPTIONS'],
        ['/v1/makes/aurelia/models', { 'x-api-key': key }, 'GET, HEAD, OPTIONS'],
        ['/v1/search', { 'x-api-key': key }, 'GET, HEAD, OPTIONS'],
        ['/v1/colors', { 'x-api-key': key }, 'GET, HEAD, OPTIONS'],
        ['/images/abc.webp', {}, 'GET, HEAD, OPTIONS'],
      ];
      for (const [p, headers, allow] of cases) {
        const a = await request(`${gw.url}${p}`, { method: 'OPTIONS', headers });
        expect(a.status, p).to.equal(204);
        expect(a.headers.get('allow'), p).to.equal(allow);
        expect(a.text, p).to.equal('');
      }
    });
    it('an unknown path stays 404', async () => {
      const a = await request(`${gw.url}/nowhere`, { method: 'DELETE' });
      expect(a.status).to.equal(404);
      expectErrorBody(a.text, '404');
    });
  });

  describe('admin authentication', () => {
    it('accepts the bearer scheme in any letter case', async () => {
      for (const scheme of ['bearer', 'BEARER', 'Bearer', 'bEaReR']) {
        const a = await request(`${gw.url}/admin/v1/categories`, { headers: { authorization: `${scheme} ${gw.adminToken}` } });
        expect(a.status, scheme).to.equal(200);
      }
    });

    it('throttles failed attempts per client address: 429 JSON with Retry-After, right token included', async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        const a = await gw.admin.call('GET', '/categories', undefined, `wrong-token-${i}-wrong-token`);
        statuses.push(a.status);
        expectErrorBody(a.text, `attempt ${i}`);
        if (a.status === 429) {
          expect(Number(a.headers.get('retry-after'))).to.be.within(1, 60);
          expect(a.body.error).to.equal('rate_limited');
        }
      }
      expect(statuses).to.deep.equal([401, 401, 401, 401, 401, 429, 429]);
      const right = await gw.admin.call('GET', '/categories');
      expect(right.status).to.equal(429);
      // the public API is not affected
      expect((await gw.getWithKey(key, '/v1/colors')).status).to.equal(200);
    });
  });
});
