/**
 * Generates a small synthetic asset set in the format of docs/renderer.md: a car-like shape drawn as
 * SVG (rasterised by sharp), with a procedural diffuse/specular split, in all nine views.
 *
 *   npx tsx test/support/make-synthetic-set.ts [outDir=assets/synthetic] [width=800] [--id synthetic] [--depth 8|16]
 *
 * Tests call makeSyntheticSet() to build sets of their own sizes in a temporary folder.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { VIEW_IDS, type ViewId } from '../../shared/views.ts';
import { LINEAR_TO_SRGB8, LINEAR_LUT_SIZE, hexToLinear, srgbToLinear } from '../../shared/color/srgb.ts';
import { calibrateView } from '../../baker/calibrate.ts';
import { encodeLight16, encodeLight8 } from '../../shared/asset-format/light-encoding.ts';
import { layerPath, writeGreyLayer, writeLightLayer, writeRgbLayer } from '../../shared/asset-format/layer-files.ts';
import type { Quad, Rgb } from '../../shared/asset-format/read-set.ts';
import { ASSET_FORMAT, writeSetJson, type SetJsonInput } from '../../shared/asset-format/set-json.ts';

const VB_W = 1600;
const VB_H = 900;

interface ViewShape {
  body: string; // path d
  glass: string[];
  tyres: string[]; // svg elements
  rims: string[];
  lightsFront: string[];
  lightsRear: string[];
  trim: string[];
  plate: Quad | null;
  shadow: string | null; // svg element (ellipse) or null
  bodyBox: [number, number, number, number]; // x0, y0, x1, y1 for shading
  topDown?: boolean;
}

const mirrorX = (x: number) => VB_W - x;
function mirrorQuad(q: Quad): Quad {
  const m = (p: [number, number]): [number, number] => [mirrorX(p[0]), p[1]];
  return [m(q[1]), m(q[0]), m(q[3]), m(q[2])];
}

const side: ViewShape = {
  body:
    'M 180 560 L 195 470 Q 230 440 400 430 L 560 335 Q 620 300 800 300 L 1000 305 Q 1100 310 1200 420 ' +
    'L 1380 440 Q 1430 450 1430 520 L 1420 600 L 200 610 Z',
  glass: ['M 600 345 L 790 325 L 795 425 L 540 430 Z', 'M 830 325 L 1000 330 L 1110 425 L 835 425 Z'],
  tyres: ['<circle cx="420" cy="600" r="95"/>', '<circle cx="1190" cy="600" r="95"/>'],
  rims: ['<circle cx="420" cy="600" r="55"/>', '<circle cx="1190" cy="600" r="55"/>'],
  lightsFront: ['<ellipse cx="222" cy="478" rx="28" ry="16"/>'],
  lightsRear: ['<ellipse cx="1408" cy="470" rx="16" ry="24"/>'],
  trim: ['<rect x="540" y="520" width="560" height="10" rx="4"/>'],
  plate: null,
  shadow: '<ellipse cx="805" cy="680" rx="760" ry="85"/>',
  bodyBox: [180, 300, 1430, 610],
};

const front: ViewShape = {
  body:
    'M 300 650 L 310 470 Q 330 420 420 410 L 520 290 Q 560 258 800 258 Q 1040 258 1080 290 L 1180 410 ' +
    'Q 1270 420 1290 470 L 1300 650 Z',
  glass: ['M 548 300 Q 800 282 1052 300 L 1128 402 L 472 402 Z'],
  tyres: ['<rect x="330" y="600" width="120" height="105" rx="18"/>', '<rect x="1150" y="600" width="120" height="105" rx="18"/>'],
  rims: [],
  lightsFront: ['<ellipse cx="420" cy="468" rx="72" ry="28"/>', '<ellipse cx="1180" cy="468" rx="72" ry="28"/>'],
  lightsRear: [],
  trim: ['<rect x="610" y="470" width="380" height="62" rx="12"/>'],
  plate: [
    [680, 560],
    [920, 560],
    [920, 611],
    [680, 611],
  ],
  shadow: '<ellipse cx="800" cy="690" rx="620" ry="90"/>',
  bodyBox: [300, 258, 1300, 650],
};

const rear: ViewShape = {
  ...front,
  glass: ['M 560 305 Q 800 288 1040 305 L 1100 400 L 500 400 Z'],
  lightsFront: [],
  lightsRear: ['<rect x="330" y="440" width="170" height="48" rx="14"/>', '<rect x="1100" y="440" width="170" height="48" rx="14"/>'],
  trim: ['<rect x="380" y="615" width="840" height="22" rx="8"/>'],
  plate: [
    [680, 540],
    [920, 540],
    [920, 591],
    [680, 591],
  ],
};

const threeQuarter = (kind: 'front' | 'rear'): ViewShape => ({
  body:
    'M 250 635 L 258 480 Q 280 430 350 420 L 650 440 L 720 335 Q 760 300 900 300 L 1150 310 ' +
    'Q 1230 320 1300 430 L 1390 450 Q 1420 470 1410 600 L 1400 640 L 650 665 Z',
  glass:
    kind === 'front'
      ? ['M 455 425 L 560 322 Q 640 300 718 335 L 648 440 Z', 'M 762 332 L 1000 315 L 1010 420 L 700 436 Z', 'M 1040 318 L 1140 318 L 1236 420 L 1050 420 Z']
      : ['M 470 425 L 575 330 Q 640 312 718 338 L 648 440 Z', 'M 762 332 L 1000 315 L 1010 420 L 700 436 Z', 'M 1040 318 L 1140 318 L 1236 420 L 1050 420 Z'],
  tyres: ['<ellipse cx="770" cy="640" rx="78" ry="92"/>', '<ellipse cx="1275" cy="625" rx="66" ry="84"/>', '<ellipse cx="300" cy="648" rx="36" ry="58"/>'],
  rims: ['<ellipse cx="770" cy="640" rx="44" ry="54"/>', '<ellipse cx="1275" cy="625" rx="37" ry="49"/>'],
  lightsFront: kind === 'front' ? ['<ellipse cx="305" cy="482" rx="40" ry="22"/>', '<ellipse cx="598" cy="492" rx="44" ry="20"/>'] : [],
  lightsRear: kind === 'rear' ? ['<rect x="270" y="455" width="90" height="40" rx="12"/>', '<rect x="548" y="468" width="90" height="40" rx="12"/>'] : [],
  trim: kind === 'front' ? ['<path d="M 380 515 L 545 522 L 545 548 L 380 542 Z"/>'] : ['<path d="M 300 600 L 640 612 L 640 628 L 300 618 Z"/>'],
  plate: [
    [390, 556],
    [560, 566],
    [560, 606],
    [390, 601],
  ],
  shadow: '<ellipse cx="830" cy="680" rx="740" ry="95"/>',
  bodyBox: [250, 300, 1420, 665],
});

const topDown: ViewShape = {
  body: 'M 400 250 L 1200 250 Q 1350 250 1350 400 L 1350 500 Q 1350 650 1200 650 L 400 650 Q 250 650 250 500 L 250 400 Q 250 250 400 250 Z',
  glass: ['M 560 290 L 700 300 L 700 600 L 560 610 Q 520 450 560 290 Z', 'M 1080 300 L 1150 292 Q 1180 450 1150 608 L 1080 600 Z'],
  tyres: ['<rect x="360" y="225" width="140" height="28" rx="8"/>', '<rect x="1100" y="225" width="140" height="28" rx="8"/>', '<rect x="360" y="647" width="140" height="28" rx="8"/>', '<rect x="1100" y="647" width="140" height="28" rx="8"/>'],
  rims: [],
  lightsFront: ['<rect x="255" y="290" width="24" height="70" rx="8"/>', '<rect x="255" y="540" width="24" height="70" rx="8"/>'],
  lightsRear: ['<rect x="1322" y="300" width="22" height="70" rx="8"/>', '<rect x="1322" y="530" width="22" height="70" rx="8"/>'],
  trim: [],
  plate: null,
  shadow: null,
  bodyBox: [250, 250, 1350, 650],
  topDown: true,
};

function mirrored(s: ViewShape): ViewShape {
  const g = (el: string) => `<g transform="translate(${VB_W},0) scale(-1,1)">${el}</g>`;
  const gp = (d: string) => g(`<path d="${d}"/>`);
  return {
    ...s,
    body: s.body,
    glass: s.glass,
    tyres: s.tyres.map(g),
    rims: s.rims.map(g),
    lightsFront: s.lightsFront.map(g),
    lightsRear: s.lightsRear.map(g),
    trim: s.trim.map(g),
    plate: s.plate ? mirrorQuad(s.plate) : null,
    shadow: s.shadow ? g(s.shadow) : null,
    bodyBox: [mirrorX(s.bodyBox[2]), s.bodyBox[1], mirrorX(s.bodyBox[0]), s.bodyBox[3]],
    mirror: true,
    // paths of body/glass are mirrored by wrapping at draw time
    _gp: gp,
  } as ViewShape & { mirror: boolean; _gp: (d: string) => string };
}

const SHAPES: Record<ViewId, ViewShape> = {
  side_left: side,
  side_right: mirrored(side),
  front,
  rear,
  front_left: threeQuarter('front'),
  front_right: mirrored(threeQuarter('front')),
  rear_right: threeQuarter('rear'),
  rear_left: mirrored(threeQuarter('rear')),
  top_down: topDown,
};

function pathEl(s: ViewShape, d: string): string {
  const m = (s as ViewShape & { mirror?: boolean }).mirror;
  return m ? `<g transform="translate(${VB_W},0) scale(-1,1)"><path d="${d}"/></g>` : `<path d="${d}"/>`;
}

async function mask(elements: string[], w: number, h: number, blur = 0): Promise<Float32Array> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${VB_W} ${VB_H}">
<rect width="${VB_W}" height="${VB_H}" fill="black"/><g fill="white">${elements.join('')}</g></svg>`;
  let img = sharp(Buffer.from(svg)).extractChannel(0);
  if (blur > 0) img = sharp(await img.png().toBuffer()).blur(blur).extractChannel(0);
  const buf = await img.raw().toBuffer();
  const out = new Float32Array(w * h);
  for (let i = 0; i < out.length; i++) out[i] = buf[i]! / 255;
  return out;
}

const lin = (r: number, g: number, b: number): [number, number, number] => [
  srgbToLinear(r / 255),
  srgbToLinear(g / 255),
  srgbToLinear(b / 255),
];

/** The neutral paint of the base shot (a light silver). */
export const SYNTHETIC_NEUTRAL_PAINT = '#D0D0D0';
const SYNTHETIC_BASE_PAINT = hexToLinear(SYNTHETIC_NEUTRAL_PAINT)[0];
/** The backdrop: a vertical gradient in linear light (set.json "backdrop"). */
const BACKDROP_TOP = srgbToLinear(246 / 255);
const BACKDROP_BOTTOM = srgbToLinear(230 / 255);
/** Share of the backdrop seen through the glass. */
const GLASS_TRANSMISSION = 0.45;

