// The frames of a spin, downloaded and decoded in order in the background (spin.ts, preloadFrames).
import { useEffect, useRef, useState } from 'preact/hooks';
import { FramePending, preloadFrames, type FrameState } from './spin.ts';

const CONCURRENCY = 4;
/** A frame that failed otherwise than pending is asked once more after this. */
const RETRY_DELAY_MS = 2000;
/** A renderer without a GPU shoots a cold frame in seconds, one at a time: a whole spin may take minutes. */
const PENDING_BUDGET_MS = 15 * 60_000;

/**
 * Downloads one frame and decodes it. fetch() rather than an image element, so that a 503 or 429 with
 * Retry-After (the renderer is shooting the frame, or the organisation's cold downloads are at their
 * limit) is told apart from a failure (/images exposes the header to pages). The picture is kept as an object URL, decoded once, for the viewer to draw.
 */
async function fetchFrame(url: string, signal: AbortSignal): Promise<string> {
  const res = await fetch(url, { signal });
  // 503: the renderer is shooting the frame; 429: the organisation's cold downloads are at their limit
  // (each cold frame is one) — both say when to come back
  if (res.status === 503 || res.status === 429) {
    const after = Number(res.headers.get('Retry-After'));
    if (Number.isFinite(after) && after > 0) throw new FramePending(after);
  }
  if (!res.ok) throw new Error(`frame download answered ${res.status}`);
  const objectUrl = URL.createObjectURL(await res.blob());
  const img = new Image();
  img.src = objectUrl;
  try {
    await img.decode();
  } catch (e) {
    URL.revokeObjectURL(objectUrl);
    throw e;
  }
  return objectUrl;
}

export interface FramePreload {
  states: FrameState[];
  /** The decoded picture of a loaded frame (an object URL), for the viewer's image. */
  srcOf: (index: number) => string | undefined;
  /** Loads the frames marked failed again. */
  retryFailed: () => void;
}

/**
 * Each frame's state, in the answer's order. The URLs are those of one answer for the hook's life (a
 * new answer is a new viewer: PlaygroundPage keys it).
 */
export function useFramePreload(urls: readonly string[]): FramePreload {
  const [states, setStates] = useState<FrameState[]>(() => urls.map(() => 'waiting'));
  const kept = useRef<string[]>([]);
  const current = useRef(states);
  current.current = states;
  // one signal for the viewer's life: a later round does not stop frames of an earlier one still coming
  const life = useRef(new AbortController());

  const load = (indices: number[]) =>
    void preloadFrames(indices, {
      concurrency: CONCURRENCY,
      retryDelayMs: RETRY_DELAY_MS,
      pendingBudgetMs: PENDING_BUDGET_MS,
      signal: life.current.signal,
      load: async (i) => {
        kept.current[i] = await fetchFrame(urls[i]!, life.current.signal);
      },
      onSettled: (i, state) =>
        setStates((prev) => {
          const next = prev.slice();
          next[i] = state;
          return next;
        }),
    });

  useEffect(() => {
    load(urls.map((_, i) => i));
    return () => {
      life.current.abort();
      for (const u of kept.current) if (u) URL.revokeObjectURL(u);
    };
  }, []);

  return {
    states,
    srcOf: (i) => kept.current[i],
    retryFailed() {
      const failed = current.current.flatMap((s, i) => (s === 'failed' ? [i] : []));
      setStates((prev) => prev.map((s) => (s === 'failed' ? 'waiting' : s)));
      load(failed);
    },
  };
}
