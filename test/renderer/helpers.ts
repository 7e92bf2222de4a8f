import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { loadRendererConfig, type RendererConfig } from '../../renderer/config.ts';
import { createLogger } from '../../shared/logger.ts';
import { type RendererClient, type RenderStream } from '../../shared/render-contract.ts';
import { createRendererClient } from '../../gateway/render/renderer-pool.ts';
import type { RenderRequest } from '../../shared/render-request.ts';
import { makeSyntheticSet } from '../support/make-synthetic-set.ts';
import { startRendererServer, type RendererInternals } from '../../renderer/server.ts';
import { compositeJobFor } from '../../renderer/backend-probe.ts';
import type { AssetStore } from '../../renderer/assets/asset-store.ts';
import type { CompositeJob, Compositor } from '../../renderer/backends/backend.ts';
import type { ViewId } from '../../shared/views.ts';
import type { Registry } from 'prom-client';

export const TEST_SET = 'testset';
export const TEST_WIDTH = 480;

let assetsDir: Promise<string> | null = null;

/** A set of 8-bit light layers, as the studio baker writes them: its full-size levels repeat lightings enough to get a palette (level-tables.ts LevelPalette). */
export const TEST_SET8 = 'testset8';

/** A temporary ASSETS_DIR with a 480 px synthetic set (16-bit light layers), the same with 8-bit light layers (three views) and a two-view set without coverage. Built once per run. */
export function testAssets(): Promise<string> {
  assetsDir ??= (async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'renderer-test-'));
    await makeSyntheticSet(path.join(dir, TEST_SET), { width: TEST_WIDTH, revision: 't1', lightDepth: 16 });
    await makeSyntheticSet(path.join(dir, TEST_SET8), { width: TEST_WIDTH, revision: 't1', lightDepth: 8, views: ['front_left', 'side_left', 'rear'] });
    await makeSyntheticSet(path.join(dir, 'twoviews'), { width: 320, revision: 't1', views: ['front', 'side_left'], coverage: false });
    return dir;
  })();
  return assetsDir;
}

/**
 * The composite job of a render of the test set, its layers and plate made by the pipeline's own steps
 * (what steps/03-composite.ts hands the backend), for tests that composite on a backend directly.
 */
export async function compositeJob(
  store: AssetStore,
  backend: Compositor,
  set: Awaited<ReturnType<AssetStore['getSet']>>,
  r: { view: ViewId; color: string; shadow: boolean; plate: string | null; transparent: boolean; width: number },
): Promise<CompositeJob> {
  const background = r.transparent ? 'transparent' : 'studio';
  return compositeJobFor(store, backend, { assetSet: set.id, view: r.view, color: r.color, shadow: r.shadow, plate: r.plate, format: 'png', width: r.width, background });
}

export const quietLogger = createLogger('renderer-test', process.env.TEST_LOG_LEVEL ?? 'silent');

export interface TestServer {
  port: number;
  client: RendererClient;
  internals: RendererInternals;
  config: RendererConfig;
  /** The renderer's Prometheus registry. */
  metrics: Registry;
  close(): Promise<void>;
}

export async function startTestServer(over: Partial<RendererConfig> = {}): Promise<TestServer> {
  const dir = await testAssets();
  const config: RendererConfig = {
    // off here: tests count cache entries and level-file reads from an empty start (warm-up.test.ts turns it on)
    ...loadRendererConfig({ RENDERER_PORT: '0', RENDERER_HOST: '127.0.0.1', ASSETS_DIR: dir, RENDER_BACKEND: 'cpu', RENDER_WARMUP: 'false' }),
    workers: 2,
    ...over,
  };
  let internals: RendererInternals | null = null;
  const server = await startRendererServer({ config, logger: quietLogger, onInternals: (i) => (internals = i) });
  const client = createRendererClient({ addresses: `127.0.0.1:${server.port}` });
  return {
    port: server.port,
    client,
    internals: internals!,
    config,
    metrics: server.metrics,
    async close() {
      client.close();
      await server.close(2000);
    },
  };
}

export function req(over: Partial<RenderRequest> = {}): RenderRequest {
  return { assetSet: TEST_SET, view: 'side_left', color: '#C41E3A', shadow: false, plate: null, format: 'png', width: TEST_WIDTH, ...over };
}

export async function readAll(s: RenderStream): Promise<{ bytes: Buffer; chunks: number[] }> {
  const parts: Buffer[] = [];
  for await (const b of s.body) parts.push(b);
  return { bytes: Buffer.concat(parts), chunks: parts.map((p) => p.length) };
}

export async function renderBytes(client: RendererClient, r: RenderRequest, deadlineMs = 20_000) {
  const s = await client.render(r, { deadlineMs });
  const { bytes, chunks } = await readAll(s);
  return { header: s.header, bytes, chunks };
}

export async function decode(bytes: Buffer): Promise<{ data: Buffer; width: number; height: number; format: string }> {
  const meta = await sharp(bytes).metadata();
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`expected RGB, got ${info.channels} channels`);
  return { data, width: info.width, height: info.height, format: meta.format ?? '?' };
}

export function psnr(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) throw new Error(`length ${a.length} vs ${b.length}`);
  let se = 0;
  for (let i = 0; i < a.length; i++) {
    const d = a[i]! - b[i]!;
    se += d * d;
  }
  const mse = se / a.length;
  return mse === 0 ? Infinity : 10 * Math.log10((255 * 255) / mse);
}

/** gl must work when CI=true or REQUIRE_GL=1; elsewhere a missing context skips the gl tests. */
export const GL_REQUIRED = process.env.CI === 'true' || process.env.REQUIRE_GL === '1';

/**
 * The wasm kernel against the reference kernel (kernel.ts): painted pixels of opaque rows, fully or
 * partly, go in single precision there (wasm/kernel.ts `paintedQuad`, `edgeQuad`), so a value on a
 * rounding threshold may come out one code off; every unpainted pixel (shadow, backdrop, plate off
 * the paint) must be the reference's bytes. Fails with the first offending pixel.
 */
export function expectKernelMatch(got: Uint8Array, ref: Uint8Array, paint: Uint8Array, channels: 3 | 4, label: string): void {
  let painted = 0;
  let off = 0;
  for (let i = 0; i < paint.length; i++) {
    // fully and partly painted pixels: the wasm kernel computes them in single precision
    const lit = paint[i] !== 0;
    if (lit) painted += 3;
    for (let c = 0; c < channels; c++) {
      const d = Math.abs(got[i * channels + c]! - ref[i * channels + c]!);
      if (d === 0) continue;
      if (!lit || c === 3 || d > 1) throw new Error(`${label}: pixel ${i} channel ${c} is ${got[i * channels + c]}, reference ${ref[i * channels + c]} (paint ${paint[i]})`);
      off++;
    }
  }
  // measured: 0.002 % of painted values on the bench's set (f32 rounding next to a threshold);
  // a coarser encode (a 1/65535-step table rounded 0.5 %, 1.8 % on a flat white panel) must fail here
  if (off > Math.max(4, painted * 0.0005)) throw new Error(`${label}: ${off} of ${painted} painted values one code off`);
}
