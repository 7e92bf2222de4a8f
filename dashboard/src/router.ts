// Client-side routes under /dashboard/ with the History API; the gateway answers index.html for each.
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/dashboard';

export type Route = 'contract' | 'sign-in' | 'keys' | 'usage' | 'playground' | 'webhooks' | 'account' | 'not-found';

const PATHS: Record<string, Route> = {
  '': 'contract',
  '/': 'contract',
  '/sign-in': 'sign-in',
  '/keys': 'keys',
  '/usage': 'usage',
  '/playground': 'playground',
  '/webhooks': 'webhooks',
  '/account': 'account',
};

export function routeOf(pathname: string): Route {
  if (!pathname.startsWith(BASE)) return 'not-found';
  const rest = pathname.slice(BASE.length).replace(/\/+$/, '') || '/';
  return PATHS[rest] ?? 'not-found';
}

export function hrefOf(route: Exclude<Route, 'not-found'>): string {
  return route === 'contract' ? `${BASE}/` : `${BASE}/${route}`;
}

const listeners = new Set<() => void>();

export function navigate(route: Exclude<Route, 'not-found'>, replace = false): void {
  const href = hrefOf(route);
  if (replace) history.replaceState(null, '', href);
  else history.pushState(null, '', href);
  listeners.forEach((l) => l());
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => routeOf(location.pathname));
  useEffect(() => {
    const update = () => setRoute(routeOf(location.pathname));
    listeners.add(update);
    addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      removeEventListener('popstate', update);
    };
  }, []);
  return route;
}
