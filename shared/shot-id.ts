import { isViewId, type ViewId } from './views.ts';

/**
 * What a render shows: one of the nine studio views, or a spin frame (shared/spin.ts), with the frame
 * ids that travel as a render's `view` (gateway → signed URL → renderer → its frame cache). Apart from
 * spin.ts so that framing, which places any shot, does not depend on the spin call's options.
 */

/** The finest step between frames (72 frames): every frame of every count is one of these yaws. */
export const SPIN_YAW_STEP = 5;

/**
 * A spin frame's shot id: `yaw-` and its yaw in whole degrees, three digits (`yaw-000` … `yaw-355`).
 * Yaw 0 is the front view's camera; it grows as the camera turns towards the vehicle's left side, so
 * `yaw-090` looks at the left side (as side_left does) and `yaw-270` at the right.
 */
export type FrameId = `yaw-${string}`;
/** What a render shows: one of the nine studio views, or a spin frame. */
export type ShotId = ViewId | FrameId;

const FRAME_ID_RE = /^yaw-(\d{3})$/;

export function frameId(yawDegrees: number): FrameId {
  if (!isSpinYaw(yawDegrees)) throw new RangeError(`no spin frame at yaw ${yawDegrees}`);
  return `yaw-${String(yawDegrees).padStart(3, '0')}`;
}

export function isSpinYaw(yawDegrees: number): boolean {
  return Number.isInteger(yawDegrees) && yawDegrees >= 0 && yawDegrees < 360 && yawDegrees % SPIN_YAW_STEP === 0;
}

export function isFrameId(s: string): s is FrameId {
  const m = FRAME_ID_RE.exec(s);
  return m !== null && isSpinYaw(Number(m[1]));
}

/** The yaw of a frame id, in degrees. */
export function frameYaw(id: FrameId): number {
  return Number(id.slice(4));
}

export function isShotId(s: string): s is ShotId {
  return isViewId(s) || isFrameId(s);
}

