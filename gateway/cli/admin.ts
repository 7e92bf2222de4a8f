import fs from 'node:fs';
import { Command, Option } from 'commander';
import { ConfigError } from '../../shared/config-fields.ts';
import { loadAdminCliConfig, type AdminCliConfig } from './admin-config.ts';

/**
 * `npm run admin -- …`: the admin API from a shell. Talks HTTP to a running gateway (ADMIN_URL, else
 * http://localhost:$PORT) with ADMIN_TOKEN, else the token generated into DATA_DIR/secrets.json.
 */
interface Globals {
  url?: string;
  token?: string;
}

function resolveTarget(g: Globals): { url: string; token: string } {
  const config = cliConfig();
  const url = g.url ? g.url.replace(/\/+$/, '') : config.url;
  let token = g.token ?? config.token;
  if (!token && fs.existsSync(config.secretsFile)) token = (JSON.parse(fs.readFileSync(config.secretsFile, 'utf8')) as { adminToken: string }).adminToken;
  if (!token) fail('no admin token: set ADMIN_TOKEN or --token (or run from the folder whose DATA_DIR the gateway uses)');
  return { url, token: token! };
}

let loaded: AdminCliConfig | null = null;
/** The environment, read once, the first time a command needs it (--help needs none). */
function cliConfig(): AdminCliConfig {
  try {
    loaded ??= loadAdminCliConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${err.message}\n`);
    process.exit(2);
  }
  return loaded;
}

function fail(msg: string): never {
  process.stderr.write(`error: ${msg}\n`);
  process.exit(1);
}

async function call(g: Globals, method: string, p: string, body?: unknown, contentType = 'application/json'): Promise<unknown> {
  const { url, token } = resolveTarget(g);
  let res: Response;
  try {
    res = await fetch(`${url}/admin/v1${p}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': contentType } : {}) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
  } catch (err) {
    fail(`cannot reach the gateway at ${url}: ${(err as Error).message}`);
  }
  const text = await res.text();
  const data = text ? (JSON.parse(text) as unknown) : null;
  if (!res.ok) {
    const e = data as { error?: string; message?: string } | null;
    fail(`${res.status} ${e?.error ?? ''}: ${e?.message ?? text}`);
  }
  return data;
}

const print = (data: unknown): void => {
  process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
};
const list = (s: string) => s.split(',').map((x) => x.trim()).filter(Boolean);
const int = (s: string) => {
  const n = Number(s);
  if (!Number.isInteger(n)) fail(`not an integer: ${s}`);
  return n;
};

const program = new Command('admin')
  .description('Operate the vehicle image service through its admin API')
  .option('--url <url>', 'gateway base URL (env ADMIN_URL, default http://localhost:$PORT)')
  .option('--token <token>', 'admin bearer token (env ADMIN_TOKEN, default from DATA_DIR/secrets.json)');
const g = () => program.opts<Globals>();

program.command('categories').description('list vehicle categories').action(async () => print(await call(g(), 'GET', '/categories')));

program
  .command('quickstart <name>')
  .description('create an organisation with a contract on every category, format and feature, and a key')
  .option('--rpm <n>', 'requests per minute', '600')
  .option('--quota <n>', 'monthly quota', '100000')
  .action(async (name: string, o: { rpm: string; quota: string }) => {
    const org = (await call(g(), 'POST', '/organizations', { name })) as { id: string };
    const cats = (await call(g(), 'GET', '/categories')) as { categories: { slug: string }[] };
    await call(g(), 'PUT', `/organizations/${org.id}/contract`, {
      categories: cats.categories.map((c) => c.slug),
      allowed_formats: ['webp', 'png', 'jpeg'],
      rpm_limit: int(o.rpm),
      monthly_quota: int(o.quota),
      active: true,
      features: ['spin'],
    });
    const key = (await call(g(), 'POST', `/organizations/${org.id}/keys`, { name: 'quickstart' })) as { id: string; key: string };
    print({ organization: org, key_id: key.id, key: key.key });
    process.stderr.write('The key is shown only now: keep it.\n');
  });

const orgs = program.command('orgs').description('organisations');
orgs.command('list').action(async () => print(await call(g(), 'GET', '/organizations')));
orgs.command('create <name>').action(async (name: string) => print(await call(g(), 'POST', '/organizations', { name })));
orgs.command('show <org>').action(async (org: string) => print(await call(g(), 'GET', `/organizations/${org}`)));

