/**
 * Body styles and the asset sets baked from them. Every shape is a handful of numbers (metres);
 * a new set is one more entry in SETS. Positions along the car are measured from the nose ("u").
 */
export const BODY_STYLES = ['sedan', 'hatchback', 'estate', 'suv', 'coupe', 'pickup', 'van'] as const;
export type BodyStyle = (typeof BODY_STYLES)[number];

export interface VehicleParams {
  style: BodyStyle;
  length: number;
  width: number;
  /** Roof height above the floor. */
  height: number;
  wheelbase: number;
  wheelRadius: number;
  tyreWidth: number;
  /** Underbody height above the floor. */
  clearance: number;
  /** Share of the total overhang that lies in front of the front axle (0..1). */
  frontShare: number;
  /** Height of the bonnet's leading edge. */
  noseTop: number;
  /** Height of the body's shoulder under the glass. */
  belt: number;
  /** Height of the body's top at the tail. */
  tailTop: number;
  /** Horizontal runs from the nose: bonnet, windscreen, roof, rear glass; the rest is the boot deck. */
  bonnet: number;
  windscreen: number;
  roof: number;
  backlight: number;
  /** Greenhouse narrowing from the shoulder to the roof (fraction). */
  tumble: number;
  /** Side windows as fractions of the greenhouse run (0 = windscreen base, 1 = rear glass base). */
  sideWindows: Array<[number, number]>;
  /** Rear glass only above this fraction of the greenhouse height (tailgates, van doors). */
  backGlassMin: number;
  /** Black plastic cladding up to this height above the underbody (0 = none). */
  cladding: number;
  /** Fastback: rear glass bulges out (coupe) rather than running straight. */
  fastback: number;
  /** Open load bed behind the cab (pickup). */
  bed: boolean;
  /** Plan-view rounding radius of the nose and tail corners. */
  cornerRadius: number;
}

export interface SetDef {
  id: string;
  params: VehicleParams;
  /** Neutral light paint of the base layer, sRGB hex. */
  basePaint: string;
}

const sedan: VehicleParams = {
  style: 'sedan', length: 4.75, width: 1.84, height: 1.44, wheelbase: 2.85, wheelRadius: 0.335, tyreWidth: 0.225,
  clearance: 0.15, frontShare: 0.45, noseTop: 0.72, belt: 0.97, tailTop: 0.99,
  bonnet: 1.32, windscreen: 0.78, roof: 1.12, backlight: 0.72, tumble: 0.15,
  sideWindows: [[0.03, 0.46], [0.5, 0.8]], backGlassMin: 0.0, cladding: 0, fastback: 0.2, bed: false, cornerRadius: 0.42,
};

const hatchback: VehicleParams = {
  style: 'hatchback', length: 4.1, width: 1.78, height: 1.47, wheelbase: 2.6, wheelRadius: 0.32, tyreWidth: 0.205,
  clearance: 0.15, frontShare: 0.52, noseTop: 0.74, belt: 0.97, tailTop: 0.97,
  bonnet: 1.02, windscreen: 0.8, roof: 1.45, backlight: 0.42, tumble: 0.14,
  sideWindows: [[0.03, 0.45], [0.49, 0.83]], backGlassMin: 0.12, cladding: 0, fastback: 0, bed: false, cornerRadius: 0.4,
};

const estate: VehicleParams = {
  style: 'estate', length: 4.85, width: 1.85, height: 1.49, wheelbase: 2.86, wheelRadius: 0.335, tyreWidth: 0.225,
  clearance: 0.15, frontShare: 0.43, noseTop: 0.72, belt: 0.97, tailTop: 0.97,
  bonnet: 1.3, windscreen: 0.78, roof: 2.08, backlight: 0.33, tumble: 0.14,
  sideWindows: [[0.03, 0.38], [0.41, 0.7], [0.73, 0.93]], backGlassMin: 0.12, cladding: 0, fastback: 0, bed: false,
  cornerRadius: 0.42,
};

const suv: VehicleParams = {
  style: 'suv', length: 4.72, width: 1.93, height: 1.78, wheelbase: 2.82, wheelRadius: 0.385, tyreWidth: 0.255,
  clearance: 0.26, frontShare: 0.47, noseTop: 1.04, belt: 1.2, tailTop: 1.2,
  bonnet: 1.2, windscreen: 0.68, roof: 2.14, backlight: 0.36, tumble: 0.15,
  sideWindows: [[0.03, 0.4], [0.43, 0.72], [0.75, 0.93]], backGlassMin: 0.1, cladding: 0.18, fastback: 0, bed: false,
  cornerRadius: 0.38,
};

