import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { TargetRefused, checkUrlShape, vetAddresses, type TargetPolicy } from './target-safety.ts';

/** Longest event body sent; a larger one is not sent (marked failed). */
export const MAX_BODY_BYTES = 64 * 1024;
/** How much of a receiver's answer is read (for the log and the delivery log), never interpreted. */
export const MAX_RESPONSE_BYTES = 4 * 1024;

export interface PostResult {
  /** The receiver's HTTP status; null when none came (refused target, network error, timeout). */
  status: number | null;
  /** Why no usable answer came, for the log; null with a status. */
  error: string | null;
  /** At most MAX_RESPONSE_BYTES of the answer, as text. */
  response: string;
}

export interface PostOptions {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** The whole exchange, name resolution included (WEBHOOK_TIMEOUT_MS). */
  timeoutMs: number;
  policy: TargetPolicy;
}

/**
 * One POST to a webhook target. The host is resolved and vetted here and the connection goes to
 * the vetted address (the request's `lookup` answers with it), so a DNS answer that changes between
 * check and connect cannot reach a private address. Never throws.
 */
export async function postWebhook(opts: PostOptions): Promise<PostResult> {
  if (Buffer.byteLength(opts.body) > MAX_BODY_BYTES) return { status: null, error: `body over ${MAX_BODY_BYTES} bytes`, response: '' };
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), opts.timeoutMs);
  try {
    const url = checkUrlShape(opts.url, opts.policy);
    const addresses = await withAbort(vetAddresses(url, opts.policy), controller.signal);
    const address = addresses[0]!;
    const family = net.isIP(address);
    return await send(url, address, family, opts, controller.signal);
  } catch (err) {
    if (controller.signal.aborted) return { status: null, error: `no answer within ${opts.timeoutMs} ms`, response: '' };
    if (err instanceof TargetRefused) return { status: null, error: err.message, response: '' };
    return { status: null, error: describe(err), response: '' };
  } finally {
    clearTimeout(timer);
  }
}

function send(url: URL, address: string, family: number, opts: PostOptions, signal: AbortSignal): Promise<PostResult> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: 'POST',
        signal,
        agent: false, // one connection per attempt: no pooled socket to an address resolved earlier
        headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(opts.body)), 'user-agent': 'vehicle-image-service-webhooks/1', ...opts.headers },
        lookup: ((_host: string, o: { all?: boolean }, cb: (...a: unknown[]) => void) => {
          if (o?.all) cb(null, [{ address, family }]);
          else cb(null, address, family);
        }) as unknown as net.LookupFunction,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => {
          resolve({ status: res.statusCode ?? null, error: null, response: Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BYTES).toString('utf8') });
          res.destroy();
        };
        res.on('data', (c: Buffer) => {
          chunks.push(c);
          size += c.length;
          if (size >= MAX_RESPONSE_BYTES) done();
        });
        res.on('end', done);
        res.on('error', done); // the status came: that is the answer, whatever happens to the rest
        // a body still coming when the attempt's time is up does not undo the status already received
        signal.addEventListener('abort', done, { once: true });
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

function withAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return e?.code ? `${e.code}: ${e.message}` : String(e?.message ?? err);
}
