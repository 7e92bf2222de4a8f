import { expect } from 'chai';
import http from 'node:http';
import { mulberry32 } from '../../shared/seeded-random.ts';
import { startTestGateway, type TestGateway } from './support/gateway-fixture.ts';
import { expectErrorBody, rawRequest } from './support/raw-http.ts';

/**
 * A bounded fuzz run on loopback: at least 10,000 random requests (paths built from the API's own
 * segments and from hostile bytes, random queries, headers and methods, with and without a key or the
 * admin token) plus raw malformed HTTP on sockets. No answer may be a 5xx; every error body is exactly
 * `{error, message}` with no stack, SQL or file path. Seeded (FUZZ_SEED) so a failure can be replayed.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const RAW = Number(process.env.FUZZ_RAW ?? 600);

const SEGMENTS = [
  'v1', 'V1', 'admin', 'v1', 'makes', 'models', 'search', 'colors', 'views', 'me', 'images', 'organizations', 'keys', 'members',
  'contract', 'usage', 'vehicles', 'catalog', 'import', 'export', 'categories', 'revoke', 'ban', 'unban', 'aurelia', 'vento', 'terra',
  '2024', '2023', '0000', '99999', 'base', 'gt', 'front_left', 'front', 'top_down', 'side_left', 'healthz', 'readyz', 'metrics', 'docs',
  'openapi.json', 'org_AAAAAAAAAAAAAAAA', 'veh_x', 'key_-_', 'mem_', '..', '.', '', '%00', '%', '%zz', '%2F', '%2e%2e', '%C0%AF', '%E2%80%AE',
  "'", '"', '\\', ';', 'a b', '%20', '~', '*', '$', '{}', '[]', '%FF%FE', 'null', 'undefined', '__proto__', 'constructor', 'x'.repeat(120),
  '😀', '%F0%9F%98%80', 'a.b.c.webp', 'eyJhbGciOiJIUzI1NiJ9.eyJhIjo.x.webp', 'e30.e30.e30.png',
];
const QUERY_KEYS = ['q', 'color', 'format', 'width', 'shadow', 'plate', 'background', 'limit', 'x', 'q[]', '__proto__', 'color[a]', '', '%00'];
const QUERY_VALUES = ['red', '#fff', 'C41E3A', 'webp', 'png', 'jpeg', 'gif', '200', '2401', '-1', '1e9', 'NaN', 'true', 'false', 'AB 123', '%00', '%', '%ZZ', "'; DROP TABLE x;--", 'x'.repeat(300), '', 'transparent', '😀', '%E0%A4%A'];
const METHODS = ['GET', 'GET', 'GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND', 'SEARCH', 'PURGE', 'LINK'];
const HEADER_NAMES = ['x-api-key', 'authorization', 'accept', 'content-type', 'if-none-match', 'x-request-id', 'accept-encoding', 'range', 'x-forwarded-for', 'cookie', 'origin'];
const HEADER_VALUES = ['', 'svc_live_abc', 'Bearer x', 'bearer', 'application/json', 'text/csv', '*', '"abc"', 'W/"x", *', 'gzip, br', 'bytes=0-1', '1.2.3.4', 'a'.repeat(2000), 'ü', '%00', '../../etc/passwd'];

describe('fuzz: random requests and raw malformed HTTP (loopback, bounded)', function () {
  this.timeout(180_000);
  let gw: TestGateway;
  let key: string;

  before(async () => {
    gw = await startTestGateway({ env: { ADMIN_AUTH_FAILURES_PER_MINUTE: '1000000' } });
    key = (await gw.admin.customer({ rpm_limit: 1_000_000, monthly_quota: 2_000_000_000 })).key;
  });
  after(async () => {
    await gw?.close();
  });

  it(`${REQUESTS} random requests: no 5xx, every error exactly {error, message}`, async () => {
    const rnd = mulberry32(SEED);
    const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
    const agent = new http.Agent({ keepAlive: true, maxSockets: 24 });
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    const started = Date.now();

    const one = (i: number) =>
      new Promise<void>((resolve) => {
        const prefix = pick(['/v1/', '/v1/', '/admin/v1/', '/images/', '/', '/v1/makes/aurelia/models/vento/2024/']);
        const depth = Math.floor(rnd() * 5);
        let path = prefix + Array.from({ length: depth }, () => pick(SEGMENTS)).join('/');
        if (rnd() < 0.5) {
          const n = 1 + Math.floor(rnd() * 4);
          path += '?' + Array.from({ length: n }, () => `${pick(QUERY_KEYS)}=${pick(QUERY_VALUES)}`).join('&');
        }
        // hostile bytes the client library lets through (it refuses control characters in paths)
        path = encodeURI(path).replace(/%25/g, '%');
        const method = pick(METHODS);
        const headers: Record<string, string> = {};
        const who = rnd();
        if (who < 0.5) headers['x-api-key'] = key;
        else if (who < 0.7) headers.authorization = `${pick(['Bearer', 'bearer', 'Basic', ''])} ${gw.adminToken}`;
        for (let h = Math.floor(rnd() * 3); h > 0; h--) {
          const name = pick(HEADER_NAMES);
          const value = pick(HEADER_VALUES);
          if (!/[^\t\x20-\x7e\x80-\xff]/.test(value)) headers[name] = value;
        }
        let body: string | undefined;
        if (method === 'POST' || method === 'PUT' || method === 'PATCH') {
          body = pick(['{}', '{"name":"x"}', '{"published":true}', '{', 'null', '[1]', 'a,b\n1,2', '{"categories":"x"}', '']);
          headers['content-type'] ??= pick(['application/json', 'text/csv', 'text/plain']);
        }
        const req = http.request({ host: '127.0.0.1', port: gw.port, method, path, headers, agent }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (d) => chunks.push(d));
          res.on('end', () => {
            const status = res.statusCode ?? 0;
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
            const text = Buffer.concat(chunks).toString('utf8');
            const what = `#${i} ${method} ${path} → ${status}`;
            try {
              expect(status, what).to.be.below(500);
              if (status >= 400 && method !== 'HEAD') {
                expect(res.headers['content-type'], what).to.match(/^application\/json/);
                expectErrorBody(text, what);
              }
            } catch (e) {
              failures.push(`${(e as Error).message} ${text.slice(0, 200)}`);
            }
            resolve();
          });
        });
        req.on('error', (e) => {
          failures.push(`#${i} ${method} ${path}: ${e.message}`);
          resolve();
        });
        req.end(body);
      });

    let next = 0;
    const workers = Array.from({ length: 24 }, async () => {
      while (next < REQUESTS) await one(next++);
    });
    await Promise.all(workers);
    agent.destroy();
    const seconds = (Date.now() - started) / 1000;
    console.log(`      ${REQUESTS} requests in ${seconds.toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`);
    expect(failures.slice(0, 10)).to.deep.equal([]);
    expect([...statuses.values()].reduce((a, b) => a + b, 0)).to.equal(REQUESTS);
  });

  it(`${RAW} raw malformed requests on sockets: a JSON error or a closed connection, never a 5xx`, async () => {
    const rnd = mulberry32(SEED + 1);
    const pick = <T>(a: readonly T[]): T => a[Math.floor(rnd() * a.length)]!;
    const junk = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(rnd() * 256)));
    const templates: (() => Buffer | string)[] = [
      () => `GET /v1/${String.fromCharCode(Math.floor(rnd() * 32))}x HTTP/1.1\r\nHost: a\r\n\r\n`,
      () => `${pick(['G ET', 'GE\x00T', 'GET\t', '@', 'get', 'POST\x7f'])} /v1 HTTP/1.1\r\nHost: a\r\n\r\n`,
      () => `GET /v1 ${pick(['HTTP/1.2', 'HTTP/2.0', 'HTTP/1', 'HTTPS/1.1', 'HTTP/1.1x', ''])}\r\nHost: a\r\n\r\n`,
      () => `POST /admin/v1/organizations HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n${pick(['zz', '-1', 'fffffffffffffffff', '1;\x00', '5\r\nab'])}\r\n\r\n`,
      () => `POST /v1 HTTP/1.1\r\nHost: a\r\nContent-Length: ${pick(['-1', 'abc', '1e3', '3, 4', '99999999999999999999'])}\r\n\r\n`,
      () => `GET /v1 HTTP/1.1\r\nHost: a\r\n${pick(['Bad Name', 'X:\x01', 'X\x00: y', ' folded', 'Üml: 1'])}: v\r\n\r\n`,
      () => `GET /v1 HTTP/1.1\r\nHost: a\r\nX-Big: ${'b'.repeat(66_000 + Math.floor(rnd() * 10_000))}\r\n\r\n`,
      () => Buffer.concat([junk(1 + Math.floor(rnd() * 64)), Buffer.from('\r\n\r\n')]),
      () => `GET /${'%'.repeat(1 + Math.floor(rnd() * 5))}${pick(['00', 'zz', 'C0', ''])} HTTP/1.1\r\nHost: a\r\n\r\n`,
      () => `GET /v1/makes/${encodeURIComponent(junk(8).toString('latin1'))} HTTP/1.1\r\nHost: a\r\nx-api-key: ${key}\r\n\r\n`,
    ];
    const statuses = new Map<number, number>();
    const failures: string[] = [];
    let next = 0;
    const workers = Array.from({ length: 12 }, async () => {
      while (next < RAW) {
        const i = next++;
        const bytes = templates[i % templates.length]!();
        try {
          const a = await rawRequest(gw.port, bytes, 2000);
          statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
          if (a.status === 0) continue; // closed without an answer
          expect(a.status, `#${i}`).to.be.within(200, 499);
          if (a.status >= 400) expectErrorBody(a.body.slice(0, Number(a.headers['content-length'] ?? a.body.length)), `raw #${i}`);
        } catch (e) {
          failures.push(`raw #${i} ${JSON.stringify(String(bytes).slice(0, 80))}: ${(e as Error).message}`);
        }
      }
    });
    await Promise.all(workers);
    console.log(`      raw statuses ${JSON.stringify(Object.fromEntries([...statuses].sort((a, b) => a[0] - b[0])))}`);
    expect(failures.slice(0, 10)).to.deep.equal([]);
    expect(statuses.get(0) ?? 0, 'connections closed without an answer').to.be.below(RAW / 20);
  });
});
