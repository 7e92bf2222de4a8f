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

export interface FramePreload {
  states: FrameState[];
  /** Loads the frames marked failed again (a renderer without a GPU may take longer than one retry). */
  retryFailed: () => void;
}

/**
 * Each frame's state, in the answer's order. The URLs are those of one answer for the hook's life (a
 * new answer is a new viewer: PlaygroundPage keys it).
 */
export function useFramePreload(urls: readonly string[]): FramePreload {
  const [states, setStates] = useState<FrameState[]>(() => urls.map(() => 'waiting'));
  const kept = useRef<HTMLImageElement[]>([]);
  const current = useRef(states);
  current.current = states;
  // one signal for the viewer's life: a later round does not stop frames of an earlier one still coming
  const life = useRef(new AbortController());

  const load = (indices: number[]) =>
    void preloadFrames(indices, {
      concurrency: CONCURRENCY,
      retryDelayMs: RETRY_DELAY_MS,
      signal: life.current.signal,
      load: (i) => decode(urls[i]!, kept.current, i),
      onSettled: (i, state) =>
        setStates((prev) => {
          const next = prev.slice();
          next[i] = state;
          return next;
        }),
    });

  useEffect(() => {
    load(urls.map((_, i) => i));
    return () => life.current.abort();
  }, []);

  return {
    states,
    retryFailed() {
      const failed = current.current.flatMap((s, i) => (s === 'failed' ? [i] : []));
      setStates((prev) => prev.map((s) => (s === 'failed' ? 'waiting' : s)));
      load(failed);
    },
  };
}
