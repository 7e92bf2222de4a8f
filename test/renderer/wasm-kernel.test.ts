import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KERNEL_WASM_URL, WasmKernel } from '../../renderer/backends/cpu/wasm-kernel.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The committed kernel.wasm against its AssemblyScript source; its pixels are compared with the JavaScript kernel in kernel.test.ts. */
describe('cpu kernel, WebAssembly build', function () {
  this.timeout(120_000);

  it('is what `npm run build:kernel` makes of wasm/kernel.ts (source and binary cannot drift)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kernel-wasm-'));
    try {
      const out = path.join(dir, 'kernel.wasm');
      const wasmDir = path.join(ROOT, 'renderer/backends/cpu/wasm');
      const asc = path.join(ROOT, 'node_modules/assemblyscript/bin/asc.js');
      // the same arguments as package.json's build:kernel, only the output elsewhere
      const script = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts['build:kernel'] as string;
      expect(script).to.equal(
        'asc renderer/backends/cpu/wasm/kernel.ts --config renderer/backends/cpu/wasm/asconfig.json --outFile renderer/backends/cpu/wasm/kernel.wasm',
      );
      const r = spawnSync(process.execPath, [asc, path.join(wasmDir, 'kernel.ts'), '--config', path.join(wasmDir, 'asconfig.json'), '--outFile', out], {
        cwd: ROOT,
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).to.equal(0);
      const built = fs.readFileSync(out);
      const committed = fs.readFileSync(KERNEL_WASM_URL);
      expect(Buffer.compare(built, committed), 'kernel.wasm is stale: run `npm run build:kernel` and commit it').to.equal(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses to start on a broken module instead of falling back', () => {
    expect(() => new WasmKernel(new Uint8Array([0, 97, 115, 109, 1, 0, 0]))).to.throw().with.property('name', 'CompileError');
  });
});
