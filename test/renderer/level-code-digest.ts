import crypto from 'node:crypto';
import { LIGHT8_TO_LINEAR } from '../../shared/asset-format/light-encoding.ts';
import { sharedU16, sharedU8 } from '../../renderer/backends/cpu/arena.ts';
import { makeLayers, type Layers } from '../../renderer/assets/layers.ts';
import { reduceLayers } from '../../renderer/assets/reduce-layers.ts';
import { CPU_LEVEL_EXTRAS } from '../../renderer/backends/cpu/level-extras.ts';

/**
 * What the code that makes levels does, as a digest: a small pseudo-random view (every plane, shadow
 * and coverage) made into layers and reduced by 2/3 and by half, its planes, shadowed base and runs
 * hashed, with the 8-bit light table a decode uses. level-code.test.ts keeps it per LEVEL_CODE_VERSION.
 */
export function levelCodeDigest(): string {
  const h = crypto.createHash('sha256');
  h.update(new Uint8Array(new Float64Array(LIGHT8_TO_LINEAR).buffer));
  const width = 61;
  const height = 37;
  const n = width * height;
  let seed = 0x9e3779b9;
  const next = () => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return seed >>> 0;
  };
  const base = sharedU8(n * 3);
  const paint = sharedU8(n);
  const diffuse = sharedU16(n);
  const specular = sharedU16(n);
  const shadow = sharedU8(n);
  const coverage = sharedU8(n);
  for (let i = 0; i < n; i++) {
    const r = next();
    base[i * 3] = r & 255;
    base[i * 3 + 1] = (r >>> 8) & 255;
    base[i * 3 + 2] = (r >>> 16) & 255;
    // fully painted, partly painted and bare pixels, as a car's edge has them
    const m = r >>> 24;
    paint[i] = m < 96 ? 255 : m < 160 ? m : 0;
    diffuse[i] = next() & 0xffff;
    specular[i] = next() & 0xffff;
    shadow[i] = next() & 255;
    coverage[i] = next() & 255;
  }
  const full = makeLayers('fingerprint', { width, height, base, paint, diffuse, specular, shadow, coverage }, CPU_LEVEL_EXTRAS);
  for (const l of [full, reduceLayers('fingerprint/F1.5', full, 1.5, CPU_LEVEL_EXTRAS), reduceLayers('fingerprint/F2', full, 2, CPU_LEVEL_EXTRAS)]) hashLayers(h, l);
  return h.digest('base64url').slice(0, 22);
}

function hashLayers(h: crypto.Hash, l: Layers): void {
  for (const p of [l.base, l.paint, l.diffuse, l.specular, l.shadow, l.coverage, l.shadowedBase ?? null, l.runs?.rowStart ?? null, l.runs?.xs ?? null]) {
    h.update(p ? new Uint8Array(p.buffer, p.byteOffset, p.byteLength) : new Uint8Array(1));
  }
  h.update(JSON.stringify([l.width, l.height, l.level ?? null]));
}
