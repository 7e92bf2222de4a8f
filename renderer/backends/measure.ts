import type { CompositeJob, Compositor, RgbImage } from './backend.ts';
import { combineDifferences, compareImages, withinParity, type ImageDifference } from './parity.ts';

/** One picture of the measurement: `timed` ones are timed, every one is compared. */
export interface ProbeJob {
  /** e.g. `400 px`, `2400 px`, `400 px transparent` */
  name: string;
  job: CompositeJob;
  timed: boolean;
}

export interface CandidateMeasurement {
  backend: 'gl' | 'cpu';
  description: string;
  /** Median composite time per timed job, ms (the gl readback included). */
  ms: Record<string, number>;
  /** Sum of the medians: what the choice compares. */
  totalMs: number;
  /** Against the reference (the first candidate) over every job; null for the reference itself. */
  parity: ImageDifference | null;
  /** Why this candidate may not be chosen (its pictures break the parity contract); null when it may. */
  refused: string | null;
}

export interface MeasureOptions {
  /** Timed composites per job at most, after one untimed. */
  reps?: number;
  /** Once a candidate has spent this long on one job's timed composites, it stops (after at least one). */
  budgetMsPerJob?: number;
}

/** Paint colours the timed composites cycle through, so no composite repeats the one before it. */
const COLORS: [number, number, number][] = [
  [0.55, 0.02, 0.03],
  [0.01, 0.07, 0.26],
  [0.01, 0.01, 0.01],
  [0.92, 0.92, 0.91],
  [0.05, 0.3, 0.08],
  [0.6, 0.35, 0.02],
  [0.25, 0.25, 0.27],
];

function copyOf(img: RgbImage): RgbImage {
  return { ...img, data: img.data.slice() };
}

/**
 * Composites the same pictures on every candidate: compares each candidate's pictures with the first
 * candidate's (the reference: the cpu backend) under the parity contract, and times the timed ones
 * (the median of a few, each in a new colour). Sequential: the candidates never compete for the CPU.
 */
export async function measureCompositors(candidates: readonly Compositor[], jobs: readonly ProbeJob[], opts: MeasureOptions = {}): Promise<CandidateMeasurement[]> {
  const reps = opts.reps ?? 7;
  const budget = opts.budgetMsPerJob ?? 150;
  const reference: RgbImage[] = [];
  const out: CandidateMeasurement[] = [];
  for (const [i, c] of candidates.entries()) {
    const diffs: ImageDifference[] = [];
    for (const [j, p] of jobs.entries()) {
      const img = await c.composite(p.job);
      if (i === 0) reference.push(copyOf(img));
      else diffs.push(compareImages(reference[j]!, img));
      c.release?.(img);
    }
    const ms: Record<string, number> = {};
    for (const p of jobs) {
      if (!p.timed) continue;
      const times: number[] = [];
      let spent = 0;
      for (let r = 0; r < reps && (r === 0 || spent < budget); r++) {
        const job = { ...p.job, color: COLORS[r % COLORS.length]! };
        const t = performance.now();
        const img = await c.composite(job);
        const dt = performance.now() - t;
        c.release?.(img);
        times.push(dt);
        spent += dt;
      }
      times.sort((a, b) => a - b);
      ms[p.name] = Math.round(times[Math.floor(times.length / 2)]! * 100) / 100;
    }
    const parity = i === 0 ? null : combineDifferences(diffs);
    const broken = parity && !withinParity(parity) ? `disagrees with the ${candidates[0]!.name} backend beyond the parity contract` : null;
    out.push({
      backend: c.name,
      description: c.description,
      ms,
      totalMs: Math.round(Object.values(ms).reduce((a, b) => a + b, 0) * 100) / 100,
      parity,
      refused: broken,
    });
  }
  return out;
}
