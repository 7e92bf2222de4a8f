import { expect } from 'chai';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../../shared/config-fields.ts';
import { loadGatewayConfig } from '../../gateway/config.ts';
import { postWebhook } from '../../gateway/events/delivery.ts';
import { checkTarget, isPrivateAddress } from '../../gateway/events/target-safety.ts';
import { WebhookReceiver } from './support/webhook-receiver.ts';

/** Webhook targets (docs/events.md, "Safety"): which addresses are refused, at creation and at delivery. */
describe('events: webhook target safety', () => {
  const receivers: WebhookReceiver[] = [];
  after(async () => {
    for (const r of receivers) await r.close();
  });

  it('private, loopback, link-local and other non-public addresses are refused; public ones pass', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.0.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '255.255.255.255',
      '::1', '::', '::127.0.0.1', '::10.0.0.1', 'fe80::1', 'fd00::1', 'fc00::1', 'ff02::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '64:ff9b::a00:1', 'not-an-ip']) {
      expect(isPrivateAddress(a), a).to.equal(true);
    }
    for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '93.184.216.34', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(isPrivateAddress(a), a).to.equal(false);
  });

  it('at creation: https only, and a name is checked on every address it resolves to', async () => {
    const policy = (addresses: string[]) => ({ allowPrivate: false, resolve: async () => addresses });
    await checkTarget('https://hooks.example.com/x', policy(['93.184.216.34']));
    for (const [url, addresses] of [
      ['http://hooks.example.com/x', ['93.184.216.34']],
      ['https://hooks.example.com/x', ['10.0.0.1']],
      ['https://hooks.example.com/x', ['93.184.216.34', '127.0.0.1']], // one private answer among public ones
    ] as const) {
      let refused = false;
      await checkTarget(url, policy([...addresses])).catch(() => (refused = true));
      expect(refused, `${url} → ${addresses.join(',')}`).to.equal(true);
    }
    // the development flag lifts both rules
    await checkTarget('http://127.0.0.1:1/x', { allowPrivate: true });
  });

  it('at delivery: a name that now resolves to a private address (DNS rebinding) is refused and nothing is sent', async () => {
    const r = await WebhookReceiver.start();
    receivers.push(r);
    const port = new URL(r.url).port;
    // the name passed at creation (a public answer); at delivery it resolves to the receiver on loopback
    const result = await postWebhook({
      url: `http://hooks.example.test:${port}/hook`,
      headers: {},
      body: '{}',
      timeoutMs: 2_000,
      policy: { allowPrivate: false, resolve: async () => ['127.0.0.1'] },
    });
    expect(result.status).to.equal(null);
    expect(result.error).to.match(/https|private/);
    const https = await postWebhook({
      url: `https://hooks.example.test:${port}/hook`,
      headers: {},
      body: '{}',
      timeoutMs: 2_000,
      policy: { allowPrivate: false, resolve: async () => ['127.0.0.1'] },
    });
    expect(https).to.deep.equal({ status: null, error: 'url must not point at a private, loopback or link-local address', response: '' });
    expect(r.received).to.have.length(0);
    // with the flag, the same name reaches the address it resolves to (the connection uses the checked address)
    const allowed = await postWebhook({
      url: `http://hooks.example.test:${port}/hook`,
      headers: { 'webhook-id': 'evt_0000000000000001' },
      body: '{"a":1}',
      timeoutMs: 2_000,
      policy: { allowPrivate: true, resolve: async () => ['127.0.0.1'] },
    });
    expect(allowed).to.deep.equal({ status: 200, error: null, response: 'answered 200' });
    expect(r.received[0]!.headers.host).to.equal(`hooks.example.test:${port}`);
  });

  it('a body over 64 KB is not sent; an answer is read up to 4 KB', async () => {
    const r = await WebhookReceiver.start();
    receivers.push(r);
    const big = await postWebhook({ url: r.url, headers: {}, body: 'x'.repeat(64 * 1024 + 1), timeoutMs: 2_000, policy: { allowPrivate: true } });
    expect(big.error).to.match(/body over 65536 bytes/);
    expect(r.received).to.have.length(0);
    const chatty = http.createServer((_req, res) => res.writeHead(500).end('y'.repeat(100_000)));
    await new Promise<void>((resolve) => chatty.listen(0, '127.0.0.1', resolve));
    try {
      const a = await postWebhook({ url: `http://127.0.0.1:${(chatty.address() as AddressInfo).port}/`, headers: {}, body: '{}', timeoutMs: 2_000, policy: { allowPrivate: true } });
      expect(a.status).to.equal(500);
      expect(a.response).to.have.length(4096);
    } finally {
      chatty.closeAllConnections();
      await new Promise<void>((resolve) => chatty.close(() => resolve()));
    }
  });

  it('configuration: WEBHOOK_* read and checked at start', () => {
    const load = (env: Record<string, string>) => loadGatewayConfig({ DATA_DIR: '/tmp/vis-config-test', ...env });
    expect(load({}).webhooks).to.deep.equal({
      timeoutMs: 10_000,
      allowPrivateTargets: false,
      retryScheduleMs: [5_000, 30_000, 120_000, 600_000, 3_600_000, 21_600_000],
      retryWindowMs: 86_400_000,
      pollMs: 1_000,
    });
    expect(load({ WEBHOOK_RETRY_SCHEDULE_MS: '10, 20', WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' }).webhooks).to.include({ allowPrivateTargets: true }).and.deep.include({ retryScheduleMs: [10, 20] });
    for (const [name, value] of [['WEBHOOK_TIMEOUT_MS', '0'], ['WEBHOOK_RETRY_SCHEDULE_MS', '5s'], ['WEBHOOK_RETRY_SCHEDULE_MS', '1,,2'], ['WEBHOOK_ALLOW_PRIVATE_TARGETS', 'yes'], ['WEBHOOK_POLL_MS', 'x']]) {
      expect(() => load({ [name!]: value! }), `${name}=${value}`).to.throw(ConfigError, new RegExp(name!));
    }
  });
});
