import type { Logger } from '../../shared/logger.ts';
import { ServiceError } from '../../shared/errors.ts';
import { bufferedBody, connectRenderer, toServiceError, type RendererClient, type RendererConnection } from '../../shared/render-contract.ts';

/**
 * Parses RENDERER_ADDR: `host:port[,host:port…]` (one channel per address; a call that meets
 * UNAVAILABLE is retried on the next address) or `dns:///name:port` (one channel, round robin over
 * every address the name resolves to; a retry picks the next).
 */
export function parseAddresses(addresses: string): string[] {
  const list = addresses
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.length === 0) throw new Error('renderer client: no address given');
  return list;
}

/** Per-address state of the pool. */
interface Member {
  address: string;
  conn: RendererConnection;
  /** Not picked before this time (ms) unless every address is down: set by a failed call or health check. */
  downUntil: number;
  failures: number;
  /** When this address went down (its first failure since it last answered); null while up. */
  downSince: number | null;
}

/** Renders are retried on another address (or, all being down, waited for) until this close to the deadline. */
const RETRY_MARGIN_MS = 50;
/**
 * How long every address may have been down and a call still waits for one to come back: a restart
 * (a few seconds) is ridden through, an outage answers at once instead of holding every caller (and
 * its download slot) until its deadline.
 */
export const OUTAGE_WAIT_MS = 6000;
const HEALTH_INTERVAL_MS = 2000;

/**
 * The typed gRPC client of the renderer, as the gateway uses it: a pool over every address of
 * RENDERER_ADDR (one channel per listed address; `dns:///` is one round-robin channel that re-resolves
 * the name). A call that meets UNAVAILABLE before the header (renderer gone, draining, restarting)
 * marks that address down at once and is retried on another; RESOURCE_EXHAUSTED is retried once on
 * each other address; when every address is down the call waits for one to come back (a restarting
 * renderer), all within the request's deadline, for up to `outageWaitMs` (OUTAGE_WAIT_MS) after the
 * last of them went down; past that a call fails at once with UNAVAILABLE until one answers again.
 * A listed address is also health-checked every 2 s.
 */
