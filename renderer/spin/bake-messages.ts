/**
 * What the renderer and its frame-baker child (frame-baker-process.ts) say to each other over the
 * fork's IPC channel: one job at a time, each answered by `done` or `failed`.
 */

/** One frame to shoot and write into the frame cache. */
export interface BakeJob {
  id: number;
  /** The asset set's directory (its set.json names the 3D source) and identity. */
  setDir: string;
  setId: string;
  revision: string;
  yaw: number;
  width: number;
  height: number;
  /** SPIN_FRAMES_DIR: the frame lands in spinFrameSetDir(framesRoot, setId, revision, width). */
  framesRoot: string;
  supersample: number;
}

export type ParentMessage = { type: 'bake'; job: BakeJob };

export type ChildMessage =
  /** The GL context is made: jobs may come. */
  | { type: 'ready'; gl: string }
  /** No GL context could be made: the child exits. */
  | { type: 'fatal'; message: string }
  /** `loadMs`: the part spent loading the subject (0 when it was held from an earlier frame). */
  | { type: 'done'; id: number; ms: number; loadMs: number }
  | { type: 'failed'; id: number; message: string };
