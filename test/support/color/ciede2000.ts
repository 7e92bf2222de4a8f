import { srgbToLinear } from '../../../shared/color/srgb.ts';

/**
 * CIE L*a*b* (D65 white, 2° observer) from sRGB, and the CIEDE2000 colour difference
 * (Sharma, Wu & Dalal 2005, kL = kC = kH = 1). Used by the colour tests to measure how far a render is
 * from the requested colour.
 */
export type Lab = [number, number, number];

/** D65 reference white of sRGB, Y = 1. */
const XN = 0.95047;
const YN = 1.0;
const ZN = 1.08883;

const EPS = 216 / 24389; // (6/29)^3
const KAPPA = 24389 / 27; // (29/3)^3

function f(t: number): number {
  return t > EPS ? Math.cbrt(t) : (KAPPA * t + 16) / 116;
}

/** Linear-light sRGB (0..1 per channel) → Lab. */
export function linearToLab(r: number, g: number, b: number): Lab {
  const x = 0.4124564 * r + 0.3575761 * g + 0.1804375 * b;
  const y = 0.2126729 * r + 0.7151522 * g + 0.072175 * b;
  const z = 0.0193339 * r + 0.119192 * g + 0.9503041 * b;
  const fx = f(x / XN);
  const fy = f(y / YN);
  const fz = f(z / ZN);
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

/** 8-bit sRGB codes (0..255) → Lab. */
export function srgb8ToLab(r: number, g: number, b: number): Lab {
  return linearToLab(srgbToLinear(r / 255), srgbToLinear(g / 255), srgbToLinear(b / 255));
}

/** '#RRGGBB' → Lab. */
export function hexToLab(hex: string): Lab {
  const n = parseInt(hex.replace('#', ''), 16);
  return srgb8ToLab((n >> 16) & 255, (n >> 8) & 255, n & 255);
}

const DEG = Math.PI / 180;
const POW25_7 = 25 ** 7;

/** CIEDE2000 ΔE00 between two Lab colours. */
export function ciede2000(lab1: readonly number[], lab2: readonly number[]): number {
  const [L1, a1, b1] = lab1 as [number, number, number];
  const [L2, a2, b2] = lab2 as [number, number, number];
  const C1 = Math.hypot(a1, b1);
  const C2 = Math.hypot(a2, b2);
  const Cm = (C1 + C2) / 2;
  const Cm7 = Cm ** 7;
  const G = 0.5 * (1 - Math.sqrt(Cm7 / (Cm7 + POW25_7)));
  const a1p = (1 + G) * a1;
  const a2p = (1 + G) * a2;
  const C1p = Math.hypot(a1p, b1);
  const C2p = Math.hypot(a2p, b2);
  const hp = (a: number, b: number) => {
    if (a === 0 && b === 0) return 0;
    const h = Math.atan2(b, a) / DEG;
    return h < 0 ? h + 360 : h;
  };
  const h1p = hp(a1p, b1);
  const h2p = hp(a2p, b2);
  const dLp = L2 - L1;
  const dCp = C2p - C1p;
  let dhp = 0;
  if (C1p * C2p !== 0) {
    dhp = h2p - h1p;
    if (dhp > 180) dhp -= 360;
    else if (dhp < -180) dhp += 360;
  }
  const dHp = 2 * Math.sqrt(C1p * C2p) * Math.sin((dhp / 2) * DEG);
  const Lmp = (L1 + L2) / 2;
  const Cmp = (C1p + C2p) / 2;
  let hmp = h1p + h2p;
  if (C1p * C2p !== 0) {
    if (Math.abs(h1p - h2p) <= 180) hmp = (h1p + h2p) / 2;
    else if (h1p + h2p < 360) hmp = (h1p + h2p + 360) / 2;
    else hmp = (h1p + h2p - 360) / 2;
  }
  const T =
    1 -
    0.17 * Math.cos((hmp - 30) * DEG) +
    0.24 * Math.cos(2 * hmp * DEG) +
    0.32 * Math.cos((3 * hmp + 6) * DEG) -
    0.2 * Math.cos((4 * hmp - 63) * DEG);
  const dTheta = 30 * Math.exp(-(((hmp - 275) / 25) ** 2));
  const Cmp7 = Cmp ** 7;
  const RC = 2 * Math.sqrt(Cmp7 / (Cmp7 + POW25_7));
  const Lm50 = (Lmp - 50) ** 2;
  const SL = 1 + (0.015 * Lm50) / Math.sqrt(20 + Lm50);
  const SC = 1 + 0.045 * Cmp;
  const SH = 1 + 0.015 * Cmp * T;
  const RT = -Math.sin(2 * dTheta * DEG) * RC;
  const l = dLp / SL;
  const c = dCp / SC;
  const h = dHp / SH;
  return Math.sqrt(l * l + c * c + h * h + RT * c * h);
}

/** ΔE00 between two linear-light sRGB colours. */
export function deltaE00Linear(c1: readonly number[], c2: readonly number[]): number {
  return ciede2000(linearToLab(c1[0]!, c1[1]!, c1[2]!), linearToLab(c2[0]!, c2[1]!, c2[2]!));
}

/** ΔE00 between two '#RRGGBB' colours. */
export function deltaE00Hex(hex1: string, hex2: string): number {
  return ciede2000(hexToLab(hex1), hexToLab(hex2));
}
