/**
 * npm run bench:resize [-- --set sedan-a] [-- --cases front_left:#000000:1000,side_left:#1E4B8C:1280]
 *
 * The one resize of a render (renderer/encode/encode.ts `resizeKernel`), kernel by kernel, on real
 * renders of a committed set: each case is rendered at the level it is resized from (the smallest level
 * at least as wide) and at 2400 px, both png with shadow, from the renderer over gRPC. For each sharp
 * kernel it prints how many channel values land more than 2 codes outside the range of the level's
 * pixels under their footprint (ringing: a light halo round a dark car), the worst such overshoot, the
 * PSNR against the ideal (an area average in linear light of the 2400 px render), and the resize's
 * median time alone (sharp, raw in and out), the kernels alternated round by round.
 */
import { Command } from 'commander';
import path from 'node:path';
import sharp, { type KernelEnum } from 'sharp';
import { loadRendererConfig } from '../../renderer/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { createRendererClient } from '../../gateway/render/renderer-pool.ts';
import type { ViewId } from '../../shared/views.ts';
import { startRendererServer } from '../../renderer/server.ts';
import { resizeKernel } from '../../renderer/encode/encode.ts';
import { srgbToLinear, linearToSrgb } from '../../shared/color/srgb.ts';

const KERNELS: Array<keyof KernelEnum> = ['lanczos3', 'lanczos2', 'cubic', 'mitchell', 'linear'];
const LEVELS = [2400, 1600, 1200, 800, 600, 400, 300, 200];

interface Rgb {
  data: Buffer;
  width: number;
  height: number;
}

const opts = new Command()
  .option('--set <id>', 'asset set', 'sedan-a')
  .option('--cases <list>', 'view:colour:width, comma-separated', 'front_left:#000000:1000,side_left:#1E4B8C:1280,rear:#F5F5F5:700')
  .option('--rounds <n>', 'timed resizes per kernel', '30')
  .parse()
  .opts<{ set: string; cases: string; rounds: string }>();

/** The ideal output: each output pixel the area average, in linear light, of the 2400 px pixels it covers. */
function areaAverage(src: Rgb, W: number, H: number): Float64Array {
  const lin = new Float64Array(src.data.length);
  for (let i = 0; i < lin.length; i++) lin[i] = srgbToLinear(src.data[i]! / 255);
  const out = new Float64Array(W * H * 3);
  const sx = src.width / W;
  const sy = src.height / H;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const x0 = x * sx, x1 = (x + 1) * sx, y0 = y * sy, y1 = (y + 1) * sy;
      for (let c = 0; c < 3; c++) {
        let acc = 0;
        let wsum = 0;
        for (let j = Math.floor(y0); j < Math.ceil(y1); j++) {
          const wy = Math.min(j + 1, y1) - Math.max(j, y0);
          for (let i = Math.floor(x0); i < Math.ceil(x1); i++) {
            const w = wy * (Math.min(i + 1, x1) - Math.max(i, x0));
            acc += w * lin[(j * src.width + i) * 3 + c]!;
            wsum += w;
          }
        }
        out[(y * W + x) * 3 + c] = 255 * linearToSrgb(acc / wsum);
      }
    }
  }
  return out;
}

function ringing(level: Rgb, out: Buffer, W: number, H: number): { over: number; worst: number } {
  const fx = level.width / W;
  const fy = level.height / H;
  let over = 0;
  let worst = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i0 = Math.max(0, Math.floor(x * fx) - 1), i1 = Math.min(level.width - 1, Math.ceil((x + 1) * fx));
      const j0 = Math.max(0, Math.floor(y * fy) - 1), j1 = Math.min(level.height - 1, Math.ceil((y + 1) * fy));
      for (let c = 0; c < 3; c++) {
        let lo = 255;
        let hi = 0;
        for (let j = j0; j <= j1; j++) {
          for (let i = i0; i <= i1; i++) {
            const v = level.data[(j * level.width + i) * 3 + c]!;
            if (v < lo) lo = v;
            if (v > hi) hi = v;
          }
        }
        const v = out[(y * W + x) * 3 + c]!;
        const d = Math.max(v - hi, lo - v, 0);
        if (d > 2) over++;
        if (d > worst) worst = d;
      }
    }
  }
  return { over, worst };
}

async function main(): Promise<void> {
  const logger = createLogger('bench', 'warn');
  const config = loadRendererConfig({ RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', RENDER_BACKEND: 'cpu', ASSETS_DIR: path.resolve('assets') });
  const server = await startRendererServer({ config, logger });
  const client = createRendererClient({ addresses: `127.0.0.1:${server.port}` });
  const render = async (view: string, color: string, width: number): Promise<Rgb> => {
    const res = await client.render({ assetSet: opts.set, view: view as ViewId, color, shadow: true, plate: null, format: 'png', width }, { deadlineMs: 60_000 });
    const parts: Buffer[] = [];
    for await (const c of res.body) parts.push(c as Buffer);
    const { data, info } = await sharp(Buffer.concat(parts)).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height };
  };
  console.log(`set ${opts.set}; the kernel a render uses on a reduction: ${resizeKernel(2, 1)}, on an enlargement: ${resizeKernel(1, 2)}`);
  console.log('| case | kernel | values > 2 codes outside | worst | PSNR vs linear-light area average | resize ms (median) |');
  console.log('| --- | --- | --- | --- | --- | --- |');
  try {
    for (const c of opts.cases.split(',')) {
      const [view, color, w] = c.split(':');
      const W = Number(w);
      const from = [...LEVELS].reverse().find((l) => l >= W)!;
      const level = await render(view!, color!, from);
      const full = await render(view!, color!, 2400);
      const H = Math.round((W * level.height) / level.width);
      const ideal = areaAverage(full, W, H);
      const resize = (k: keyof KernelEnum) =>
        sharp(level.data, { raw: { width: level.width, height: level.height, channels: 3 } }).resize(W, H, { kernel: k, fit: 'fill' }).raw().toBuffer();
      const times = new Map<string, number[]>(KERNELS.map((k) => [k, []]));
      for (let r = 0; r < Number(opts.rounds); r++) {
        for (const k of KERNELS) {
          const t0 = performance.now();
          await resize(k);
          times.get(k)!.push(performance.now() - t0);
        }
      }
      for (const k of KERNELS) {
        const out = await resize(k);
        const { over, worst } = ringing(level, out, W, H);
        let se = 0;
        for (let i = 0; i < out.length; i++) se += (out[i]! - ideal[i]!) ** 2;
        const psnr = 10 * Math.log10((255 * 255) / (se / out.length));
        const t = times.get(k)!.sort((a, b) => a - b);
        console.log(`| ${view} ${color} ${from}→${W} | ${k} | ${over} | ${worst} | ${psnr.toFixed(2)} dB | ${t[t.length >> 1]!.toFixed(2)} |`);
      }
    }
  } finally {
    client.close();
    await server.close(1000);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
