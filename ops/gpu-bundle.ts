/**
 * `npm run gpu:bundle -- --out <file.mjs> [--set sedan-a] [--model file.glb --map roles.json]`
 *
 * Packs what `gpu:check` needs into one file that runs on a bare Linux x86-64 host with nothing but
 * `node` (20.19+) and the host's Vulkan driver: `node gpu-check.mjs [gpu-check options]`
 * (docs/deploy.md, "Checking a GPU host"). Inside, brotli-compressed: the check and the renderer compiled
 * to JavaScript; only the files of the production packages the check opened (found by running it once,
 * with every module load recorded), plus their native libraries, wasm, fonts and protos; the Vulkan
 * loader gl links to; one committed asset set; and one glTF model (a small generated car unless one
 * is given). The file unpacks itself once into a folder under the system's temporary folder.
 */
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { Command } from 'commander';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The bundle must fit where it is carried (a 64 MiB working tree beside a node binary). */
const MAX_BYTES = 30 * 1024 * 1024;

const program = new Command()
  .name('gpu-bundle')
  .requiredOption('--out <file>', 'the bundle to write (a .mjs file)')
  .option('--set <id>', 'the committed asset set to include', 'sedan-a')
  .option('--model <file>', 'the glTF model to include (.glb); default: a small generated car')
  .option('--map <file>', "that model's role map");
program.parse();
const o = program.opts<{ out: string; set: string; model?: string; map?: string }>();

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gpu-bundle-'));
const app = path.join(work, 'app');
const step = (what: string) => console.log(`gpu-bundle: ${what}`);