const coupe: VehicleParams = {
  style: 'coupe', length: 4.55, width: 1.87, height: 1.3, wheelbase: 2.7, wheelRadius: 0.34, tyreWidth: 0.245,
  clearance: 0.12, frontShare: 0.44, noseTop: 0.64, belt: 0.9, tailTop: 0.93,
  bonnet: 1.55, windscreen: 0.86, roof: 0.72, backlight: 1.02, tumble: 0.2,
  sideWindows: [[0.03, 0.72]], backGlassMin: 0.0, cladding: 0, fastback: 0.55, bed: false, cornerRadius: 0.45,
};

const pickup: VehicleParams = {
  style: 'pickup', length: 5.35, width: 1.95, height: 1.82, wheelbase: 3.3, wheelRadius: 0.385, tyreWidth: 0.265,
  clearance: 0.25, frontShare: 0.46, noseTop: 1.05, belt: 1.18, tailTop: 1.16,
  bonnet: 1.38, windscreen: 0.62, roof: 1.1, backlight: 0.08, tumble: 0.12,
  sideWindows: [[0.03, 0.5], [0.54, 0.9]], backGlassMin: 0.35, cladding: 0.1, fastback: 0, bed: true,
  cornerRadius: 0.3,
};

const van: VehicleParams = {
  style: 'van', length: 5.1, width: 1.99, height: 2.02, wheelbase: 3.2, wheelRadius: 0.34, tyreWidth: 0.215,
  clearance: 0.18, frontShare: 0.5, noseTop: 0.92, belt: 1.06, tailTop: 1.06,
  bonnet: 0.62, windscreen: 0.72, roof: 3.5, backlight: 0.1, tumble: 0.06,
  sideWindows: [[0.03, 0.2]], backGlassMin: 0.45, cladding: 0.12, fastback: 0, bed: false, cornerRadius: 0.3,
};

const BASE_PAINT = '#dfe1e4';

function variant(p: VehicleParams, over: Partial<VehicleParams>): VehicleParams {
  return { ...p, ...over };
}

/**
 * Every set the baker knows. DEFAULT_SETS (one per body style plus a small city hatchback) are the
 * ones committed under assets/ (the repository's 40 MB budget); the others bake on request
 * (`npm run bake -- --sets sedan-b`).
 */
export const SETS: SetDef[] = [
  { id: 'sedan-a', params: sedan, basePaint: BASE_PAINT },
  {
    id: 'sedan-b',
    params: variant(sedan, { length: 5.05, wheelbase: 3.05, height: 1.47, bonnet: 1.45, roof: 1.26, width: 1.9, wheelRadius: 0.35 }),
    basePaint: BASE_PAINT,
  },
  { id: 'hatchback-a', params: hatchback, basePaint: BASE_PAINT },
  {
    id: 'hatchback-b',
    params: variant(hatchback, {
      length: 3.7, wheelbase: 2.45, width: 1.7, height: 1.5, bonnet: 0.85, roof: 1.35, wheelRadius: 0.3,
      sideWindows: [[0.03, 0.62]], tyreWidth: 0.185,
    }),
    basePaint: BASE_PAINT,
  },
  { id: 'estate-a', params: estate, basePaint: BASE_PAINT },
  { id: 'suv-a', params: suv, basePaint: BASE_PAINT },
  {
    id: 'suv-b',
    params: variant(suv, {
      length: 4.4, wheelbase: 2.66, height: 1.66, width: 1.84, clearance: 0.22, noseTop: 0.96, belt: 1.11, tailTop: 1.11,
      roof: 1.9, backlight: 0.42, wheelRadius: 0.36, bonnet: 1.1, cladding: 0.14,
    }),
    basePaint: BASE_PAINT,
  },
  { id: 'coupe-a', params: coupe, basePaint: BASE_PAINT },
  { id: 'pickup-a', params: pickup, basePaint: BASE_PAINT },
  { id: 'van-a', params: van, basePaint: BASE_PAINT },
];

export const DEFAULT_SET_IDS = [
  'sedan-a', 'hatchback-a', 'hatchback-b', 'estate-a', 'suv-a', 'pickup-a', 'van-a',
] as const;

export function findSet(id: string): SetDef | undefined {
  return SETS.find((s) => s.id === id);
}
