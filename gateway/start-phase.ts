import type { Logger } from '../shared/logger.ts';

/** Shorter phases pass without a line: a start that is quick stays as short to read. */
export const PHASE_LINE_MIN_MS = 1000;

/** Runs one step of the start; see `startPhases`. */
export type Phase = <T>(message: string, run: () => Promise<T>) => Promise<T>;

/** A `Phase` that only runs the step: for callers that are not a start (the admin import, tests). */
export const untimed: Phase = (_message, run) => run();

/**
 * A first start spends seconds in steps that otherwise print nothing (creating the embedded
 * database, loading the demo catalog, building its search index): each step that takes
 * PHASE_LINE_MIN_MS or more logs `message` with its duration, so that whoever watches the start sees
 * it progress and where the time went.
 */
export function startPhases(logger: Logger, minMs = PHASE_LINE_MIN_MS): Phase {
  return async (message, run) => {
    const started = performance.now();
    const result = await run();
    const ms = Math.round(performance.now() - started);
    if (ms >= minMs) logger.info({ ms }, message);
    return result;
  };
}
