import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../../shared/logger.ts';
import type { AdminService } from '../admin/admin-service.ts';
import type { AssetSetDirectory } from '../catalog/asset-sets.ts';
import { parseCatalogJson } from '../catalog/catalog-file.ts';
import { importCatalog } from '../catalog/import.ts';
import type { Database } from '../db/database.ts';
import { untimed, type Phase } from '../start-phase.ts';
import { CONTRACT_FEATURES } from '../contract-features.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const DEMO_CATALOG_PATH = path.join(ROOT, 'assets', 'demo-catalog.json');

async function once(db: Database, key: string): Promise<boolean> {
  const rows = await db.query("INSERT INTO settings (key, value) VALUES ($1, 'done') ON CONFLICT DO NOTHING RETURNING key", [key]);
  return rows.length > 0;
}

/** Imports the demo catalog into an empty catalog, once per database. */
export async function seedDemoCatalog(
  db: Database,
  assets: AssetSetDirectory,
  logger: Logger,
  file = DEMO_CATALOG_PATH,
  phase: Phase = untimed,
): Promise<void> {
  const [{ n }] = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM vehicles')) as [{ n: number }];
  if (n > 0 || !(await once(db, 'demo_catalog_seeded'))) return;
  try {
    const started = performance.now();
    const summary = await importCatalog(db, assets, parseCatalogJson(fs.readFileSync(file, 'utf8')), { phase });
    logger.info({ file: path.relative(ROOT, file), ...summary, ms: Math.round(performance.now() - started) }, 'seeded the demo catalog');
  } catch (err) {
    // The service still runs (an operator can import a catalog); the next start tries again.
    await db.query("DELETE FROM settings WHERE key = 'demo_catalog_seeded'");
    logger.error({ err, file }, 'could not seed the demo catalog');
  }
}

/**
 * Creates the demo organisation, its contract, a key and a member (who signs in to the dashboard), once;
 * returns the key to print and the member, for whom the start prints a sign-in link.
 */
export async function seedDemoOrganization(
  db: Database,
  admin: AdminService,
): Promise<{ orgId: string; key: string; memberId: string } | null> {
  if (!(await once(db, 'demo_org_seeded'))) return null;
  const org = await admin.createOrganization('Demo organization');
  const categories = (await admin.listCategories()).map((c) => c.slug);
  await admin.putContract(org.id, {
    categories,
    allowed_formats: ['webp', 'png', 'jpeg'],
    rpm_limit: 600,
    monthly_quota: 100_000,
    active: true,
    // every feature, so the playground's spin viewer works from a fresh clone
    features: [...CONTRACT_FEATURES],
  });
  const { key } = await admin.createKey(org.id, 'demo');
  const member = await admin.addMember(org.id, 'demo@example.com');
  return { orgId: org.id, key, memberId: member.id };
}
