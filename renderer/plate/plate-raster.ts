import fs from 'node:fs';
import { createRequire } from 'node:module';
import { Resvg } from '@resvg/resvg-js';
import opentype, { type Font, type Path } from 'opentype.js';
import { LRUCache } from 'lru-cache';
import { SRGB8_TO_LINEAR } from '../../shared/color/srgb.ts';

/**
 * The EU-style plate (520 × 110 mm): white field, thin black border, blue EU band at the left with
 * the ring of twelve stars and the country code, black glyphs. Glyphs come from Barlow Semi
 * Condensed (OFL, shipped in node_modules/@expo-google-fonts/barlow-semi-condensed) as vector paths
 * via opentype.js; the SVG is rasterised by resvg with system fonts off. Nothing depends on the
 * machine's fonts.
 */
export const PLATE_MM = { w: 520, h: 110 } as const;
export const PLATE_COUNTRY = 'D';
/** Transparent margin around the raster, in texels, so bilinear sampling fades the plate's edges. */
export const PLATE_PAD = 2;
/** Narrowest horizontal condensing of the glyphs before the text is scaled down instead. */
const MIN_CONDENSE = 0.78;
const UMLAUT_BASE: Record<string, string> = { 'Ä': 'A', 'Ö': 'O', 'Ü': 'U' };

const require = createRequire(import.meta.url);
const fontPath = require.resolve(
  '@expo-google-fonts/barlow-semi-condensed/600SemiBold/BarlowSemiCondensed_600SemiBold.ttf',
);

