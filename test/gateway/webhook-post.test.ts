import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { postWebhook } from '../../gateway/events/delivery.ts';

/** One delivery attempt against real local receivers (WEBHOOK_ALLOW_PRIVATE_TARGETS, as in development). */
describe('webhook delivery attempt (postWebhook)', () => {
  const servers: http.Server[] = [];
  const listen = async (handler: http.RequestListener) => {
    const s = http.createServer(handler);
    servers.push(s);
    await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
    return `http://127.0.0.1:${(s.address() as AddressInfo).port}/hook`;
  };
  const post = (url: string) => postWebhook({ url, body: '{"id":"evt_1"}', headers: {}, timeoutMs: 300, policy: { allowPrivate: true } });
  after(() => {
    for (const s of servers) {
      s.closeAllConnections();
      s.close();
    }
  });

  it('a 2xx whose body is still coming when the time is up is delivered: the status is the answer', async () => {
    const url = await listen((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('accepted, and more to come');
    });
    expect(await post(url)).to.deep.equal({ status: 200, error: null, response: 'accepted, and more to come' });
  });

  it('no status within the time is no answer', async () => {
    const url = await listen((req) => req.resume());
    expect(await post(url)).to.deep.equal({ status: null, error: 'no answer within 300 ms', response: '' });
  });
});
