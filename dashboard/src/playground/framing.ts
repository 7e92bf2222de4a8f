// The playground's framing choice and how it travels in a /v1 query (docs/api.md, "Framing and layout").
// shared/framing.ts owns the rules; it imports the gRPC error table, so the bundle keeps its own copy of
// the lists and test/dashboard/spin-viewer.test.ts checks that the two agree.

export const FRAMINGS = ['studio', 'fit'] as const;
export type Framing = (typeof FRAMINGS)[number];
export const ASPECTS = ['16:9', '3:2', '4:3', '1:1', '2:1'] as const;
export type Aspect = (typeof ASPECTS)[number];
export const MARGIN_MIN = 0;
export const MARGIN_MAX = 40;
export const MARGIN_DEFAULT = 5;
export const DEFAULT_FRAMING_CHOICE: FramingChoice = { framing: 'studio', margin: MARGIN_DEFAULT, aspect: '16:9' };

export interface FramingChoice {
  framing: Framing;
  /** Percent; only sent (and only used by the API) with `fit`. */
  margin: number;
  aspect: Aspect;
}

/**
 * Adds the framing parameters that differ from the defaults, so a default request's URL (and the
 * picture's ETag) stays the one it always was; the margin goes with `fit` alone, where it counts.
 */
export function framingQuery(f: FramingChoice, q: URLSearchParams): void {
  if (f.framing !== 'studio') q.set('framing', f.framing);
  if (f.framing === 'fit') q.set('margin', String(f.margin));
  if (f.aspect !== '16:9') q.set('aspect', f.aspect);
}