const contract = program.command('contract').description("an organisation's contract");
contract.command('show <org>').action(async (org: string) => print(await call(g(), 'GET', `/organizations/${org}/contract`)));
contract
  .command('set <org>')
  .requiredOption('--categories <slugs>', 'comma-separated category slugs')
  .requiredOption('--formats <list>', 'comma-separated formats: webp,png,jpeg')
  .requiredOption('--rpm <n>', 'requests per minute per key')
  .requiredOption('--quota <n>', 'requests per UTC month for the organisation')
  .addOption(new Option('--inactive', 'store the contract as not active'))
  .option('--origins <list>', "comma-separated browser origins allowed to call /v1 (CORS); '' clears; absent: unchanged")
  .option('--features <list>', "comma-separated contract features (spin); '' clears; absent: unchanged")
  .action(async (org: string, o: { categories: string; formats: string; rpm: string; quota: string; inactive?: boolean; origins?: string; features?: string }) =>
    print(
      await call(g(), 'PUT', `/organizations/${org}/contract`, {
        categories: list(o.categories),
        allowed_formats: list(o.formats),
        rpm_limit: int(o.rpm),
        monthly_quota: int(o.quota),
        active: !o.inactive,
        ...(o.origins !== undefined ? { allowed_origins: list(o.origins) } : {}),
        ...(o.features !== undefined ? { features: list(o.features) } : {}),
      }),
    ),
  );

const keys = program.command('keys').description('API keys');
keys
  .command('create <org>')
  .option('--name <name>')
  .action(async (org: string, o: { name?: string }) => print(await call(g(), 'POST', `/organizations/${org}/keys`, o.name ? { name: o.name } : {})));
keys.command('revoke <key-id>').action(async (id: string) => print(await call(g(), 'POST', `/keys/${id}/revoke`)));

const members = program.command('members').description('organisation members and bans');
members.command('add <org> <email>').action(async (org: string, email: string) => print(await call(g(), 'POST', `/organizations/${org}/members`, { email })));
members.command('ban <member-id>').action(async (id: string) => print(await call(g(), 'POST', `/members/${id}/ban`)));
members.command('unban <member-id>').action(async (id: string) => print(await call(g(), 'POST', `/members/${id}/unban`)));
members
  .command('sign-in-link <member-id>')
  .description("a single-use dashboard sign-in link for the member (DASHBOARD_LINK_TTL_SECONDS, default 15 min)")
  .action(async (id: string) => {
    const link = (await call(g(), 'POST', `/members/${id}/sign-in-links`)) as { url: string; expires_at: string };
    process.stdout.write(`${link.url}\n`);
    process.stderr.write(`Single use; expires at ${link.expires_at}.\n`);
  });

program.command('usage <org>').description("this UTC month's counted /v1 calls").action(async (org: string) => print(await call(g(), 'GET', `/organizations/${org}/usage`)));

const publish = (what: 'vehicles' | 'views', published: boolean) => async (id: string, view?: string) =>
  print(await call(g(), 'PATCH', what === 'vehicles' ? `/vehicles/${id}` : `/vehicles/${id}/views/${view}`, { published }));
const vehicles = program.command('vehicles').description('publish or unpublish vehicles');
vehicles.command('publish <vehicle-id>').action(publish('vehicles', true));
vehicles.command('unpublish <vehicle-id>').action(publish('vehicles', false));
const views = program.command('views').description("publish or unpublish a vehicle's view");
views.command('publish <vehicle-id> <view>').action(publish('views', true));
views.command('unpublish <vehicle-id> <view>').action(publish('views', false));

const catalog = program.command('catalog').description('catalog import and export (docs/catalog.md)');
catalog
  .command('import <file>')
  .description('validate and apply a catalog (.json, or .csv for the flat vehicle list) in one transaction')
  .action(async (file: string) => {
    const text = fs.readFileSync(file, 'utf8');
    const csv = file.toLowerCase().endsWith('.csv');
    print(await call(g(), 'POST', '/catalog/import', csv ? text : JSON.parse(text), csv ? 'text/csv' : 'application/json'));
  });
catalog
  .command('export')
  .option('--out <file>', 'write to a file instead of stdout')
  .action(async (o: { out?: string }) => {
    const data = await call(g(), 'GET', '/catalog/export');
    if (o.out) fs.writeFileSync(o.out, `${JSON.stringify(data, null, 2)}\n`);
    else print(data);
  });

program.parseAsync(process.argv).catch((err: unknown) => fail((err as Error).message));
