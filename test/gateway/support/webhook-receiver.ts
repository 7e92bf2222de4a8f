import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: Record<string, string>;
  body: string;
}

/** What the receiver does with one request: answer a status, or hold it unanswered (a stalled receiver). */
export type Behaviour = number | 'stall';

/**
 * A real HTTP webhook receiver on 127.0.0.1: records every request, answers each with the next
 * scripted behaviour (then `then`, 200 by default), and resolves waiters as requests arrive.
 */
export class WebhookReceiver {
  readonly received: Received[] = [];
  private script: Behaviour[] = [];
  private waiters: Array<{ n: number; resolve: () => void }> = [];
  private stalled: http.ServerResponse[] = [];
  then: Behaviour = 200;
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      this.received.push({ headers, body: Buffer.concat(chunks).toString('utf8') });
      const b = this.script.shift() ?? this.then;
      if (b === 'stall') this.stalled.push(res);
      else res.writeHead(b, { 'content-type': 'text/plain' }).end(`answered ${b}`);
      this.waiters = this.waiters.filter((w) => (this.received.length >= w.n ? (w.resolve(), false) : true));
    });
  });

  static async start(): Promise<WebhookReceiver> {
    const r = new WebhookReceiver();
    await new Promise<void>((resolve) => r.server.listen(0, '127.0.0.1', resolve));
    return r;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  answer(...b: Behaviour[]): this {
    this.script.push(...b);
    return this;
  }

  /** Resolves once `n` requests have arrived in all; rejects after `ms` with what did. */
  waitFor(n: number, ms = 15_000): Promise<void> {
    if (this.received.length >= n) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`receiver: ${this.received.length} of ${n} requests after ${ms} ms`)), ms);
      this.waiters.push({ n, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }

  /** The parsed bodies of the requests so far. */
  events(): Array<{ id: string; type: string; organization_id: string; created_at: string; data: Record<string, unknown> }> {
    return this.received.map((r) => JSON.parse(r.body));
  }

  async close(): Promise<void> {
    for (const s of this.stalled) s.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
