/**
 * The frame baker: a child process of the renderer (forked by baker-child.ts) that shoots spin frames
 * with the studio's baker (baker/). headless-gl cannot load in a worker thread, and a frame takes
 * seconds on lavapipe, so the shots run here, off the renderer's event loop. It holds one GL context
 * and the loaded subjects of the last few sets it shot, takes one job at a time over IPC, writes each
 * frame into the frame cache (writeSpinFrame: atomic) and answers when it is there. It goes when its
 * parent does (the IPC channel closes).
 */
import { readSetJson } from '../../shared/asset-format/set-json.ts';
import { readSetMeta } from '../../shared/asset-format/read-set.ts';
import { spinFrameSetDir, writeSpinFrame } from '../../shared/asset-format/spin-frames.ts';
import { frameId } from '../../shared/shot-id.ts';
import { SPIN_FRAME_LIGHT_DEPTH, SPIN_FRAME_SAMPLES } from '../../shared/spin.ts';
import { createGLRenderer, type GLHandle } from '../../baker/gl.ts';
import { loadSpinSubject } from '../../baker/spin/load-subject.ts';
import { createSpinShooter } from '../../baker/spin/shoot-frame.ts';
import type { BakeJob, ChildMessage, ParentMessage } from './bake-messages.ts';

/** Subjects held between jobs: a spin asks for its frames one after another, so the last set or two. */
const SUBJECTS_HELD = 2;

type Shooter = ReturnType<typeof createSpinShooter>;

function send(m: ChildMessage): void {
  process.send?.(m);
}

// the renderer decides when this process ends: Ctrl-C in a terminal reaches it first, and a stop in order
process.on('SIGINT', () => {});
process.on('disconnect', () => process.exit(0));

let gl: GLHandle;
try {
  gl = createGLRenderer();
} catch (e) {
  send({ type: 'fatal', message: (e as Error).message });
  process.exit(1);
}

const held = new Map<string, Promise<Shooter>>();

/** The set's shooter, loading its subject once (held for the next frames of the same set). */
async function shooterFor(job: BakeJob): Promise<{ shooter: Shooter; loaded: boolean }> {
  const key = `${job.setId}@${job.revision}`;
  const had = held.get(key);
  if (had) {
    held.delete(key);
    held.set(key, had); // most recently used last
    return { shooter: await had, loaded: false };
  }
  const made = (async () => {
    const [meta, json] = await Promise.all([readSetMeta(job.setDir), readSetJson(job.setDir)]);
    if (!meta.spin) throw new Error(`asset set ${job.setId} has no 3D source`);
    if (meta.revision !== job.revision) throw new Error(`asset set ${job.setId} is at revision ${meta.revision}, not ${job.revision}`);
    const subject = await loadSpinSubject(meta.spin);
    return createSpinShooter(gl.renderer, subject, meta.spin, json.neutral_paint);
  })();
  held.set(key, made);
  made.catch(() => held.delete(key));
  while (held.size > SUBJECTS_HELD) {
    const [oldest, p] = held.entries().next().value!;
    held.delete(oldest);
    p.then((s) => s.dispose(), () => {});
  }
  return { shooter: await made, loaded: true };
}

async function bake(job: BakeJob): Promise<ChildMessage> {
  const t0 = performance.now();
  const { shooter, loaded } = await shooterFor(job);
  const loadMs = loaded ? performance.now() - t0 : 0;
  const shot = await shooter.shoot({
    yaw: job.yaw,
    width: job.width,
    height: job.height,
    samples: Math.min(SPIN_FRAME_SAMPLES, gl.maxSamples),
    supersample: job.supersample,
    lightDepth: SPIN_FRAME_LIGHT_DEPTH,
  });
  await writeSpinFrame(spinFrameSetDir(job.framesRoot, job.setId, job.revision, job.width), frameId(job.yaw), shot);
  return { type: 'done', id: job.id, ms: performance.now() - t0, loadMs };
}

// one job at a time: the parent sends the next only after this one's answer
process.on('message', (m: ParentMessage) => {
  if (m?.type !== 'bake') return;
  bake(m.job).then(send, (e: unknown) => send({ type: 'failed', id: m.job.id, message: e instanceof Error ? e.message : String(e) }));
});

/** The real ANGLE renderer string (headless-gl masks RENDERER behind a constant). */
function glDescription(): string {
  const ctx = gl.renderer.getContext() as unknown as { RENDERER: number; VERSION: number; getParameter(p: number): unknown; _getParameterDirect?(p: number): unknown };
  const direct = (p: number) => String(ctx._getParameterDirect ? ctx._getParameterDirect(p) : ctx.getParameter(p));
  return `${direct(ctx.RENDERER)} | ${direct(ctx.VERSION)}`;
}

send({ type: 'ready', gl: glDescription() });