// 1. the check and everything it imports, compiled (relative .ts imports become .js) into app/
step('compiling the check and the renderer');
const tsconfig = path.join(work, 'tsconfig.json');
fs.writeFileSync(
  tsconfig,
  JSON.stringify({
    extends: path.join(ROOT, 'tsconfig.build.json'),
    compilerOptions: { rootDir: ROOT, outDir: app, sourceMap: false, typeRoots: [path.join(ROOT, 'node_modules', '@types')] },
    files: ['ops/gpu-check.ts', 'renderer/backends/cpu/worker.ts', 'renderer/types/opentype.d.ts', 'baker/gltf/draco3dgltf.d.ts'].map((f) => path.join(ROOT, f)),
  }),
);
run(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', tsconfig]);
for (const rel of ['package.json', 'proto', 'renderer/backends/cpu/wasm/kernel.wasm']) fs.cpSync(path.join(ROOT, rel), path.join(app, rel), { recursive: true });
fs.cpSync(path.join(ROOT, 'assets', o.set), path.join(app, 'assets', o.set), { recursive: true });

// 2. the model
const modelDir = path.join(app, 'gpu-check-model');
fs.mkdirSync(modelDir, { recursive: true });
if (o.model) {
  fs.copyFileSync(o.model, path.join(modelDir, 'model.glb'));
  if (o.map) fs.copyFileSync(o.map, path.join(modelDir, 'map.json'));
} else {
  step('generating a small glTF car');
  run(process.execPath, ['--import', 'tsx', '-e', `import('${path.join(ROOT, 'test/support/gltf-car.ts')}').then((m) => m.writeFixtureCar(${JSON.stringify(path.join(modelDir, 'model.glb'))}))`]);
}

// 3. the packages the check opens: one smoke run from the checkout's node_modules, every load recorded
step('recording which package files the check opens (a smoke run)');
fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(app, 'node_modules'));
const traceFile = path.join(work, 'trace.txt');
const hooks = path.join(work, 'esm-hooks.mjs');
// ESM imports through a resolve hook (it runs on the loader's thread: it appends as it goes), CommonJS
// requires and require.resolve (the plate font) through Module._resolveFilename, both into one list
fs.writeFileSync(
  hooks,
  `import fs from 'node:fs';
export async function resolve(s, c, next) { const r = await next(s, c); if (r.url.startsWith('file:')) fs.appendFileSync(${JSON.stringify(traceFile)}, r.url + '\\n'); return r; }
`,
);
const tracer = path.join(work, 'trace.mjs');
fs.writeFileSync(
  tracer,
  `import { register, createRequire } from 'node:module';
import fs from 'node:fs';
register(${JSON.stringify(new URL(`file://${hooks}`).href)});
const require = createRequire(import.meta.url);
const Module = require('node:module');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function () {
  const f = resolveFilename.apply(this, arguments);
  fs.appendFileSync(${JSON.stringify(traceFile)}, f + '\\n');
  return f;
};
`,
);
run(process.execPath, ['--import', tracer, path.join(app, 'ops', 'gpu-check.js'), '--smoke', '--assets', path.join(app, 'assets')], { ANGLE_DEFAULT_PLATFORM: 'vulkan' });
fs.unlinkSync(path.join(app, 'node_modules'));

const loaded = new Set<string>();
for (const line of fs.readFileSync(traceFile, 'utf8').split('\n')) {
  const f = line.startsWith('file:') ? fileURLToPath(line) : line;
  if (f.startsWith(path.join(ROOT, 'node_modules') + path.sep) && fs.existsSync(f)) loaded.add(f);
}
/** The package folder a file belongs to (node_modules/name or node_modules/@scope/name, nested ones too). */
function packageOf(file: string): string {
  const rel = path.relative(ROOT, file).split(path.sep);
  let end = 0;
  for (let i = 0; i < rel.length; i++) if (rel[i] === 'node_modules') end = i + (rel[i + 1]!.startsWith('@') ? 3 : 2);
  return path.join(ROOT, ...rel.slice(0, end));
}
const packages = new Set([...loaded].map(packageOf));
// files a package opens by path rather than by import or require.resolve: native addons and libraries, wasm, protos
const RUNTIME_FILE = /\.(node|wasm|proto)$|\.so(\.\d+)*$/;
const SKIP_DIR = new Set(['deps', 'obj.target', '.deps', 'src', 'test', 'tests', 'docs', 'examples', 'include']);
let copied = 0;
const copy = (from: string) => {
  const to = path.join(app, path.relative(ROOT, from));
  fs.mkdirSync(path.dirname(to), { recursive: true });
  // a link (gl's libvulkan.so.1 → the system loader) is copied as the file it points to
  fs.copyFileSync(fs.realpathSync(from), to);
  fs.chmodSync(to, fs.statSync(fs.realpathSync(from)).mode & 0o777);
  copied += fs.statSync(to).size;
};
for (const f of loaded) copy(f);
for (const pkg of packages) {
  copy(path.join(pkg, 'package.json'));
  const walk = (dir: string) => {
    for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, d.name);
      if (d.isDirectory()) {
        if (!SKIP_DIR.has(d.name) && d.name !== 'node_modules') walk(p);
      } else if (RUNTIME_FILE.test(d.name) && fs.existsSync(p)) copy(p);
    }
  };
  walk(pkg);
}
step(`${packages.size} packages, ${loaded.size} files loaded, ${(copied / 1e6).toFixed(1)} MB copied`);

// 4. one archive (path, mode, size, bytes), brotli-compressed, base64 inside a launcher
const parts: Buffer[] = [];
const addTree = (dir: string) => {
  for (const d of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) addTree(p);
    else {
      const rel = Buffer.from(path.relative(app, p).split(path.sep).join('/'));
      const data = fs.readFileSync(p);
      const head = Buffer.alloc(12);
      head.writeUInt16LE(rel.length, 0);
      head.writeUInt16LE(fs.statSync(p).mode & 0o777, 2);
      head.writeDoubleLE(data.length, 4);
      parts.push(head, rel, data);
    }
  }
};
addTree(app);
const archive = Buffer.concat(parts);
step(`compressing ${(archive.length / 1e6).toFixed(1)} MB`);
const packed = zlib.brotliCompressSync(archive, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9, [zlib.constants.BROTLI_PARAM_LGWIN]: 24, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: archive.length } });
const hash = crypto.createHash('sha256').update(packed).digest('hex').slice(0, 16);
const launcher = fs.readFileSync(path.join(ROOT, 'ops', 'gpu-bundle-launcher.mjs'), 'utf8').replace('__HASH__', hash).replace('__PAYLOAD__', packed.toString('base64'));
fs.writeFileSync(o.out, launcher);
fs.rmSync(work, { recursive: true, force: true });
const size = fs.statSync(o.out).size;
step(`wrote ${o.out}: ${(size / 1024 / 1024).toFixed(1)} MiB (run: node ${path.basename(o.out)} [gpu-check options])`);
if (size > MAX_BYTES) {
  console.error(`gpu-bundle: ${o.out} is larger than ${MAX_BYTES / 1024 / 1024} MiB`);
  process.exit(1);
}

function run(cmd: string, args: string[], env: Record<string, string> = {}): void {
  const r = spawnSync(cmd, args, { stdio: 'inherit', cwd: ROOT, env: { ...process.env, ...env } });
  if (r.status !== 0) {
    console.error(`gpu-bundle: ${path.basename(cmd)} ${args.slice(0, 2).join(' ')} failed (${r.status ?? r.signal})`);
    process.exit(1);
  }
}