export function createRendererClient(opts: { addresses: string; logger?: Logger; healthIntervalMs?: number; outageWaitMs?: number }): RendererClient {
  const outageWaitMs = opts.outageWaitMs ?? OUTAGE_WAIT_MS;
  const addrs = parseAddresses(opts.addresses);
  const clients: Member[] = addrs.map((a) => ({ address: a, conn: connectRenderer(a), downUntil: 0, failures: 0, downSince: null }));
  let next = 0;
  const isUp = (c: Member) => c.downUntil <= Date.now();
  /** Round robin over the addresses that are up and not yet tried by this call; else the one back first. */
  const pick = (tried: Set<Member>): Member => {
    for (let i = 0; i < clients.length; i++) {
      const c = clients[next++ % clients.length]!;
      if (isUp(c) && !tried.has(c)) return c;
    }
    for (let i = 0; i < clients.length; i++) {
      const c = clients[next++ % clients.length]!;
      if (!tried.has(c)) return c;
    }
    return clients.reduce((a, b) => (a.downUntil <= b.downUntil ? a : b));
  };
  const markDown = (c: Member, why: string) => {
    c.failures++;
    c.downSince ??= Date.now();
    const wasUp = isUp(c);
    c.downUntil = Date.now() + Math.min(2000, 250 * 2 ** Math.min(c.failures - 1, 4));
    if (wasUp) opts.logger?.warn({ address: c.address, why }, 'renderer marked down');
  };
  const markUp = (c: Member) => {
    if (c.failures > 0) opts.logger?.info({ address: c.address }, 'renderer back');
    c.failures = 0;
    c.downUntil = 0;
    c.downSince = null;
  };
  /** Resolves once the channel is connected, or at `until` (whichever first), or on abort. */
  const waitForReady = (c: Member, until: number, signal?: AbortSignal) =>
    new Promise<void>((resolve) => {
      const done = () => {
        signal?.removeEventListener('abort', done);
        resolve();
      };
      signal?.addEventListener('abort', done, { once: true });
      c.conn.waitForReady(new Date(until), done);
    });

  /**
   * Runs `once` on a member, failing over as described above, until `deadline`. `retryable` decides
   * which errors move on to the next address.
   */
  async function withFailover<T>(deadline: number, signal: AbortSignal | undefined, once: (c: Member) => Promise<T>): Promise<T> {
    const tried = new Set<Member>();
    const exhausted = new Set<Member>();
    let lastErr: ServiceError | null = null;
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw new ServiceError('unavailable', 'The render was cancelled');
      if (Date.now() >= deadline - RETRY_MARGIN_MS) {
        throw lastErr ?? new ServiceError('deadline_exceeded');
      }
      const c = pick(tried);
      if (!isUp(c) || tried.has(c)) {
        // every address is down or already failed this call: wait (briefly) for one to come back,
        // unless all of them have been down for longer than a restart takes
        const since = Math.max(...clients.map((m) => m.downSince ?? Date.now()));
        const waitUntil = since + outageWaitMs;
        if (Date.now() >= waitUntil) throw lastErr ?? new ServiceError('unavailable');
        await waitForReady(c, Math.min(deadline - RETRY_MARGIN_MS, Date.now() + 1000, waitUntil), signal);
        tried.clear();
        if (signal?.aborted) continue;
      }
      try {
        const r = await once(c);
        markUp(c);
        return r;
      } catch (e) {
        const se = toServiceError(e);
        lastErr = se;
        // an UNAVAILABLE with the renderer's retry hint (a spin frame being baked there) is an answer, not an outage
        if (se.code === 'unavailable' && !signal?.aborted && !se.headers?.['Retry-After']) {
          markDown(c, se.message);
          tried.add(c);
          // the address going down is logged once (markDown); each retry only at debug level
          opts.logger?.debug({ address: c.address, attempt }, 'renderer unavailable, trying again on the pool');
          continue;
        }
        if (se.code === 'resource_exhausted' && clients.length > 1 && !exhausted.has(c)) {
          exhausted.add(c);
          tried.add(c);
          if (exhausted.size < clients.length) continue; // another renderer may have room
        }
        throw se;
      }
    }
  }

  // background health checks of listed addresses (a dns:/// channel balances over healthy pods by itself)
  let healthTimer: NodeJS.Timeout | null = null;
  if (clients.length > 1 && (opts.healthIntervalMs ?? HEALTH_INTERVAL_MS) > 0) {
    healthTimer = setInterval(() => {
      for (const c of clients) {
        c.conn.health(new Date(Date.now() + 1000)).then(
          (status) => {
            if (status !== 'SERVING') markDown(c, `health ${status}`);
            else if (!isUp(c) || c.downSince !== null) markUp(c); // an outage's start must not outlive it
          },
          () => markDown(c, 'health check failed'),
        );
      }
    }, opts.healthIntervalMs ?? HEALTH_INTERVAL_MS);
    healthTimer.unref();
  }

  return {
    async render(req, callOpts) {
      const deadline = new Date(Date.now() + callOpts.deadlineMs);
      return withFailover(deadline.getTime(), callOpts.signal, async (c) => {
        // The whole picture is read inside the failover: a renderer that dies after its header (a
        // SIGKILLed pod mid-stream) is retried on another like one that died before it. The renderer
        // has finished the picture before it sends the header, so this delays the first byte only by
        // the transfer of a few MB at most over the internal network; the chunks are passed on as they came.
        const stream = await c.conn.render(req, deadline, callOpts);
        const chunks: Buffer[] = [];
        for await (const b of stream.body) chunks.push(b);
        return { header: stream.header, body: bufferedBody(chunks), timing: stream.timing };
      });
    },

    async describeSet(id, o = {}) {
      const deadline = new Date(Date.now() + (o.deadlineMs ?? 5000));
      return withFailover(deadline.getTime(), undefined, (c) => c.conn.describeSet(id, deadline));
    },

    async health(o = {}) {
      const deadline = new Date(Date.now() + (o.deadlineMs ?? 2000));
      for (let i = 0; i < clients.length; i++) {
        const c = pick(new Set());
        if ((await c.conn.health(deadline).catch(() => null)) === 'SERVING') return true;
      }
      return false;
    },

    async describeRenderer(o = {}) {
      const deadline = new Date(Date.now() + (o.deadlineMs ?? 2000));
      return withFailover(deadline.getTime(), undefined, (c) => c.conn.describeRenderer(deadline));
    },

    unreachable() {
      return clients.every((c) => c.downSince !== null);
    },

    close() {
      if (healthTimer) clearInterval(healthTimer);
      for (const c of clients) c.conn.close();
    },
  };
}
