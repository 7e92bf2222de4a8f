// The catalog walk of the playground, through the dashboard's /v1 mirror (same answers as with a key).
import type { ApiClient } from '../api.ts';
import type { NamedRef, Vehicle } from '../types.ts';
import { framingQuery, type FramingChoice } from './framing.ts';

export interface ModelEntry extends NamedRef {
  years: number[];
}

export interface VariantEntry {
  slug: string;
  name: string;
  vehicle_id: string;
  category: string;
}

/** GET …/{year}: either one vehicle with its views, or the variants to choose from. */
export type YearAnswer = { vehicle: Vehicle; views: string[] } | { year: number; variants: VariantEntry[] };

export interface ViewEntry {
  id: string;
  label: string;
}

export interface NamedColour {
  name: string;
  hex: string;
}

const seg = encodeURIComponent;

export const catalog = {
  makes: (api: ApiClient) => api.get<{ makes: NamedRef[] }>('/v1/makes').then((a) => a.makes),
  models: (api: ApiClient, make: string) =>
    api.get<{ models: ModelEntry[] }>(`/v1/makes/${seg(make)}/models`).then((a) => a.models),
  year: (api: ApiClient, make: string, model: string, year: number) =>
    api.get<YearAnswer>(`/v1/makes/${seg(make)}/models/${seg(model)}/${year}`),
  variant: (api: ApiClient, make: string, model: string, year: number, variant: string) =>
    api.get<{ vehicle: Vehicle; views: string[] }>(`/v1/makes/${seg(make)}/models/${seg(model)}/${year}/${seg(variant)}`),
  views: (api: ApiClient) => api.get<{ views: ViewEntry[] }>('/v1/views').then((a) => a.views),
  colors: (api: ApiClient) => api.get<{ colors: NamedColour[] }>('/v1/colors').then((a) => a.colors),
};

export interface ImageRequest extends FramingChoice {
  make: string;
  model: string;
  year: number;
  variant: string | null;
  view: string;
  color: string;
  shadow: boolean;
  plate: string;
  format: string;
  width: number;
  background: 'studio' | 'transparent';
}

/** The /v1 path and query of an image request; the same string serves the page's call and the curl line. */
export function imagePath(r: ImageRequest): string {
  const parts = ['/v1/makes', seg(r.make), 'models', seg(r.model), String(r.year)];
  if (r.variant) parts.push(seg(r.variant));
  parts.push(seg(r.view));
  const q = new URLSearchParams();
  q.set('color', r.color);
  q.set('shadow', String(r.shadow));
  if (r.plate.trim()) q.set('plate', r.plate.trim());
  q.set('format', r.format);
  q.set('width', String(r.width));
  if (r.background !== 'studio') q.set('background', r.background);
  framingQuery(r, q);
  return `${parts.join('/')}?${q.toString()}`;
}

/** The equivalent shell command; the key is always the `$KEY` placeholder, never a real secret. */
export function curlLine(origin: string, path: string): string {
  return `curl -s -H "X-Api-Key: $KEY" "${origin}${path}"`;
}
