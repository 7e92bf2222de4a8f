#!/usr/bin/env node
// The vehicle image service's GPU check, packed by `npm run gpu:bundle` (ops/gpu-bundle.ts).
// Run: node gpu-check.mjs [--json out.json] [--no-bake] [--no-bench] [--smoke] … (node 20.19+, Linux x86-64)
// It unpacks itself once into $GPU_CHECK_DIR or the temporary folder, then runs the check there.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';

const HASH = '__HASH__';
const PAYLOAD = '__PAYLOAD__';

const dir = path.join(process.env.GPU_CHECK_DIR || os.tmpdir(), `vehicle-gpu-check-${HASH}`);
if (!fs.existsSync(path.join(dir, '.complete'))) {
  const tmp = `${dir}.${process.pid}`;
  const archive = zlib.brotliDecompressSync(Buffer.from(PAYLOAD, 'base64'));
  for (let at = 0; at < archive.length; ) {
    const nameLength = archive.readUInt16LE(at);
    const mode = archive.readUInt16LE(at + 2);
    const size = archive.readDoubleLE(at + 4);
    const name = archive.subarray(at + 12, at + 12 + nameLength).toString();
    const data = archive.subarray(at + 12 + nameLength, at + 12 + nameLength + size);
    at += 12 + nameLength + size;
    const file = path.join(tmp, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, data, { mode });
  }
  fs.writeFileSync(path.join(tmp, '.complete'), '');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(tmp, dir);
}

// ANGLE on Vulkan; the loader is bundled beside gl's addon, the driver (ICD) is the host's. Where the
// NVIDIA container runtime mounts its driver under /usr/local/nvidia, the loader is pointed there.
const env = { ...process.env, ANGLE_DEFAULT_PLATFORM: process.env.ANGLE_DEFAULT_PLATFORM || 'vulkan' };
const icdDirs = ['/usr/share/vulkan/icd.d', '/etc/vulkan/icd.d', '/usr/local/share/vulkan/icd.d'];
const hasIcd = icdDirs.some((d) => fs.existsSync(d) && fs.readdirSync(d).some((f) => f.endsWith('.json')));
const nvidiaIcd = '/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json';
if (!hasIcd && !env.VK_DRIVER_FILES && !env.VK_ICD_FILENAMES && fs.existsSync(nvidiaIcd)) env.VK_DRIVER_FILES = nvidiaIcd;
const nvidiaLibs = ['/usr/local/nvidia/lib64', '/usr/local/nvidia/lib'].filter((d) => fs.existsSync(d));
if (nvidiaLibs.length) env.LD_LIBRARY_PATH = [...nvidiaLibs, env.LD_LIBRARY_PATH].filter(Boolean).join(':');

const args = process.argv.slice(2);
if (!args.includes('--assets')) args.push('--assets', path.join(dir, 'assets'));
const r = spawnSync(process.execPath, [path.join(dir, 'ops', 'gpu-check.js'), ...args], { stdio: 'inherit', env });
process.exit(r.status ?? 1);
