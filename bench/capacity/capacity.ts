/**
 * The capacity search: leg counts double from `start` while steps pass (up to `max`), then
 * bisect between the last pass and the first failure until they are within a tenth of each
 * other (at least 10 legs), `maxSteps` steps have run or the deadline passed. Counts are even
 * (two legs a call). A failed step whose load generator ran late itself runs once more.
 */
import type { StepResult } from './step';

export interface SearchSettings {
  start: number;
  max: number;
  maxSteps: number;
  thresholdMs: number;
  /** No step starts after this (Date.now() ms): the run's time budget. */
  deadline: number;
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

/** Above this load-generator CPU (%), its lateness is its own load: no second try. */
const RETRY_BELOW_CLIENT_CPU = 50;

const even = (n: number): number => Math.max(2, 2 * Math.round(n / 2));

export async function findCapacity(
  settings: SearchSettings,
  step: (legs: number) => Promise<StepResult>,
): Promise<Search> {
  const steps: StepResult[] = [];
  let pass = 0;
  let fail: number | undefined;
  const run = async (legs: number): Promise<boolean> => {
    let result = await step(legs);
    // A failure while the load generator's own event loop ran late by the threshold or more,
    // though it was not busy itself, says more about its core (another process) than about
    // the server: that step runs once more.
    if (
      !result.pass &&
      result.clientLoopDelayP99Ms >= settings.thresholdMs &&
      result.clientCpuPercent < RETRY_BELOW_CLIENT_CPU
    ) {
      const again = await step(legs);
      result = { ...again, retried: true };
    }
    steps.push(result);
    if (result.pass) pass = Math.max(pass, result.legs);
    else fail = Math.min(fail ?? Infinity, result.legs);
    return result.pass;
  };
  const inTime = (): boolean => steps.length < settings.maxSteps && Date.now() < settings.deadline;
  for (let legs = even(settings.start); inTime(); legs = even(legs * 2)) {
    if (!(await run(Math.min(legs, settings.max)))) break;
    if (legs >= settings.max) break;
  }
  while (fail !== undefined && inTime()) {
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
