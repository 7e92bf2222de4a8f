import type { ComponentChildren } from 'preact';
import { hrefOf, navigate, type Route } from '../router.ts';

interface Props {
  to: Exclude<Route, 'not-found'>;
  current?: boolean;
  class?: string;
  children: ComponentChildren;
}

/** An ordinary link (works with a new tab, middle click, no script) that routes in place on a plain click. */
export function Link({ to, current, class: cls, children }: Props) {
  return (
    <a
      href={hrefOf(to)}
      class={cls}
      aria-current={current ? 'page' : undefined}
      onClick={(e) => {
        if (e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
