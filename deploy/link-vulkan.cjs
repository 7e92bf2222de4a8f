// ANGLE (inside the optional `gl` package) dlopens libvulkan.so.1 from its own folder, not from the
// system's library path, so the install links the system loader there. Missing gl or missing
// loader is not an error: the renderer then serves from its cpu backend.
const fs = require('node:fs');
const path = require('node:path');

const candidates = [
  '/usr/lib/x86_64-linux-gnu/libvulkan.so.1',
  '/usr/lib/aarch64-linux-gnu/libvulkan.so.1',
  '/usr/lib64/libvulkan.so.1',
  '/usr/lib/libvulkan.so.1',
];
let glDir;
try {
  glDir = path.join(path.dirname(require.resolve('gl/package.json')), 'build', 'Release');
} catch {
  process.exit(0);
}
const loader = candidates.find((p) => fs.existsSync(p));
if (!loader || !fs.existsSync(glDir)) process.exit(0);
const link = path.join(glDir, 'libvulkan.so.1');
try {
  fs.rmSync(link, { force: true });
  fs.symlinkSync(loader, link);
  console.log(`linked ${link} -> ${loader}`);
} catch (err) {
  console.warn(`could not link the Vulkan loader for gl: ${err.message}`);
}
