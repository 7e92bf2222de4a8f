/**
 * The MCP server (gateway/mcp/), called through the SDK's own client over both transports: Streamable
 * HTTP at the gateway's /mcp, and stdio with the entry of `npm run mcp` as a child process talking to
 * the same gateway. Each tool call must be exactly one counted /v1 call, and the API's errors tool
 * errors with the same code and message.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { expect } from 'chai';
import sharp from 'sharp';
import { MESSAGES } from '../../shared/errors.ts';
import { generateApiKey } from '../../gateway/auth/api-key-format.ts';
import { loadMcpStdioConfig } from '../../gateway/mcp/config.ts';
import { backendLabel } from './support/backend.ts';
import { request, startTestGateway, type TestGateway } from './support/gateway-fixture.ts';
import { startTestRenderer, type TestRenderer } from '../support/test-renderer.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const STDIO_ENTRY = 'gateway/mcp/stdio-main.ts';
const TOOLS = ['get_spin', 'get_usage', 'get_vehicle', 'list_colors', 'list_makes', 'list_models', 'list_views', 'list_years', 'render_image', 'search_vehicles'];

interface ToolAnswer {
  isError: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  const r = await client.callTool({ name, arguments: args });
  const content = r.content as Array<{ type: string; text: string }>;
  expect(content).to.have.length(1);
  expect(content[0]!.type).to.equal('text');
  return { isError: r.isError === true, json: JSON.parse(content[0]!.text) };
}

describe(`MCP server (${backendLabel()})`, function () {
  this.timeout(60_000);
  let gw: TestGateway;
  let renderer: TestRenderer;
  const clients: Client[] = [];

  before(async () => {
    renderer = await startTestRenderer();
    gw = await startTestGateway({ renderer: renderer.client });
  });
  after(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await gw?.close();
    await renderer?.close();
  });

  const transports: Record<string, (key: string) => Transport> = {
    'Streamable HTTP': (key) => new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { 'x-api-key': key } } }),
    stdio: (key) => {
      const t = new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', STDIO_ENTRY],
        cwd: ROOT,
        env: { ...getDefaultEnvironment(), BASE_URL: gw.url, API_KEY: key },
        stderr: 'pipe',
      });
      // drained, so that the child's log (written synchronously) can never fill the pipe and stall it
      t.stderr?.on('data', () => {});
      return t;
    },
  };

  async function connect(transport: Transport): Promise<Client> {
    const client = new Client({ name: 'mcp-test', version: '1.0.0' });
    clients.push(client);
    await client.connect(transport);
    return client;
  }

  for (const [label, transport] of Object.entries(transports)) {
    describe(label, () => {
      let customer: { org: string; key: string; keyId: string };
      let client: Client;
      const used = async () => (await gw.admin.usage(customer.org)).requests;
      /** The tool's answer; the organisation's usage moved by exactly one. */
      const counted = async (name: string, args: Record<string, unknown> = {}) => {
        const before = await used();
        const a = await call(client, name, args);
        expect(await used(), `${name}: one counted call`).to.equal(before + 1);
        return a;
      };

      before(async () => {
        customer = await gw.admin.customer();
        client = await connect(transport(customer.key));
      });

      it('lists the ten tools, each with an input schema; listing calls nothing', async () => {
        const before = await used();
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name).sort()).to.deep.equal(TOOLS);
        for (const t of tools) expect(t.inputSchema.type, t.name).to.equal('object');
        const render = tools.find((t) => t.name === 'render_image')!;
        expect(render.inputSchema.required).to.have.members(['make', 'model', 'year', 'view']);
        expect(await used()).to.equal(before);
      });

      it('searches', async () => {
        const a = await counted('search_vehicles', { q: 'aurelia vento' });
        expect(a.isError).to.equal(false);
        expect(a.json.results.length).to.be.greaterThan(0);
        expect(a.json.results.every((r: { makeSlug: string; modelSlug: string }) => r.makeSlug === 'aurelia' && r.modelSlug === 'vento')).to.equal(true);
      });

      it('walks make › model › year › variant to a vehicle and its views, one call a step', async () => {
        const makes = await counted('list_makes');
        expect(makes.json.makes.map((m: { slug: string }) => m.slug)).to.include('aurelia');
        const models = await counted('list_models', { make: 'aurelia' });
        expect(models.json.models.map((m: { slug: string }) => m.slug)).to.include('vento');
        const years = await counted('list_years', { make: 'aurelia', model: 'vento' });
        expect(years.json.years.map((y: { year: number }) => y.year)).to.include.members([2024, 2023]);
        const choices = await counted('get_vehicle', { make: 'aurelia', model: 'vento', year: 2024 });
        expect(choices.json.variants.map((v: { slug: string }) => v.slug)).to.include('base');
        const base = await counted('get_vehicle', { make: 'aurelia', model: 'vento', year: 2024, variant: 'base' });
        expect(base.json.vehicle.id).to.be.a('string');
        expect(base.json.views).to.include('front_left');
        // the same answers as /v1 itself
        const direct = await gw.getWithKey(customer.key, '/v1/makes/aurelia/models/vento/2024/base');
        expect(base.json).to.deep.equal(direct.body);
      });

      it('renders an image whose signed URL downloads the picture at the requested width', async () => {
        const a = await counted('render_image', { make: 'aurelia', model: 'vento', year: 2023, view: 'front_left', color: 'red', format: 'png', width: 320 });
        expect(a.isError).to.equal(false);
        expect(a.json.image_url).to.be.a('string');
        expect(a.json.warnings).to.be.an('array');
        expect(a.json.options).to.include({ format: 'png', width: 320 });
        const before = await used();
        const res = await fetch(a.json.image_url.replace('http://localhost:', 'http://127.0.0.1:'));
        expect(res.status).to.equal(200);
        expect(res.headers.get('content-type')).to.equal('image/png');
        const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
        expect(meta.format).to.equal('png');
        expect(meta.width).to.equal(320);
        expect(await used(), 'the download is not counted').to.equal(before);
      });

      it('takes the framing options: fit at 1:1 downloads a square picture whose layout says so', async () => {
        const a = await counted('render_image', { make: 'aurelia', model: 'vento', year: 2023, view: 'side_right', format: 'png', width: 300, framing: 'fit', margin: 8, aspect: '1:1', background: 'transparent' });
        expect(a.isError).to.equal(false);
        expect(a.json.options).to.include({ framing: 'fit', margin: 8, aspect: '1:1', background: 'transparent' });
        const res = await fetch(a.json.image_url.replace('http://localhost:', 'http://127.0.0.1:'));
        const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata();
        expect([meta.width, meta.height, meta.hasAlpha]).to.deep.equal([300, 300, true]);
        if (a.json.layout) expect([a.json.layout.width, a.json.layout.height]).to.deep.equal([300, 300]);
        const bad = await counted('render_image', { make: 'aurelia', model: 'vento', year: 2023, view: 'side_right', framing: 'fit', margin: 41 });
        expect(bad.isError).to.equal(true);
        expect(bad.json).to.deep.equal({ error: 'bad_request', message: 'Invalid margin: use an integer percent from 0 to 40' });
      });

      it('a variant view renders too; the reference lists and the usage are tools of their own', async () => {
        const gt = await counted('render_image', { make: 'aurelia', model: 'vento', year: 2024, variant: 'gt', view: 'rear' });
        expect(gt.json.image_url).to.be.a('string');
        const colors = await counted('list_colors');
        expect(colors.json.colors.map((c: { name: string }) => c.name)).to.include('red');
        const views = await counted('list_views');
        expect(views.json.views).to.have.length(9);
        const usage = await counted('get_usage');
        expect(usage.json.requests).to.equal(await used());
        expect(usage.json.monthly_quota).to.equal(100_000);
      });

      it('get_spin is the spin call: its refusals are the API\'s, each one counted call', async () => {
        const base = await counted('get_vehicle', { make: 'aurelia', model: 'vento', year: 2024, variant: 'base' });
        const id = base.json.vehicle.id as string;
        const refused = await counted('get_spin', { vehicle_id: id, frames: 8 });
        expect(refused.isError).to.equal(true);
        expect(refused.json).to.deep.equal({ error: 'forbidden', message: MESSAGES.spinNotInContract });
        await gw.admin.putContract(customer.org, { features: ['spin'] });
        const none = await counted('get_spin', { vehicle_id: id, frames: 8, color: 'red' });
        expect(none.json).to.deep.equal({ error: 'not_found', message: MESSAGES.noSpin });
        await gw.admin.putContract(customer.org, { features: [] });
      });

      it('an error of the API is a tool error with its code and message, counted like the /v1 call', async () => {
        const a = await counted('get_vehicle', { make: 'nosuchmake', model: 'vento', year: 2024 });
        expect(a.isError).to.equal(true);
        const direct = await gw.getWithKey(customer.key, '/v1/makes/nosuchmake/models/vento/2024');
        expect(direct.status).to.equal(404);
        expect(a.json).to.deep.equal(direct.body);
        const badOption = await counted('render_image', { make: 'aurelia', model: 'vento', year: 2023, view: 'front', color: 'nosuchcolour' });
        expect(badOption.isError).to.equal(true);
        expect(badOption.json.error).to.equal('bad_request');
      });

      it('arguments outside a tool\'s schema are refused before any /v1 call', async () => {
        const before = await used();
        const r = await client.callTool({ name: 'render_image', arguments: { make: 'aurelia', model: 'vento', year: 'soon', view: 'front' } });
        expect(r.isError).to.equal(true);
        // a slug is one path segment: `..` cannot walk the call out of its /v1 route
        const dots = await client.callTool({ name: 'get_vehicle', arguments: { make: '..', model: '..', year: 2024 } });
        expect(dots.isError).to.equal(true);
        expect(await used()).to.equal(before);
      });

      it('a revoked key: the tool error unauthorized, nothing counted', async () => {
        const second = await gw.admin.createKey(customer.org, 'revoked');
        const other = await connect(transport(second.key));
        expect((await call(other, 'list_views')).isError).to.equal(false);
        await gw.admin.revokeKey(second.id);
        const before = await used();
        const a = await call(other, 'list_makes');
        expect(a.isError).to.equal(true);
        expect(a.json).to.deep.equal({ error: 'unauthorized', message: MESSAGES.invalidKey });
        expect(await used()).to.equal(before);
      });
    });
  }

  describe('POST /mcp', () => {
    it('without a key is 401 like /v1, and GET (sessions only) is 405', async () => {
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const none = await request(`${gw.url}/mcp`, { method: 'POST', headers, body });
      expect(none.status).to.equal(401);
      expect(none.body).to.deep.equal({ error: 'unauthorized', message: MESSAGES.missingKey });
      const get = await gw.get('/mcp');
      expect(get.status).to.equal(405);
      expect(get.headers.get('allow')).to.match(/POST/);
    });

    it('a body that is not JSON is 400, one over 64 KB 413, both before any tool runs', async () => {
      const c = await gw.admin.customer();
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': c.key };
      const notJson = await request(`${gw.url}/mcp`, { method: 'POST', headers, body: '{"jsonrpc":' });
      expect(notJson.status).to.equal(400);
      expect(notJson.body).to.deep.equal({ error: 'bad_request', message: 'The request body is not valid JSON' });
      const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search_vehicles', arguments: { q: 'x'.repeat(70_000) } } });
      const tooLarge = await request(`${gw.url}/mcp`, { method: 'POST', headers, body: big });
      expect(tooLarge.status).to.equal(413);
      expect(tooLarge.body.error).to.equal('payload_too_large');
      expect((await gw.admin.usage(c.org)).requests).to.equal(0);
    });

    it('takes the key as a bearer token too', async () => {
      const c = await gw.admin.customer();
      const client = await connect(new StreamableHTTPClientTransport(new URL(`${gw.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${c.key}` } } }));
      const a = await call(client, 'list_makes');
      expect(a.isError).to.equal(false);
      expect((await gw.admin.usage(c.org)).requests).to.equal(1);
    });
  });

  describe('npm run mcp', () => {
    it('runs the stdio entry', () => {
      const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
      expect(pkg.scripts.mcp).to.contain(STDIO_ENTRY);
    });

    it('refuses a missing or mistyped BASE_URL or API_KEY at start, naming the variable', () => {
      expect(() => loadMcpStdioConfig({})).to.throw(/BASE_URL: required[\s\S]*API_KEY: required/);
      expect(() => loadMcpStdioConfig({ BASE_URL: 'localhost:8080', API_KEY: 'svc_live_x' })).to.throw(/BASE_URL: must be an absolute http: or https: URL[\s\S]*API_KEY: not an API key/);
      expect(() => loadMcpStdioConfig({ BASE_URL: 'http://localhost:8080/v1', API_KEY: 'x' })).to.throw(/BASE_URL: the gateway itself, without \/v1/);
      const { key } = generateApiKey();
      expect(loadMcpStdioConfig({ BASE_URL: 'http://localhost:8080/', API_KEY: key })).to.deep.equal({ baseUrl: 'http://localhost:8080', apiKey: key });
    });
  });
});
