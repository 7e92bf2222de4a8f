import crypto from 'node:crypto';

/** Standard Webhooks secrets: `whsec_` and the base64 of 32 random bytes; the bytes are the HMAC key. */
export function newWebhookSecret(): string {
  return `whsec_${crypto.randomBytes(32).toString('base64')}`;
}

function secretBytes(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

/**
 * The Standard Webhooks headers of one delivery: `webhook-signature` holds one `v1,<base64 HMAC-SHA256
 * of "id.timestamp.body">` per secret, space separated (two while a rotation's overlap lasts).
 */
export function signatureHeaders(id: string, timestampSeconds: number, body: string, secrets: readonly string[]): Record<string, string> {
  const signed = `${id}.${timestampSeconds}.${body}`;
  const signatures = secrets.map((s) => `v1,${crypto.createHmac('sha256', secretBytes(s)).update(signed).digest('base64')}`);
  return { 'webhook-id': id, 'webhook-timestamp': String(timestampSeconds), 'webhook-signature': signatures.join(' ') };
}
