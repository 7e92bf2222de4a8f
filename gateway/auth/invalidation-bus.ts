import { Redis } from 'ioredis';
import type { Logger } from '../../shared/logger.ts';

/**
 * Tells every gateway instance that an organisation's keys, bans or contract changed, so their
 * in-process auth caches drop it. Without Redis only this process hears it; the others rely on
 * the cache TTL (under 5 s).
 */
export interface InvalidationBus {
  publish(orgId: string): Promise<void>;
  onInvalidate(handler: (orgId: string) => void): void;
  close(): Promise<void>;
}

const CHANNEL = 'vis:auth:invalidate';

export function createLocalBus(): InvalidationBus {
  const handlers: Array<(orgId: string) => void> = [];
  return {
    async publish(orgId) {
      for (const h of handlers) h(orgId);
    },
    onInvalidate(h) {
      handlers.push(h);
    },
    async close() {},
  };
}

export function createRedisBus(opts: { redisUrl: string; logger: Logger; channel?: string }): InvalidationBus {
  const channel = opts.channel ?? CHANNEL;
  const handlers: Array<(orgId: string) => void> = [];
  const emit = (orgId: string) => {
    for (const h of handlers) h(orgId);
  };
  const redisOpts = { lazyConnect: false, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 };
  const pub = new Redis(opts.redisUrl, redisOpts);
  const sub = new Redis(opts.redisUrl, { ...redisOpts, enableOfflineQueue: true, maxRetriesPerRequest: null });
  pub.on('error', () => {});
  let warned = false;
  sub.on('error', (err) => {
    if (!warned) opts.logger.warn({ err: err.message }, 'auth invalidation channel down; relying on cache TTL');
    warned = true;
  });
  sub.on('ready', () => {
    warned = false;
  });
  void sub.subscribe(channel).catch(() => {});
  sub.on('message', (_ch: string, msg: string) => emit(msg));
  return {
    async publish(orgId) {
      emit(orgId); // this instance at once, whatever Redis does
      try {
        await pub.publish(channel, orgId);
      } catch (err) {
        opts.logger.warn({ err: (err as Error).message, orgId }, 'could not publish auth invalidation');
      }
    },
    onInvalidate(h) {
      handlers.push(h);
    },
    async close() {
      pub.disconnect();
      sub.disconnect();
    },
  };
}
