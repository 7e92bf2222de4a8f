import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * The page's h1. It takes focus when the page opens so that a screen reader announces the new page
 * after client-side navigation and the next Tab starts from the page's top.
 */
export function PageHeading({ children, title }: { children: ComponentChildren; title: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Vehicle image dashboard`;
    ref.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <h1 ref={ref} tabIndex={-1} class="page-title">
      {children}
    </h1>
  );
}
