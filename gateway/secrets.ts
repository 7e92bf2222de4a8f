import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { GatewayConfig, KeyedSecret } from '../shared/config.ts';

export interface GatewaySecrets {
  adminToken: string;
  /** First signs image URLs; all verify (rotation by kid). */
  imageSigningKeys: KeyedSecret[];
  /** First hashes new API keys; all are tried on lookup (rotation by secret id). */
  apiKeyHashSecrets: KeyedSecret[];
  /** What was generated on this start (to print once). */
  generated: { adminToken: boolean };
}

interface StoredSecrets {
  adminToken: string;
  imageSigningKey: { id: string; secret: string };
  apiKeyHashSecret: { id: string; secret: string };
}

/**
 * Secrets come from the environment when set; otherwise they are generated once into
 * DATA_DIR/secrets.json (mode 0600) so that a single machine needs no setup and keeps its keys
 * valid across restarts. Several gateway instances must be given the same secrets by environment.
 */
export function loadSecrets(config: GatewayConfig): GatewaySecrets {
  const file = path.join(config.dataDir, 'secrets.json');
  let stored: StoredSecrets | null = null;
  let generatedAdmin = false;
  const needStored = !config.adminToken || !config.imageSigningKeys || !config.apiKeyHashSecrets;
  if (needStored) {
    if (fs.existsSync(file)) {
      stored = JSON.parse(fs.readFileSync(file, 'utf8')) as StoredSecrets;
    } else {
      stored = {
        adminToken: `adm_${crypto.randomBytes(24).toString('base64url')}`,
        imageSigningKey: { id: `k${Date.now().toString(36)}`, secret: crypto.randomBytes(32).toString('base64url') },
        apiKeyHashSecret: { id: `h${Date.now().toString(36)}`, secret: crypto.randomBytes(32).toString('base64url') },
      };
      fs.mkdirSync(config.dataDir, { recursive: true });
      fs.writeFileSync(file, JSON.stringify(stored, null, 2), { mode: 0o600 });
      generatedAdmin = !config.adminToken;
    }
  }
  const fromStored = (s: { id: string; secret: string }): KeyedSecret[] => [
    { id: s.id, secret: Buffer.from(s.secret, 'base64url') },
  ];
  return {
    adminToken: config.adminToken ?? stored!.adminToken,
    imageSigningKeys: config.imageSigningKeys ?? fromStored(stored!.imageSigningKey),
    apiKeyHashSecrets: config.apiKeyHashSecrets ?? fromStored(stored!.apiKeyHashSecret),
    generated: { adminToken: generatedAdmin },
  };
}
