/** The nine studio views, in the spec's order (a walk around the car, then from above). */
export const VIEWS = [
  { id: 'front_left', label: 'Front left' },
  { id: 'front', label: 'Front' },
  { id: 'front_right', label: 'Front right' },
  { id: 'side_right', label: 'Side right' },
  { id: 'rear_right', label: 'Rear right' },
  { id: 'rear', label: 'Rear' },
  { id: 'rear_left', label: 'Rear left' },
  { id: 'side_left', label: 'Side left' },
  { id: 'top_down', label: 'Top down' },
] as const;

export type ViewId = (typeof VIEWS)[number]['id'];

export const VIEW_IDS: readonly ViewId[] = VIEWS.map((v) => v.id);

const VIEW_SET = new Set<string>(VIEW_IDS);

export function isViewId(s: string): s is ViewId {
  return VIEW_SET.has(s);
}

/** Orders view ids as the spec lists them, whatever order they were stored in. */
export function sortViews<T extends string>(ids: Iterable<T>): T[] {
  return [...ids].sort((a, b) => VIEW_IDS.indexOf(a as ViewId) - VIEW_IDS.indexOf(b as ViewId));
}
