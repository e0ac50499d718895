/**
 * The capacity search: leg counts double from `start` while steps pass (up to `max`), then
 * bisect between the last pass and the first failure until they are within a tenth of each
 * other (at least 10 legs) or `maxSteps` steps have run. Counts are even (two legs a call).
 */
import type { StepResult } from './step';

export interface SearchSettings {
  start: number;
  max: number;
  maxSteps: number;
}

export interface Search {
  /** The largest leg count that passed (0: none did). */
  capacity: number;
  /** The smallest that failed (undefined: none did, up to `max`). */
  firstFailure?: number;
  /** Whether a failure or the largest pass was at the load generator's own CPU limit. */
  loadBound: boolean;
  steps: StepResult[];
}

const even = (n: number): number => Math.max(2, 2 * Math.round(n / 2));

export async function findCapacity(
  settings: SearchSettings,
  step: (legs: number) => Promise<StepResult>,
): Promise<Search> {
  const steps: StepResult[] = [];
  let pass = 0;
  let fail: number | undefined;
  const run = async (legs: number): Promise<boolean> => {
    const result = await step(legs);
    steps.push(result);
    if (result.pass) pass = Math.max(pass, result.legs);
    else fail = Math.min(fail ?? Infinity, result.legs);
    return result.pass;
  };
  for (let legs = even(settings.start); steps.length < settings.maxSteps; legs = even(legs * 2)) {
    if (!(await run(Math.min(legs, settings.max)))) break;
    if (legs >= settings.max) break;
  }
  while (fail !== undefined && steps.length < settings.maxSteps) {
    const gap = fail - pass;
    if (gap <= Math.max(10, pass / 10)) break;
    await run(even((pass + fail) / 2));
  }
  const bound = steps.filter((s) => s.legs === fail || s.legs === pass).some((s) => s.loadBound);
  return {
    capacity: pass,
    ...(fail === undefined ? {} : { firstFailure: fail }),
    loadBound: bound,
    steps,
  };
}
