import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadGatewayConfig } from '../../../gateway/config.ts';
import { createLogger, type Logger } from '../../../shared/logger.ts';
import type { Database } from '../../../gateway/db/database.ts';
import type { ImageRenderer } from '../../../gateway/render/image-renderer.ts';
import { startGateway, type GatewayHandle } from '../../../gateway/service.ts';
import { openDatabase } from '../../../gateway/db/open.ts';
import { REAL_DATABASE_URL, REAL_REDIS_URL, createScratchDatabase } from './backend.ts';

/** A small catalog whose shape the suites rely on (see catalog.test.ts). */
export const TEST_CATALOG = fileURLToPath(new URL('./test-catalog.json', import.meta.url));

export interface TestGateway extends GatewayHandle {
  admin: AdminClient;
  get(pathname: string, headers?: Record<string, string>): Promise<Answer>;
  getWithKey(key: string, pathname: string, headers?: Record<string, string>): Promise<Answer>;
  dataDir: string;
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  text: string;
}

export async function request(url: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  return { status: res.status, headers: res.headers, body, text };
}

export interface StartOptions {
  env?: Record<string, string>;
  renderer?: ImageRenderer | null;
  /** Share another gateway's database (several instances over one store). */
  db?: Database;
  dataDir?: string;
  seedDemo?: boolean;
  /** A logger instead of the suite's silent one (tests that read the log lines). */
  logger?: Logger;
  /** The limits' clock (see GatewayOptions.limitsClock). */
  limitsClock?: () => number;
  /** A catalog instead of TEST_CATALOG (one that names sets of a test's own ASSETS_DIR). */
  catalogFile?: string;
}

/**
 * The embedded database as a first start leaves it (PGlite's initdb, then the migrations), made once per
 * test process and copied into each test gateway's DATA_DIR: initdb costs seconds of CPU a gateway (4.6 s
 * here) and the suite starts dozens, while a copy opens in half a second. Each gateway still gets its
 * own database; what a first start does is tested where it is the subject (start-phases, process-start).
 */
let embeddedTemplate: Promise<string> | null = null;

function embeddedDatabaseTemplate(): Promise<string> {
  if (embeddedTemplate === null) {
    embeddedTemplate = (async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vis-pg-template-'));
      process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
      const db = await openDatabase({ databaseUrl: null, dataDir: dir });
      await db.close();
      return path.join(dir, 'pg');
    })();
  }
  return embeddedTemplate;
}

/**
 * Puts the migrated embedded database (the template above) into `dataDir`, for a test that starts a
 * gateway process of its own on the embedded defaults where a first start is not its subject: that
 * child then opens the database instead of running initdb (4.6 s of CPU here).
 */
export async function seedEmbeddedDatabase(dataDir: string): Promise<void> {
  fs.cpSync(await embeddedDatabaseTemplate(), path.join(dataDir, 'pg'), { recursive: true });
}

/**
 * A real gateway on port 0 over the suite's backend (see backend.ts), with the test
 * catalog imported and no demo organisation (tests make their own through the admin API).
 */
export async function startTestGateway(opts: StartOptions = {}): Promise<TestGateway> {
  const dataDir = opts.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'vis-gw-'));
  const scratch = opts.db ? null : await createScratchDatabase();
  if (!opts.db && !REAL_DATABASE_URL && !fs.existsSync(path.join(dataDir, 'pg'))) {
    fs.cpSync(await embeddedDatabaseTemplate(), path.join(dataDir, 'pg'), { recursive: true });
  }
  const config = loadGatewayConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    SEED_DEMO: opts.seedDemo === false ? 'false' : 'true',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ...(scratch ? { DATABASE_URL: scratch.url } : {}),
    ...(REAL_REDIS_URL ? { REDIS_URL: REAL_REDIS_URL } : {}),
    ...opts.env,
  });
  const gw = await startGateway({
    config,
    logger: opts.logger ?? createLogger('test-gateway', config.logLevel),
    renderer: opts.renderer ?? null,
    db: opts.db,
    demoCatalogFile: opts.catalogFile ?? TEST_CATALOG,
    limitsClock: opts.limitsClock,
  });
  const admin = new AdminClient(gw.url, gw.adminToken);
  return {
    ...gw,
    admin,
    dataDir,
    get: (p, headers = {}) => request(gw.url + p, { headers }),
    getWithKey: (key, p, headers = {}) => request(gw.url + p, { headers: { 'x-api-key': key, ...headers } }),
    async close() {
      await gw.close();
      await scratch?.drop();
      if (!opts.dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ContractBody {
  categories: string[];
  allowed_formats: string[];
  rpm_limit: number;
  monthly_quota: number;
  active: boolean;
  /** Contract features (gateway/contract-features.ts); absent: unchanged. */
  features?: string[];
}

export const ALL_CATEGORIES = ['passenger-car', 'suv', 'light-commercial', 'sports'];

/** The admin API as black-box tests and operators use it. */
export class AdminClient {
  constructor(
    readonly base: string,
    readonly token: string,
  ) {}

  call(method: string, p: string, body?: unknown, token = this.token): Promise<Answer> {
    return request(`${this.base}/admin/v1${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: body !== undefined ? JSON.stringify(body) : undefined,
    });
  }

  private async ok(method: string, p: string, body?: unknown): Promise<any> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const a = await this.call(method, p, body);
    if (a.status >= 300) throw new Error(`${method} ${p} → ${a.status} ${a.text}`);
    return a.body;
  }

  createOrg(name = 'Test org'): Promise<{ id: string; name: string }> {
    return this.ok('POST', '/organizations', { name });
  }

  putContract(org: string, c: Partial<ContractBody> = {}) {
    return this.ok('PUT', `/organizations/${org}/contract`, {
      categories: ALL_CATEGORIES,
      allowed_formats: ['webp', 'png', 'jpeg'],
      rpm_limit: 1000,
      monthly_quota: 100_000,
      active: true,
      ...c,
    });
  }

  createKey(org: string, name?: string): Promise<{ id: string; key: string }> {
    return this.ok('POST', `/organizations/${org}/keys`, name ? { name } : {});
  }

  revokeKey(id: string) {
    return this.ok('POST', `/keys/${id}/revoke`);
  }

  addMember(org: string, email: string): Promise<{ id: string; email: string }> {
    return this.ok('POST', `/organizations/${org}/members`, { email });
  }

  ban(member: string) {
    return this.ok('POST', `/members/${member}/ban`);
  }

  unban(member: string) {
    return this.ok('POST', `/members/${member}/unban`);
  }

  usage(org: string): Promise<{ month: string; requests: number }> {
    return this.ok('GET', `/organizations/${org}/usage`);
  }

  /** An organisation with a contract (defaults: everything allowed, generous limits) and one key. */
  async customer(c: Partial<ContractBody> = {}): Promise<{ org: string; key: string; keyId: string }> {
    const org = await this.createOrg();
    await this.putContract(org.id, c);
    const k = await this.createKey(org.id, 'test');
    return { org: org.id, key: k.key, keyId: k.id };
  }
}
