import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ARENA_HEADER_BYTES, ARENA_SLOTS, allocPlanes } from '../../renderer/backends/cpu/arena.ts';
import { makeLayers } from '../../renderer/assets/layers.ts';
import { CPU_LEVEL_EXTRAS } from '../../renderer/backends/cpu/level-extras.ts';
import { kernelInput } from '../../renderer/backends/cpu/cpu-backend.ts';
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

  it('runs on layers in place in their arena, counts the whole arena, and lets go of it when told', () => {
    const mk = (key: string) => {
      const p = allocPlanes(key, 50, 20, { shadow: true, coverage: false });
      for (let i = 0; i < 1000; i++) {
        p.paint[i] = i % 7 === 0 ? 0 : (i * 37) & 255;
        p.shadow![i] = i % 5 === 0 ? 90 : 0;
        p.diffuse[i] = (i * 977) & 0xffff;
        p.specular[i] = (i * 131) & 0xffff;
        p.base[i * 3] = i & 255;
      }
      return makeLayers(key, { width: 50, height: 20, ...p }, CPU_LEVEL_EXTRAS);
    };
    const l = mk('a');
    const mem = l.arena!.memory.buffer;
    // every plane past the kernel's header and the scratch rows, in the one memory, which bytes counts whole
    for (const p of [l.base, l.paint, l.diffuse, l.specular, l.shadow!]) {
      expect(p.buffer).to.equal(mem);
      expect(p.byteOffset % 64).to.equal(0);
      expect(p.byteOffset).to.be.at.least(ARENA_HEADER_BYTES + ARENA_SLOTS * l.arena!.slotBytes);
    }
    expect(l.bytes).to.equal(mem.byteLength + l.runs!.rowStart.byteLength + l.runs!.xs.byteLength);
    const k = new WasmKernel();
    const job = {
      layers: l,
      color: [0.4, 0.1, 0.05] as [number, number, number],
      neutral: [0.5, 0.5, 0.5] as [number, number, number],
      calibration: { diffuseGain: 1.1, specularFloor: 0.02 },
      shadow: true,
      plate: null,
      transparent: null,
    };
    const a = new Uint8Array(3000);
    const b = new Uint8Array(3000);
    k.compositeRows(kernelInput(job as never, a), 0, 20, 1);
    k.compositeRows({ ...kernelInput(job as never, b), arena: null }, 0, 20);
    expect(Buffer.compare(Buffer.from(a), Buffer.from(b))).to.equal(0);
    expect(a.filter((v) => v !== 0).length, 'the picture was composited').to.be.above(1000);
    expect(k.arenaInstances).to.equal(1);
    // a few arenas' instances kept, the oldest dropped; forget drops the key's at once
    for (const key of ['b', 'c', 'd', 'e', 'f']) k.compositeRows(kernelInput({ ...job, layers: mk(key) } as never, a), 0, 20);
    expect(k.arenaInstances).to.equal(4);
    k.forget('f');
    expect(k.arenaInstances).to.equal(3);
    expect(() => k.compositeRows(kernelInput(job as never, a), 0, 20, ARENA_SLOTS)).to.throw(/slot/);
  });
});
