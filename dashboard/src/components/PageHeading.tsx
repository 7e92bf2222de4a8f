import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

// The first page of a load leaves focus where the browser puts it (the top: skip link first).
let firstPage = true;

/**
 * The page's h1. After a client-side navigation it takes focus, so that a screen reader announces the
 * new page and the next Tab goes on from the page's top, as after a full page load.
 */
export function PageHeading({ children, title }: { children: ComponentChildren; title: string }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Vehicle image dashboard`;
    if (firstPage) firstPage = false;
    else ref.current?.focus({ preventScroll: true });
  }, [title]);
  return (
    <h1 ref={ref} tabIndex={-1} class="page-title">
      {children}
    </h1>
  );
}