let font: Font | null = null;
function getFont(): Font {
  if (!font) {
    const buf = fs.readFileSync(fontPath);
    font = opentype.parse(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  }
  return font;
}

/** A plate raster: premultiplied linear-light RGBA floats, `tw × th` texels with PLATE_PAD margins. */
export interface PlateTexture {
  tw: number;
  th: number;
  /** Size of the plate itself inside the margins. */
  pw: number;
  ph: number;
  pad: number;
  data: Float32Array;
}

/** SVG path data of an opentype.js path (its own toPathData can print NaN for some rounded values). */
function pathData(p: Path): string {
  const n = (v: number | undefined) => (Math.round((v ?? 0) * 1000) / 1000).toString();
  const out: string[] = [];
  for (const c of p.commands) {
    if (c.type === 'M' || c.type === 'L') out.push(`${c.type}${n(c.x)} ${n(c.y)}`);
    else if (c.type === 'Q') out.push(`Q${n(c.x1)} ${n(c.y1)} ${n(c.x)} ${n(c.y)}`);
    else if (c.type === 'C') out.push(`C${n(c.x1)} ${n(c.y1)} ${n(c.x2)} ${n(c.y2)} ${n(c.x)} ${n(c.y)}`);
    else if (c.type === 'Z') out.push('Z');
  }
  return out.join('');
}

function star(cx: number, cy: number, r: number): string {
  const pts: string[] = [];
  for (let i = 0; i < 10; i++) {
    const a = -Math.PI / 2 + (i * Math.PI) / 5;
    const rr = i % 2 === 0 ? r : r * 0.382;
    pts.push(`${(cx + rr * Math.cos(a)).toFixed(3)},${(cy + rr * Math.sin(a)).toFixed(3)}`);
  }
  return `<polygon points="${pts.join(' ')}"/>`;
}

/** The plate as SVG in millimetres (viewBox 520 × 110). */
export function plateSvg(text: string): string {
  const f = getFont();
  const upm = f.unitsPerEm;
  const capH = ((f.tables.os2 as { sCapHeight?: number } | undefined)?.sCapHeight ?? 0.7 * upm) / upm;
  const glyphH = 72; // mm, cap height of the registration characters
  let fontSize = glyphH / capH;
  const band = 46;
  const x0 = band + 10;
  const avail = PLATE_MM.w - x0 - 12;
  const spacing = 0.03 * fontSize;
  const measure = (size: number) => {
    let total = 0;
    for (const ch of text) total += f.charToGlyph(UMLAUT_BASE[ch] ?? ch).advanceWidth! * (size / upm) + spacing;
    return total - spacing;
  };
  let adv = measure(fontSize);
  let sx = 1;
  if (adv > avail) {
    sx = avail / adv;
    if (sx < MIN_CONDENSE) {
      fontSize *= sx / MIN_CONDENSE;
      sx = MIN_CONDENSE;
      adv = measure(fontSize);
    }
  }
  const w = adv * sx;
  const baseline = PLATE_MM.h / 2 + (capH * fontSize) / 2;
  // Glyph by glyph: umlauts (Ä, Ö, Ü) are drawn as the base letter, shortened as on German plates,
  // with the two dots inside the cap height, so they never leave the plate.
  const glyphs: string[] = [];
  let x = x0 + (avail - w) / 2;
  const scale = fontSize / upm;
  for (const ch of text) {
    const baseCh = UMLAUT_BASE[ch];
    const g = f.charToGlyph(baseCh ?? ch);
    const adv1 = g.advanceWidth! * scale * sx;
    if (ch !== ' ') {
      const d = pathData(f.getPath(baseCh ?? ch, 0, 0, fontSize));
      const sy = baseCh ? 0.78 : 1;
      glyphs.push(`<path transform="translate(${x.toFixed(3)},${baseline.toFixed(3)}) scale(${sx.toFixed(4)},${sy})" d="${d}"/>`);
      if (baseCh) {
        const top = baseline - capH * fontSize;
        const dot = 0.13 * capH * fontSize;
        for (const fx of [0.3, 0.7]) {
          const cx = x + adv1 * fx - dot / 2;
          glyphs.push(`<rect x="${cx.toFixed(3)}" y="${top.toFixed(3)}" width="${dot.toFixed(3)}" height="${dot.toFixed(3)}" rx="${(dot / 4).toFixed(3)}"/>`);
        }
      }
    }
    x += adv1 + spacing * sx;
  }
  const stars: string[] = [];
  for (let i = 0; i < 12; i++) {
    const a = (i * Math.PI) / 6;
    stars.push(star(band / 2 + 13 * Math.cos(a), 36 + 13 * Math.sin(a), 3.1));
  }
  const cc = pathData(f.getPath(PLATE_COUNTRY, 0, 0, 30));
  const ccW = f.getAdvanceWidth(PLATE_COUNTRY, 30);
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${PLATE_MM.w} ${PLATE_MM.h}" width="${PLATE_MM.w}" height="${PLATE_MM.h}">
<clipPath id="c"><rect x="0" y="0" width="520" height="110" rx="7"/></clipPath>
<g clip-path="url(#c)">
<rect x="0" y="0" width="520" height="110" fill="#f4f4f2"/>
<rect x="0" y="0" width="${band}" height="110" fill="#003399"/>
<g fill="#ffcc00">${stars.join('')}</g>
<path transform="translate(${(band - ccW) / 2},${96})" d="${cc}" fill="#ffffff"/>
</g>
<rect x="2" y="2" width="516" height="106" rx="6" fill="none" stroke="#111111" stroke-width="3"/>
<g fill="#111111">${glyphs.join('')}</g>
</svg>`;
}

const cache = new LRUCache<string, PlateTexture>({
  maxSize: 64 * 1024 * 1024,
  sizeCalculation: (t) => t.data.byteLength,
});

/**
 * The plate raster for `text`, `pw` pixels wide (height by the 520:110 ratio), as premultiplied
 * linear RGBA in a SharedArrayBuffer. Cached by (text, pw).
 */
export function plateTexture(text: string, pw: number): PlateTexture {
  pw = Math.max(16, Math.round(pw));
  const key = `${pw}|${text}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const r = new Resvg(plateSvg(text), {
    fitTo: { mode: 'width', value: pw },
    font: { loadSystemFonts: false },
    shapeRendering: 2,
    textRendering: 2,
  }).render();
  const ph = r.height;
  const pad = PLATE_PAD;
  const tw = r.width + 2 * pad;
  const th = ph + 2 * pad;
  const data = new Float32Array(new SharedArrayBuffer(tw * th * 4 * 4));
  const px = r.pixels; // premultiplied sRGB RGBA8
  for (let y = 0; y < ph; y++) {
    for (let x = 0; x < r.width; x++) {
      const s = (y * r.width + x) * 4;
      const a8 = px[s + 3]!;
      if (a8 === 0) continue;
      const a = a8 / 255;
      const o = ((y + pad) * tw + (x + pad)) * 4;
      for (let c = 0; c < 3; c++) {
        const straight = Math.min(255, Math.round((px[s + c]! * 255) / a8));
        data[o + c] = SRGB8_TO_LINEAR[straight]! * a;
      }
      data[o + 3] = a;
    }
  }
  const t: PlateTexture = { tw, th, pw: r.width, ph, pad, data };
  cache.set(key, t);
  return t;
}