export interface SyntheticSetOptions {
  id?: string;
  revision?: string;
  width?: number;
  /** Bit depth of diffuse/specular files (8 keeps the committed set small; 16 exercises the 16-bit path). */
  lightDepth?: 8 | 16;
  views?: readonly ViewId[];
  /** Write the coverage layer (default true); false makes a set that cannot render transparent pictures. */
  coverage?: boolean;
}

/** Writes a synthetic set into `outDir` (which becomes `<ASSETS_DIR>/<id>`). */
export async function makeSyntheticSet(outDir: string, opts: SyntheticSetOptions = {}): Promise<void> {
  const width = opts.width ?? 800;
  const height = Math.round((width * VB_H) / VB_W);
  const id = opts.id ?? path.basename(outDir);
  const revision = opts.revision ?? 'synthetic-1';
  const depth = opts.lightDepth ?? 8;
  const views = opts.views ?? VIEW_IDS;
  const scale = width / VB_W;
  await fs.mkdir(outDir, { recursive: true });
  const setJson = {
    id,
    format: ASSET_FORMAT,
    revision,
    source: { kind: 'synthetic', note: 'SVG shapes with a procedural light split (test/support/make-synthetic-set.ts)' },
    neutral_paint: SYNTHETIC_NEUTRAL_PAINT,
    backdrop: { top: [BACKDROP_TOP, BACKDROP_TOP, BACKDROP_TOP] as Rgb, bottom: [BACKDROP_BOTTOM, BACKDROP_BOTTOM, BACKDROP_BOTTOM] as Rgb },
    views: {} as SetJsonInput['views'],
  };
  for (const viewId of views) {
    const s = SHAPES[viewId];
    const w = width;
    const h = height;
    const n = w * h;
    const bodyM = await mask([pathEl(s, s.body)], w, h);
    const glassM = await mask(s.glass.map((d) => pathEl(s, d)), w, h);
    const tyreM = await mask(s.tyres, w, h);
    const rimM = s.rims.length ? await mask(s.rims, w, h) : new Float32Array(n);
    const lfM = s.lightsFront.length ? await mask(s.lightsFront, w, h) : new Float32Array(n);
    const lrM = s.lightsRear.length ? await mask(s.lightsRear, w, h) : new Float32Array(n);
    const trimM = s.trim.length ? await mask(s.trim, w, h) : new Float32Array(n);
    const plateQuad: Quad | null = s.plate ? (s.plate.map(([x, y]) => [x * scale, y * scale]) as Quad) : null;
    const plateM = s.plate
      ? await mask([`<polygon points="${s.plate.map((p) => p.join(',')).join(' ')}"/>`], w, h)
      : new Float32Array(n);
    const shadowM = s.shadow ? await mask([s.shadow], w, h, Math.max(1, 30 * scale)) : null;

    const base = Buffer.alloc(n * 3);
    const paint = Buffer.alloc(n);
    const diff = depth === 16 ? new Uint16Array(n) : Buffer.alloc(n);
    const spec = depth === 16 ? new Uint16Array(n) : Buffer.alloc(n);
    const shadow = shadowM ? Buffer.alloc(n) : null;
    const coverage = Buffer.alloc(n);
    const dLin = new Float32Array(n);
    const sLin = new Float32Array(n);
    const encodeLight = depth === 16 ? encodeLight16 : encodeLight8;
    const [bx0, by0, bx1, by1] = s.bodyBox.map((v) => v * scale) as [number, number, number, number];
    const cGlass = lin(38, 46, 56);
    const cTyre = lin(26, 26, 28);
    const cRim = lin(150, 152, 158);
    const cLf = lin(236, 236, 226);
    const cLr = lin(176, 22, 32);
    const cTrim = lin(44, 44, 48);
    const cPlate = lin(230, 230, 230);
    for (let y = 0; y < h; y++) {
      const fy = y / h;
      // studio: a light wall fading into a slightly darker floor
      const bgS = 246 - 16 * Math.max(0, Math.min(1, (fy - 0.55) / 0.25));
      const bg = srgbToLinear(bgS / 255);
      const v = Math.max(0, Math.min(1, (y - by0) / Math.max(1, by1 - by0)));
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        const u = Math.max(0, Math.min(1, (x - bx0) / Math.max(1, bx1 - bx0)));
        // diffuse: lit from above, falling off towards the sills, a little side fall-off
        let D: number;
        let S: number;
        if (s.topDown) {
          const ex = Math.min(u, 1 - u);
          const ey = Math.min(v, 1 - v);
          D = 0.78 * Math.min(1, 0.55 + 2.2 * Math.min(ex, ey));
          S = 0.22 * Math.exp(-(((v - 0.3) / 0.06) ** 2)) * (0.6 + 0.4 * Math.sin(u * 9));
        } else {
          D = 0.78 - 0.46 * v ** 1.3 - 0.08 * (u - 0.5) ** 2;
          // clear-coat reflections: a shoulder-line streak and a soft window-sill glint
          S = 0.26 * Math.exp(-(((v - 0.42) / 0.045) ** 2)) * (0.55 + 0.45 * Math.cos(u * 7.5)) + 0.06 * Math.exp(-(((v - 0.08) / 0.06) ** 2));
        }
        D = Math.max(0, Math.min(1, D));
        S = Math.max(0, Math.min(1, S));
        // painter's algorithm, in linear light
        let p = bodyM[i]!;
        let r = bg + (SYNTHETIC_BASE_PAINT * D + S - bg) * p;
        let g = r;
        let b = r;
        const over = (c: [number, number, number], a: number) => {
          if (a <= 0) return;
          r += (c[0] - r) * a;
          g += (c[1] - g) * a;
          b += (c[2] - b) * a;
          p *= 1 - a;
        };
        // see-through glass: part of the backdrop shows, the rest is the dark tinted pane
        const ga = glassM[i]!;
        over([cGlass[0] + (bg - cGlass[0]) * GLASS_TRANSMISSION, cGlass[1] + (bg - cGlass[1]) * GLASS_TRANSMISSION, cGlass[2] + (bg - cGlass[2]) * GLASS_TRANSMISSION], ga);
        over(cTrim, trimM[i]!);
        over(cLf, lfM[i]!);
        over(cLr, lrM[i]!);
        over(cPlate, plateM[i]!);
        over(cTyre, tyreM[i]!);
        over(cRim, rimM[i]!);
        const carCover = Math.min(1, bodyM[i]! + tyreM[i]!);
        coverage[i] = Math.round(carCover * (1 - GLASS_TRANSMISSION * ga) * 255);
        const toS = (c: number) => LINEAR_TO_SRGB8[Math.round(Math.max(0, Math.min(1, c)) * (LINEAR_LUT_SIZE - 1))]!;
        base[i * 3] = toS(r);
        base[i * 3 + 1] = toS(g);
        base[i * 3 + 2] = toS(b);
        paint[i] = Math.round(p * 255);
        const inPaint = paint[i]! > 0 ? 1 : 0;
        diff[i] = encodeLight(D * inPaint);
        spec[i] = encodeLight(S * inPaint);
        dLin[i] = D * inPaint;
        sLin[i] = S * inPaint;
        if (shadow && shadowM) shadow[i] = Math.round(Math.min(1, shadowM[i]! * 0.5) * (1 - carCover) * 255);
      }
    }
    const dir = path.join(outDir, viewId);
    await fs.mkdir(dir, { recursive: true });
    await writeRgbLayer(layerPath(outDir, viewId, 'base'), base, w, h);
    await writeGreyLayer(layerPath(outDir, viewId, 'paint'), paint, w, h);
    await writeLightLayer(layerPath(outDir, viewId, 'diffuse'), diff, w, h);
    await writeLightLayer(layerPath(outDir, viewId, 'specular'), spec, w, h);
    if (opts.coverage !== false) await writeGreyLayer(layerPath(outDir, viewId, 'coverage'), coverage, w, h);
    else await fs.rm(layerPath(outDir, viewId, 'coverage'), { force: true });
    if (shadow) await writeGreyLayer(layerPath(outDir, viewId, 'shadow'), shadow, w, h);
    else await fs.rm(layerPath(outDir, viewId, 'shadow'), { force: true });
    setJson.views[viewId] = {
      width: w,
      height: h,
      plate_quad: plateQuad ? (plateQuad.map(([x, y]) => [Math.round(x * 100) / 100, Math.round(y * 100) / 100]) as Quad) : null,
      shadow: shadow !== null,
      coverage: opts.coverage !== false,
      calibration: calibrateView({ width: w, height: h, paint, diffuse: dLin, specular: sLin }),
    };
  }
  await writeSetJson(outDir, setJson);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const flag = (name: string) => {
    const i = args.indexOf(name);
    if (i < 0) return undefined;
    const v = args[i + 1];
    args.splice(i, 2);
    return v;
  };
  const id = flag('--id');
  const depth = flag('--depth');
  const revision = flag('--revision');
  const out = path.resolve(args[0] ?? 'assets/synthetic');
  const width = args[1] ? parseInt(args[1], 10) : 800;
  await makeSyntheticSet(out, {
    id: id ?? path.basename(out),
    width,
    revision: revision ?? 'synthetic-1',
    lightDepth: depth === '16' ? 16 : 8,
  });
  console.log(`wrote ${out} (${width} px wide)`);
}
