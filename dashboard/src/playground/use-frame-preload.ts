// The frames of a spin, downloaded and decoded in order in the background (spin.ts, preloadFrames).
import { useEffect, useRef, useState } from 'preact/hooks';
import { preloadFrames, type FrameState } from './spin.ts';

const CONCURRENCY = 4;
/** A cold frame may be answered 503 while the renderer bakes it: the one retry waits a little. */
const RETRY_DELAY_MS = 2000;

/** Decodes one picture; the element is kept, so the browser keeps the decoded picture for the viewer. */
function decode(url: string, keep: HTMLImageElement[], i: number): Promise<void> {
  const img = new Image();
  img.decoding = 'async';
  img.src = url;
  return img.decode().then(() => {
    keep[i] = img;
  });
}

/** Each frame's state, in the answer's order; a new list of URLs starts again. */
export function useFramePreload(urls: readonly string[]): FrameState[] {
  const [states, setStates] = useState<FrameState[]>(() => urls.map(() => 'waiting'));
  const kept = useRef<HTMLImageElement[]>([]);
  const key = urls.join('\n');
  useEffect(() => {
    const ctl = new AbortController();
    kept.current = [];
    setStates(urls.map(() => 'waiting'));
    void preloadFrames(urls.length, {
      concurrency: CONCURRENCY,
      retryDelayMs: RETRY_DELAY_MS,
      signal: ctl.signal,
      load: (i) => decode(urls[i]!, kept.current, i),
      onSettled: (i, state) =>
        setStates((prev) => {
          const next = prev.slice();
          next[i] = state;
          return next;
        }),
    });
    return () => ctl.abort();
  }, [key]);
  return states;
}
