import crypto from 'node:crypto';
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import sharp from 'sharp';
import { TOKEN_AUDIENCE, TOKEN_ISSUER } from '../../gateway/signing/image-token.ts';
import { backendLabel } from './support/backend.ts';
import { request, startTestGateway, type TestGateway } from './support/gateway-fixture.ts';
import { startTestRenderer, type TestRenderer } from '../support/test-renderer.ts';

const SINGLE = '/v1/makes/aurelia/models/vento/2023';

function tokenOf(url: string): { token: string; ext: string; header: jwt.JwtHeader; payload: jwt.JwtPayload } {
  const file = url.split('/images/')[1]!;
  const ext = file.slice(file.lastIndexOf('.') + 1);
  const token = file.slice(0, file.lastIndexOf('.'));
  const d = jwt.decode(token, { complete: true })!;
  return { token, ext, header: d.header, payload: d.payload as jwt.JwtPayload };
}

describe(`image download (${backendLabel()})`, function () {
  this.timeout(60_000);
  let gw: TestGateway;
  let noRenderer: TestGateway;
  let renderer: TestRenderer;
  let key: string;
  const local = (u: string) => u.replace('http://localhost:', 'http://127.0.0.1:');

  before(async () => {
    renderer = await startTestRenderer();
    gw = await startTestGateway({ renderer: renderer.client });
    key = (await gw.admin.customer()).key;
    noRenderer = await startTestGateway({ db: gw.db, dataDir: gw.dataDir, seedDemo: false });
  });
  after(async () => {
    await noRenderer?.close();
    await gw?.close();
    await renderer?.close();
  });

  const imageUrl = async (q: string, view = 'front_left') => {
    const a = await gw.getWithKey(key, `${SINGLE}/${view}?${q}`);
    expect(a.status).to.equal(200);
    return local(a.body.image_url as string);
  };

  describe('happy', () => {
    for (const [format, mime] of [['webp', 'image/webp'], ['png', 'image/png'], ['jpeg', 'image/jpeg']] as const) {
      it(`downloads a ${format} of exactly the requested width with cache headers`, async () => {
        const url = await imageUrl(`format=${format}&width=640&color=red`);
        const res = await fetch(url);
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.equal(mime);
        const buf = Buffer.from(await res.arrayBuffer());
        expect(Number(res.headers.get('content-length'))).to.equal(buf.length);
        expect(res.headers.get('etag')).to.match(/^"[\w-]+"$/);
        const cc = res.headers.get('cache-control')!;
        expect(cc).to.match(/public/).and.match(/immutable/);
        const maxAge = Number(/max-age=(\d+)/.exec(cc)![1]);
        const exp = tokenOf(url).payload.exp!;
        expect(maxAge).to.be.at.most(exp - Math.floor(Date.now() / 1000) + 1);
        const meta = await sharp(buf).metadata();
        expect(meta.format).to.equal(format);
        expect(meta.width).to.equal(640);
      });
    }

    it('answers 304 to a matching If-None-Match, without a body', async () => {
      const url = await imageUrl('format=png&width=300');
      const first = await fetch(url);
      const etag = first.headers.get('etag')!;
      await first.arrayBuffer();
      const again = await fetch(url, { headers: { 'if-none-match': etag } });
      expect(again.status).to.equal(304);
      expect((await again.arrayBuffer()).byteLength).to.equal(0);
      expect(again.headers.get('etag')).to.equal(etag);
    });

    it('the same request gives the same bytes and ETag; another colour gives others', async () => {
      const u1 = await imageUrl('format=png&width=300&color=blue');
      const u2 = await imageUrl('format=png&width=300&color=green');
      const [a, b, c] = await Promise.all([fetch(u1), fetch(u1), fetch(u2)]);
      const [ba, bb, bc] = await Promise.all([a.arrayBuffer(), b.arrayBuffer(), c.arrayBuffer()]);
      expect(Buffer.from(ba).equals(Buffer.from(bb))).to.equal(true);
      expect(a.headers.get('etag')).to.equal(b.headers.get('etag'));
      expect(a.headers.get('etag')).not.to.equal(c.headers.get('etag'));
      expect(Buffer.from(ba).equals(Buffer.from(bc))).to.equal(false);
    });
  });

  describe('error', () => {
    it('without a renderer the download is 503 unavailable (documented), JSON', async () => {
      const url = await imageUrl('format=png');
      const a = await request(url.replace(`:${gw.port}/`, `:${noRenderer.port}/`));
      expect(a.status).to.equal(503);
      expect(a.body).to.deep.equal({ error: 'unavailable', message: a.body.message });
    });

    it('an extension that does not match the token is 400; a malformed token 400; a name that is not <token>.<ext> 404', async () => {
      const url = await imageUrl('format=png');
      expect((await request(url.replace(/\.png$/, '.webp'))).status).to.equal(400);
      for (const name of ['nothing.png', 'a.b.png', 'a.b.c.d.webp']) {
        const a = await request(`${gw.url}/images/${name}`);
        expect(a.status, name).to.equal(400);
        expect(a.body, name).to.deep.equal({ error: 'bad_request', message: 'The image token is malformed' });
      }
      for (const name of ['nothing', 'nothing.gif', 'a%20b.png']) {
        const a = await request(`${gw.url}/images/${name}`);
        expect(a.status, name).to.equal(404);
        expect(Object.keys(a.body)).to.have.members(['error', 'message']);
      }
    });
  });

  describe('security', () => {
    const expect4xx = async (url: string) => {
      const a = await request(url);
      expect(a.status).to.be.within(400, 499);
      expect(Object.keys(a.body)).to.have.members(['error', 'message']);
      return a;
    };

    it('a tampered payload is refused', async () => {
      const url = await imageUrl('format=png');
      const { token, ext, payload } = tokenOf(url);
      const [h, , s] = token.split('.');
      const forged = Buffer.from(JSON.stringify({ ...payload, w: 2400 })).toString('base64url');
      await expect4xx(`${gw.url}/images/${h}.${forged}.${s}.${ext}`);
    });

    it('an expired token is refused', async () => {
      const url = await imageUrl('format=png');
      const { header, payload, ext } = tokenOf(url);
      const secret = JSON.parse((await import('node:fs')).readFileSync(`${gw.dataDir}/secrets.json`, 'utf8')).imageSigningKey;
      const expired = jwt.sign({ ...payload, exp: Math.floor(Date.now() / 1000) - 10 }, Buffer.from(secret.secret, 'base64url'), {
        algorithm: 'HS256', keyid: header.kid,
      });
      const a = await expect4xx(`${gw.url}/images/${expired}.${ext}`);
      expect(a.body.message).to.match(/expired/);
    });

    it('alg "none" is refused', async () => {
      const url = await imageUrl('format=png');
      const { payload, ext, header } = tokenOf(url);
      const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT', kid: header.kid })).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.`;
      const noKid = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.`;
      // as an unsigned JWT is written (an empty signature), with a signature added, and without a kid
      for (const t of [none, `${none}x`, noKid]) {
        const a = await expect4xx(`${gw.url}/images/${t}.${ext}`);
        expect(a.status).to.equal(401);
        expect(a.body.message).to.equal('The image token is invalid');
      }
    });

    it('a token signed with another algorithm (HS512 with the same secret) is refused', async () => {
      const url = await imageUrl('format=png');
      const { payload, ext, header } = tokenOf(url);
      const secret = JSON.parse((await import('node:fs')).readFileSync(`${gw.dataDir}/secrets.json`, 'utf8')).imageSigningKey;
      const t = jwt.sign(payload, Buffer.from(secret.secret, 'base64url'), { algorithm: 'HS512', keyid: header.kid });
      await expect4xx(`${gw.url}/images/${t}.${ext}`);
    });

    it('an unknown kid, or a token signed with another secret, is refused', async () => {
      const url = await imageUrl('format=png');
      const { payload, ext, header } = tokenOf(url);
      const other = crypto.randomBytes(32);
      const unknown = await expect4xx(`${gw.url}/images/${jwt.sign(payload, other, { algorithm: 'HS256', keyid: 'nope' })}.${ext}`);
      expect(unknown.body.message).to.equal('The image token was signed with an unknown key');
      const noKid = await expect4xx(`${gw.url}/images/${jwt.sign(payload, other, { algorithm: 'HS256' })}.${ext}`);
      expect(noKid.body.message).to.equal('The image token is invalid');
      await expect4xx(`${gw.url}/images/${jwt.sign(payload, other, { algorithm: 'HS256', keyid: header.kid })}.${ext}`);
    });

    it('a token for another audience or issuer is refused', async () => {
      const url = await imageUrl('format=png');
      const { payload, ext, header } = tokenOf(url);
      const secret = JSON.parse((await import('node:fs')).readFileSync(`${gw.dataDir}/secrets.json`, 'utf8')).imageSigningKey;
      const key = Buffer.from(secret.secret, 'base64url');
      const { aud: _a, iss: _i, ...rest } = payload;
      await expect4xx(`${gw.url}/images/${jwt.sign({ ...rest, aud: 'other', iss: TOKEN_ISSUER }, key, { algorithm: 'HS256', keyid: header.kid })}.${ext}`);
      await expect4xx(`${gw.url}/images/${jwt.sign({ ...rest, aud: TOKEN_AUDIENCE, iss: 'other' }, key, { algorithm: 'HS256', keyid: header.kid })}.${ext}`);
    });
  });
});
