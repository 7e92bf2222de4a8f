/**
 * Issue 14, part 4: secrets stay put. No token, key or secret in any log line; the local renderer's
 * environment holds only what it reads; secrets.json holds only what was generated because it was
 * not given; /docs/ui serves only what the docs page needs.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadGatewayConfig } from '../../gateway/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { rendererEnv, startLocalRenderer } from '../../gateway/render/local-renderer.ts';
import { loadSecrets } from '../../gateway/secrets.ts';
import { captureLog } from '../support/log-capture.ts';
import { startTestRenderer, type TestRenderer } from '../support/test-renderer.ts';
import { backendLabel } from './support/backend.ts';
import { request, startTestGateway, type TestGateway } from './support/gateway-fixture.ts';

const SINGLE = '/v1/makes/aurelia/models/vento/2023';
const local = (u: string) => u.replace('http://localhost:', 'http://127.0.0.1:');

const GATEWAY_SECRETS = {
  ADMIN_TOKEN: 'admin-token-that-must-not-leak-0123456789',
  IMAGE_SIGNING_KEYS: `k1:${'s'.repeat(40)}`,
  API_KEY_HASH_SECRETS: `h1:${'h'.repeat(40)}`,
  DATABASE_URL: 'postgres://user:pg-password-must-not-leak@db.internal:5432/app',
  REDIS_URL: 'redis://:redis-password-must-not-leak@cache.internal:6379',
};

describe(`security: no secret in any log line (${backendLabel()})`, function () {
  this.timeout(60_000);
  const log = captureLog();
  const lines = log.lines;
  let gw: TestGateway;
  let renderer: TestRenderer;

  before(async () => {
    renderer = await startTestRenderer({ env: { RENDER_WORKERS: '1' }, logger: log.logger('test-renderer'), clientLogger: log.logger('c') });
    gw = await startTestGateway({ renderer: renderer.client, logger: log.logger('test-gateway') });
  });
  after(async () => {
    await gw?.close();
    await renderer?.close();
  });

  it('a run of ordinary, failing and hostile calls logs no API key, admin token, image token or signing/hashing secret', async () => {
    const c = await gw.admin.customer();
    const member = await gw.admin.addMember(c.org, 'someone@example.com');
    const img = await gw.getWithKey(c.key, `${SINGLE}/front_left?format=png&width=200&color=red`);
    expect(img.status).to.equal(200);
    const url = local(img.body.image_url as string);
    const file = url.split('/images/')[1]!;
    const token = file.slice(0, file.lastIndexOf('.'));
    const signature = token.split('.')[2]!;

    expect((await request(url)).status).to.equal(200);
    // routing ignores case and a trailing slash: these reach the image route and are logged as it
    for (const p of [`/IMAGES/${file}`, `/Images/${file}`, `/images/${file}/`, `/iMaGeS/${file}?x=1`]) {
      const a = await request(`${gw.url}${p}`);
      expect(a.status, p).to.equal(200);
    }
    await request(`${gw.url}/images/${token}.webp`); // 400: wrong extension
    await request(`${gw.url}/images/${token.slice(0, -3)}abc.png`); // 401: bad signature
    await request(`${gw.url}/nothing/${token}`); // 404 elsewhere, token-shaped segment
    await request(`${gw.url}/v1/makes?api_key=${c.key}`); // a key put into a URL by mistake
    await gw.getWithKey(c.key, '/v1/makes');
    await gw.getWithKey(`${c.key.slice(0, -4)}abcd`, '/v1/makes'); // unknown key
    await gw.getWithKey(c.key, '/v1/nothing');
    await gw.admin.call('GET', '/organizations', undefined, 'wrong-admin-token-0123456789');
    await gw.admin.call('POST', '/organizations', { name: 'x'.repeat(20_000) });
    await gw.admin.ban(member.id);
    await request(url); // 403 after the ban
    await gw.admin.unban(member.id);
    await gw.admin.revokeKey(c.keyId);
    await gw.getWithKey(c.key, '/v1/makes'); // 401 revoked
    await new Promise((r) => setTimeout(r, 200));

    const stored = JSON.parse(fs.readFileSync(path.join(gw.dataDir, 'secrets.json'), 'utf8')) as {
      imageSigningKey: { secret: string };
      apiKeyHashSecret: { secret: string };
    };
    const secrets: Record<string, string> = {
      'API key': c.key,
      'API key secret part': c.key.slice('svc_live_'.length),
      'admin token': gw.adminToken,
      'image token': token,
      'image token signature': signature,
      'image signing secret': stored.imageSigningKey.secret,
      'image signing secret (hex)': Buffer.from(stored.imageSigningKey.secret, 'base64url').toString('hex'),
      'key hashing secret': stored.apiKeyHashSecret.secret,
    };
    const text = log.text();
    expect(lines.length).to.be.greaterThan(20);
    expect(text).to.contain('/images/…'); // the image requests were logged, as the route
    for (const [what, secret] of Object.entries(secrets)) {
      const hit = lines.find((l) => l.includes(secret));
      expect(hit, `${what} in a log line`).to.equal(undefined);
    }
    expect(text).not.to.match(/eyJ[\w-]+\.[\w-]+\.[\w-]+/); // nothing shaped like a signed token
    expect(text).not.to.match(/svc_live_[A-Za-z0-9]{8,}/); // nothing shaped like a key
  });
});

describe('security: the logger redacts credential headers', () => {
  it('a request and a response logged whole show no key, token, cookie or CSRF token, and are left intact', () => {
    const log = captureLog();
    const lines = log.lines;
    const logger = log.logger('redaction-test', 'info');
    const secrets = {
      apiKey: 'svc_live_key-that-must-not-leak-0123456789',
      bearer: 'Bearer admin-token-that-must-not-leak',
      cookie: 'session=session-that-must-not-leak',
      csrf: 'csrf-token-that-must-not-leak',
      setCookie: 'session=new-session-that-must-not-leak; HttpOnly',
    };
    const req = {
      method: 'GET',
      url: '/v1/makes',
      headers: {
        'x-api-key': secrets.apiKey,
        authorization: secrets.bearer,
        cookie: secrets.cookie,
        'x-csrf-token': secrets.csrf,
        'user-agent': 'test-agent',
      },
    };
    const res = { statusCode: 200, headers: { 'set-cookie': [secrets.setCookie], 'content-type': 'application/json' } };
    logger.info({ req, res }, 'a request logged whole');
    logger.child({ component: 'child' }).error({ req, res }, 'and through a child logger');

    expect(lines).to.have.length(2);
    for (const line of lines) {
      expect(line).not.to.contain('must-not-leak');
      const entry = JSON.parse(line) as { req: typeof req; res: { headers: Record<string, unknown> } };
      expect(entry.req.headers).to.deep.equal({
        'x-api-key': '[redacted]',
        authorization: '[redacted]',
        cookie: '[redacted]',
        'x-csrf-token': '[redacted]',
        'user-agent': 'test-agent', // the rest stays readable
      });
      expect(entry.res.headers).to.deep.equal({ 'set-cookie': '[redacted]', 'content-type': 'application/json' });
    }
    expect(req.headers['x-api-key']).to.equal(secrets.apiKey); // the logged object itself is not changed
    expect(res.headers['set-cookie']).to.deep.equal([secrets.setCookie]);
  });
});

describe('security: secrets stay put', function () {
  this.timeout(60_000);
  const dirs: string[] = [];
  const tmp = () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-sec-'));
    dirs.push(d);
    return d;
  };
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  describe('happy', () => {
    it('nothing given: everything generated once into secrets.json (0600) and reused', () => {
      const dir = tmp();
      const a = loadSecrets(loadGatewayConfig({ DATA_DIR: dir }));
      expect(a.generated.adminToken).to.equal(true);
      const file = path.join(dir, 'secrets.json');
      expect(fs.statSync(file).mode & 0o777).to.equal(0o600);
      expect(Object.keys(JSON.parse(fs.readFileSync(file, 'utf8'))).sort()).to.deep.equal(['adminToken', 'apiKeyHashSecret', 'imageSigningKey']);
      const b = loadSecrets(loadGatewayConfig({ DATA_DIR: dir }));
      expect(b.adminToken).to.equal(a.adminToken);
      expect(b.generated.adminToken).to.equal(false);
    });

    it('everything given: no secrets.json at all', () => {
      const dir = tmp();
      const s = loadSecrets(loadGatewayConfig({ DATA_DIR: dir, ...GATEWAY_SECRETS }));
      expect(s.adminToken).to.equal(GATEWAY_SECRETS.ADMIN_TOKEN);
      expect(fs.existsSync(path.join(dir, 'secrets.json'))).to.equal(false);
    });
  });

  describe('error', () => {
    it('a given ADMIN_TOKEN wins over a stored one, which leaves the file (unsetting the variable later cannot revive it)', () => {
      const dir = tmp();
      const first = loadSecrets(loadGatewayConfig({ DATA_DIR: dir }));
      const given = loadSecrets(loadGatewayConfig({ DATA_DIR: dir, ADMIN_TOKEN: GATEWAY_SECRETS.ADMIN_TOKEN }));
      expect(given.adminToken).to.equal(GATEWAY_SECRETS.ADMIN_TOKEN);
      const file = JSON.parse(fs.readFileSync(path.join(dir, 'secrets.json'), 'utf8')) as Record<string, unknown>;
      expect(file).not.to.have.property('adminToken');
      expect(JSON.stringify(file)).not.to.contain(first.adminToken);
      // generated key material stays (keys hashed and URLs signed with it keep working)
      expect(file).to.have.property('imageSigningKey');
      const later = loadSecrets(loadGatewayConfig({ DATA_DIR: dir }));
      expect(later.adminToken).not.to.equal(first.adminToken);
      expect(later.generated.adminToken).to.equal(true);
    });

    it('with ADMIN_TOKEN given from the start, the file never holds an admin token', () => {
      const dir = tmp();
      loadSecrets(loadGatewayConfig({ DATA_DIR: dir, ADMIN_TOKEN: GATEWAY_SECRETS.ADMIN_TOKEN }));
      const file = JSON.parse(fs.readFileSync(path.join(dir, 'secrets.json'), 'utf8')) as Record<string, unknown>;
      expect(Object.keys(file).sort()).to.deep.equal(['apiKeyHashSecret', 'imageSigningKey']);
    });
  });

  describe('security', () => {
    it("the renderer's environment is free of the gateway's secrets (the allowlist)", () => {
      const env = rendererEnv({ ...GATEWAY_SECRETS, PATH: '/usr/bin', RENDER_BACKEND: 'cpu', VK_ICD_FILENAMES: '/x.json', DATA_DIR: '/d', PUBLIC_BASE_URL: 'https://x', AWS_SECRET_ACCESS_KEY: 'nope' });
      expect(env).to.deep.equal({ PATH: '/usr/bin', RENDER_BACKEND: 'cpu', VK_ICD_FILENAMES: '/x.json' });
    });

    it('the forked local renderer process really has none of them (/proc/<pid>/environ)', async function () {
      if (!fs.existsSync('/proc/self/environ')) this.skip();
      const r = await startLocalRenderer({
        env: { ...process.env, ...GATEWAY_SECRETS, RENDER_BACKEND: 'cpu', RENDER_WORKERS: '1', LOG_LEVEL: 'silent' },
        logger: createLogger('test', 'silent'),
      });
      try {
        const environ = fs.readFileSync(`/proc/${r.pid}/environ`, 'utf8').split('\0').filter(Boolean);
        const names = environ.map((e) => e.slice(0, e.indexOf('=')));
        for (const [name, value] of Object.entries(GATEWAY_SECRETS)) {
          expect(names, name).not.to.include(name);
          expect(environ.join('\n'), name).not.to.contain(value);
        }
        expect(names).to.include('RENDER_BACKEND');
        expect(names).to.include('RENDERER_PORT');
      } finally {
        await r.stop();
      }
    });
  });
});

describe(`security: /docs/ui serves only what the docs page needs (${backendLabel()})`, function () {
  this.timeout(60_000);
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    await gw?.close();
  });

  it('the page and its two files are served; the rest of swagger-ui-dist is not', async () => {
    const page = await request(`${gw.url}/docs`);
    expect(page.status).to.equal(200);
    for (const f of ['swagger-ui.css', 'swagger-ui-bundle.js']) {
      expect(page.text).to.contain(`/docs/ui/${f}`);
      expect((await request(`${gw.url}/docs/ui/${f}`)).status, f).to.equal(200);
    }
    for (const f of ['index.html', 'oauth2-redirect.html', 'swagger-ui.js.map', 'swagger-ui-bundle.js.map', 'package.json', 'swagger-initializer.js', '', '../package.json', '%2e%2e/package.json']) {
      const a = await request(`${gw.url}/docs/ui/${f}`);
      expect(a.status, f).to.equal(404);
      expect(Object.keys(a.body ?? {}).sort(), f).to.deep.equal(['error', 'message']);
    }
  });

  it('a Range on the docs files is answered with the whole file, never a 416 or a 400', async () => {
    for (const p of ['/docs/openapi.json', '/docs/ui/swagger-ui.css']) {
      const whole = await request(gw.url + p);
      for (const range of ['bytes=999999999-', 'bytes=0-3', 'bytes=nonsense']) {
        const a = await request(gw.url + p, { headers: { range } });
        expect(a.status, `${p} ${range}`).to.equal(200);
        expect(a.headers.get('accept-ranges'), `${p} ${range}`).to.equal(null);
        expect(a.text.length, `${p} ${range}`).to.equal(whole.text.length);
      }
    }
  });

  it('a NUL byte in the docs path or an image name is a clean 4xx, never 500', async () => {
    expect((await request(`${gw.url}/docs/ui/swagger-ui.css%00`)).status).to.be.within(400, 499);
    expect((await request(`${gw.url}/images/a%00.png`)).status).to.be.within(400, 499);
  });
});
