// Turning a spin by hand: a pointer drag (mouse, pen or touch) or the keyboard, on one focusable element.
import type { HTMLAttributes } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { frameAfterDrag, stepFrame } from './spin.ts';

interface Drag {
  pointerId: number;
  startX: number;
  startIndex: number;
  width: number;
}

export interface Turntable {
  dragging: boolean;
  handlers: Pick<
    HTMLAttributes<HTMLElement>,
    'onPointerDown' | 'onPointerMove' | 'onPointerUp' | 'onPointerCancel' | 'onLostPointerCapture' | 'onKeyDown' | 'onDragStart'
  >;
}

/**
 * A drag across the element's whole width is one turn, rightwards to higher yaw (spin.ts,
 * frameAfterDrag); ArrowRight / ArrowLeft step one frame round the turntable, Home goes to yaw 0 and
 * End to the last frame. The element keeps `touch-action: pan-y` in CSS, so a vertical swipe still
 * scrolls the page on a phone.
 */
export function useTurntable(count: number, index: number, setIndex: (i: number) => void): Turntable {
  const drag = useRef<Drag | null>(null);
  const [dragging, setDragging] = useState(false);
  const end = () => {
    drag.current = null;
    setDragging(false);
  };
  return {
    dragging,
    handlers: {
      onPointerDown(e) {
        if (e.pointerType === 'mouse' && e.button !== 0) return;
        const el = e.currentTarget;
        // no text selection or image drag starts; the keys work on from here
        e.preventDefault();
        el.focus({ preventScroll: true });
        el.setPointerCapture(e.pointerId);
        drag.current = { pointerId: e.pointerId, startX: e.clientX, startIndex: index, width: el.getBoundingClientRect().width };
        setDragging(true);
      },
      onPointerMove(e) {
        const d = drag.current;
        if (!d || d.pointerId !== e.pointerId) return;
        setIndex(frameAfterDrag(d.startIndex, e.clientX - d.startX, d.width, count));
      },
      onPointerUp: end,
      onPointerCancel: end,
      onLostPointerCapture: end,
      onKeyDown(e) {
        const keys: Record<string, number> = { ArrowRight: stepFrame(index, 1, count), ArrowLeft: stepFrame(index, -1, count), Home: 0, End: count - 1 };
        const to = keys[e.key];
        if (to === undefined) return;
        e.preventDefault();
        setIndex(to);
      },
      onDragStart: (e) => e.preventDefault(),
    },
  };
}
