import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { GatewayConfig } from './config.ts';
import type { KeyedSecret } from '../shared/config-fields.ts';

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
  adminToken?: string;
  imageSigningKey?: { id: string; secret: string };
  apiKeyHashSecret?: { id: string; secret: string };
}

/**
 * Secrets come from the environment when set; what is not given is generated once into
 * DATA_DIR/secrets.json (mode 0600) so that a single machine needs no setup and keeps its keys valid
 * across restarts. The file holds only what was generated because it was not given: a given
 * ADMIN_TOKEN always wins and a stored admin token is removed from the file (it would silently become
 * the admin token again if the variable were later unset). Generated key material is kept (keys hashed
 * or URLs signed with it would otherwise stop verifying). Several gateway instances must be given the
 * same secrets by environment.
 */
export function loadSecrets(config: GatewayConfig): GatewaySecrets {
  const file = path.join(config.dataDir, 'secrets.json');
  const stored: StoredSecrets = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as StoredSecrets) : {};
  let changed = false;
  let generatedAdmin = false;
  if (config.adminToken) {
    if (stored.adminToken !== undefined) {
      delete stored.adminToken;
      changed = true;
    }
  } else if (!stored.adminToken) {
    stored.adminToken = `adm_${crypto.randomBytes(24).toString('base64url')}`;
    generatedAdmin = true;
    changed = true;
  }
  if (!config.imageSigningKeys && !stored.imageSigningKey) {
    stored.imageSigningKey = { id: `k${Date.now().toString(36)}`, secret: crypto.randomBytes(32).toString('base64url') };
    changed = true;
  }
  if (!config.apiKeyHashSecrets && !stored.apiKeyHashSecret) {
    stored.apiKeyHashSecret = { id: `h${Date.now().toString(36)}`, secret: crypto.randomBytes(32).toString('base64url') };
    changed = true;
  }
  if (changed) {
    fs.mkdirSync(config.dataDir, { recursive: true });
    if (Object.keys(stored).length === 0) {
      fs.rmSync(file, { force: true });
    } else {
      const tmp = `${file}.${process.pid}.tmp`;
      fs.writeFileSync(tmp, JSON.stringify(stored, null, 2), { mode: 0o600 });
      fs.renameSync(tmp, file);
    }
  }
  const fromStored = (s: { id: string; secret: string }): KeyedSecret[] => [
    { id: s.id, secret: Buffer.from(s.secret, 'base64url') },
  ];
  return {
    adminToken: config.adminToken ?? stored.adminToken!,
    imageSigningKeys: config.imageSigningKeys ?? fromStored(stored.imageSigningKey!),
    apiKeyHashSecrets: config.apiKeyHashSecrets ?? fromStored(stored.apiKeyHashSecret!),
    generated: { adminToken: generatedAdmin },
  };
}
