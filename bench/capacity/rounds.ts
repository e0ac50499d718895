/**
 * The capacity bench's plan and its reading, kept pure so they can be tested: every leg count of
 * the ladder runs for both systems in every round, the two interleaved (A, B, then B, A in the
 * next round, so neither always goes first), and each (system, leg count) is read as the median
 * of its rounds with the spread (lowest and highest).
 */

import type { System } from './servers';

export type { System };

/** One planned step. */
export interface PlannedStep {
  round: number;
  legs: number;
  system: System;
}

/**
 * The order of the steps: round by round, leg count by leg count, the systems alternating which
 * goes first from one round to the next (and from one leg count to the next).
 */
export function interleavedPlan(
  ladder: readonly number[],
  rounds: number,
  systems: readonly System[],
): PlannedStep[] {
  const plan: PlannedStep[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const [i, legs] of ladder.entries()) {
      const order = (round + i) % 2 === 1 ? systems : [...systems].reverse();
      for (const system of order) plan.push({ round, legs, system });
    }
  }
  return plan;
}

/** What one step measured, as the reading needs it. */
export interface StepFigures {
  system: System;
  legs: number;
  up: number;
  /** Inter-arrival deviation p99 (ms). */
  p99Ms: number;
  /** Server CPU over the window, % of one core. */
  serverCpuPercent: number;
}

/** A median with its spread. */
export interface Spread {
  median: number;
  min: number;
  max: number;
  n: number;
}

/** The median (the mean of the middle two for an even count) and the range of `values`. */
export function spreadOf(values: readonly number[]): Spread {
  if (values.length === 0) return { median: Number.NaN, min: Number.NaN, max: Number.NaN, n: 0 };
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { median, min: sorted[0]!, max: sorted[sorted.length - 1]!, n: sorted.length };
}

/** Whether a step holds a pass line: every leg up and the p99 under it. */
export const holds = (step: StepFigures, lineMs: number): boolean =>
  step.up === step.legs && step.p99Ms < lineMs;

/** One system at one leg count over its rounds. */
export interface CountReading {
  legs: number;
  /** Server CPU per leg, % of one core. */
  cpuPerLeg: Spread;
  serverCpu: Spread;
  p99Ms: Spread;
  /** Per pass line (ms): in how many rounds the step held it. */
  held: Record<string, number>;
  rounds: number;
}

/** One system over the ladder, and its legs per core at each pass line. */
export interface SystemReading {
  system: System;
  counts: CountReading[];
  /**
   * Per pass line (ms): the largest leg count held in a majority of its rounds, every smaller
   * count held too (the server has one core, so that is legs per core); 0 when the smallest
   * count did not hold. `capped` when the largest count of the ladder held (at least that).
   */
  legsPerCore: Record<string, { legs: number; capped: boolean }>;
}

/** Reads the steps of one system. */
export function readSystem(
  system: System,
  steps: readonly StepFigures[],
  lines: readonly number[],
): SystemReading {
  const mine = steps.filter((step) => step.system === system);
  const ladder = [...new Set(mine.map((step) => step.legs))].sort((a, b) => a - b);
  const counts = ladder.map((legs): CountReading => {
    const at = mine.filter((step) => step.legs === legs);
    return {
      legs,
      cpuPerLeg: spreadOf(at.map((step) => step.serverCpuPercent / step.legs)),
      serverCpu: spreadOf(at.map((step) => step.serverCpuPercent)),
      p99Ms: spreadOf(at.map((step) => step.p99Ms)),
      held: Object.fromEntries(
        lines.map((line) => [String(line), at.filter((step) => holds(step, line)).length]),
      ),
      rounds: at.length,
    };
  });
  const legsPerCore = Object.fromEntries(
    lines.map((line) => {
      let legs = 0;
      for (const count of counts) {
        if (count.held[String(line)]! * 2 > count.rounds) legs = count.legs;
        else break;
      }
      const largest = counts[counts.length - 1]?.legs;
      return [String(line), { legs, capped: legs > 0 && legs === largest }];
    }),
  );
  return { system, counts, legsPerCore };
}

/** Ours / Janus CPU per leg at each leg count both ran (medians). */
export function cpuRatios(
  ours: SystemReading,
  janus: SystemReading,
): Array<{ legs: number; ratio: number }> {
  return ours.counts.flatMap((count) => {
    const theirs = janus.counts.find((other) => other.legs === count.legs);
    return theirs
      ? [{ legs: count.legs, ratio: count.cpuPerLeg.median / theirs.cpuPerLeg.median }]
      : [];
  });
}

/**
 * The leg count our engine is profiled at: the smallest at which it used more CPU per leg than
 * Janus (the profile then shows where a missed target's time goes), else `fallback`.
 */
export function profileLegs(
  ratios: ReadonlyArray<{ legs: number; ratio: number }>,
  fallback: number,
): number {
  const missed = ratios.filter((r) => r.ratio > 1).map((r) => r.legs);
  return missed.length > 0 ? Math.min(...missed) : fallback;
}
