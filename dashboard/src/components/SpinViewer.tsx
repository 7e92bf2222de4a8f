import { useRef, useState } from 'preact/hooks';
import type { SpinFrame } from '../playground/spin.ts';
import { useFramePreload } from '../playground/use-frame-preload.ts';
import { useTurntable } from '../playground/use-turntable.ts';

const position = (k: number, n: number, yaw: number) => `Frame ${k} of ${n}, yaw ${yaw}°`;

/**
 * A spin's frames as one picture that turns: shown from the first frame decoded on, dragged or turned
 * with the keys (a slider over the frames). Only a decoded frame is ever drawn: while the frame turned
 * to is still coming, the last one drawn stays and the line below says so.
 */
export function SpinViewer({ frames, label }: { frames: SpinFrame[]; label: string }) {
  const n = frames.length;
  const [index, setIndex] = useState(0);
  const { states, srcOf, retryFailed } = useFramePreload(frames.map((f) => f.image_url));
  const turntable = useTurntable(n, index, setIndex);
  const lastDrawn = useRef<number | null>(null);
  if (states[index] === 'loaded') lastDrawn.current = index;
  const drawn = lastDrawn.current;
  const loaded = states.filter((s) => s === 'loaded').length;
  const failed = states.filter((s) => s === 'failed').length;
  const baking = states.filter((s) => s === 'baking').length;
  const frame = frames[index]!;
  const first = frames[0]?.layout;
  const here = position(index + 1, n, frame.yaw_degrees);

  return (
    <div class="spin">
      <div
        class={`spin-viewer${turntable.dragging ? ' dragging' : ''}`}
        role="slider"
        tabIndex={0}
        aria-label={`Spin of ${label}`}
        aria-valuemin={1}
        aria-valuemax={n}
        aria-valuenow={index + 1}
        aria-valuetext={here}
        aria-describedby="pg-spin-how"
        data-testid="spin-viewer"
        // at most the frames' own size (plus the border), as the image result shows its picture
        style={first ? { aspectRatio: `${first.width + 2} / ${first.height + 2}`, maxWidth: `${first.width + 2}px` } : undefined}
        {...turntable.handlers}
      >
        {drawn === null ? (
          <p class="spin-wait">
            {failed > 0 && states[0] === 'failed'
              ? 'The first frame could not be loaded.'
              : states[0] === 'baking'
                ? 'The renderer is shooting the first frame…'
                : 'Loading the first frame…'}
          </p>
        ) : (
          <img
            src={srcOf(drawn)}
            alt=""
            draggable={false}
            data-testid="spin-frame"
            data-frame-index={String(drawn)}
            data-frame-url={frames[drawn]!.image_url}
          />
        )}
      </div>
      <p class="spin-position" data-testid="spin-position">
        {here}
        {(states[index] === 'waiting' || states[index] === 'baking') && drawn !== null && ' (still loading; the last frame loaded is shown)'}
        {states[index] === 'failed' && ' (this frame could not be loaded)'}
      </p>
      <p class="hint" id="pg-spin-how">
        Drag sideways to turn the vehicle (a drag across the picture is one turn; rightwards the camera moves
        round to its left side), or focus it and use ← and → (one frame), Home (the front).
      </p>
      <div class="spin-progress">
        <progress max={n} value={loaded} aria-labelledby="pg-spin-progress" />
        <span id="pg-spin-progress" data-testid="spin-progress">
          {loaded} of {n} frames{failed > 0 && `, ${failed} could not be loaded`}
          {baking > 0 && loaded + failed < n && ' (the renderer is shooting frames it had not made yet: without a GPU each takes seconds)'}
        </span>
        {failed > 0 && (
          <button type="button" class="button small" onClick={retryFailed}>
            Load the missing frames again
          </button>
        )}
      </div>
    </div>
  );
}
