import { describe, expect, it } from 'vitest';
import {
  cpuRatios,
  interleavedPlan,
  readSystem,
  spreadOf,
  type StepFigures,
  profileLegs,
} from './rounds';

describe('interleavedPlan', () => {
  it('runs every count for both systems each round, alternating which goes first', () => {
    const plan = interleavedPlan([20, 40], 2, ['ours', 'janus']);
    expect(plan.map((s) => `${s.round}:${s.legs}:${s.system}`)).toEqual([
      '1:20:ours',
      '1:20:janus',
      '1:40:janus',
      '1:40:ours',
      '2:20:janus',
      '2:20:ours',
      '2:40:ours',
      '2:40:janus',
    ]);
  });
});

describe('spreadOf', () => {
  it('gives the median, lowest and highest', () => {
    expect(spreadOf([3, 1, 2])).toEqual({ median: 2, min: 1, max: 3, n: 3 });
    expect(spreadOf([4, 1, 2, 3])).toEqual({ median: 2.5, min: 1, max: 4, n: 4 });
    expect(spreadOf([]).n).toBe(0);
  });
});

const step = (legs: number, p99Ms: number, cpu: number, up = legs): StepFigures => ({
  system: 'ours',
  legs,
  up,
  p99Ms,
  serverCpuPercent: cpu,
});

describe('readSystem', () => {
  // Three rounds at 20, 40 and 60 legs.
  const steps = [
    step(20, 3, 20),
    step(20, 4, 22),
    step(20, 12, 18), // one bad round: the count still holds 5 ms in most rounds
    step(40, 4, 40),
    step(40, 6, 44),
    step(40, 7, 36), // holds 10 ms in every round, 5 ms in one
    step(60, 4, 60, 58), // a leg not up: holds nothing
    step(60, 9, 66),
    step(60, 8, 63),
  ];
  const reading = readSystem('ours', steps, [5, 10]);

  it('reads CPU per leg as the median of the rounds with its spread', () => {
    expect(reading.counts.map((c) => c.cpuPerLeg.median)).toEqual([1, 1, 1.05]);
    expect(reading.counts[0]!.cpuPerLeg).toMatchObject({ min: 0.9, max: 1.1 });
  });

  it('counts legs per core as the largest count held in most rounds, smaller counts held too', () => {
    expect(reading.legsPerCore['5']).toEqual({ legs: 20, capped: false });
    // 60 legs held 10 ms in two rounds of three: the largest count of the ladder, so "or more".
    expect(reading.legsPerCore['10']).toEqual({ legs: 60, capped: true });
  });

  it('stops at the first count that does not hold, whatever larger counts did', () => {
    const gap = readSystem('ours', [step(20, 20, 10), step(40, 3, 20)], [5]);
    expect(gap.legsPerCore['5']).toEqual({ legs: 0, capped: false });
  });

  it('compares the two systems count by count', () => {
    const janus = readSystem(
      'janus',
      [20, 40].map((legs) => ({ ...step(legs, 5, legs * 0.8), system: 'janus' as const })),
      [5],
    );
    expect(cpuRatios(reading, janus).map((r) => Number(r.ratio.toFixed(3)))).toEqual([1.25, 1.25]);
  });
});

describe('profileLegs', () => {
  it('profiles at the smallest count where ours used more CPU per leg than Janus', () => {
    const ratios = [
      { legs: 10, ratio: 0.9 },
      { legs: 20, ratio: 1.2 },
      { legs: 40, ratio: 1.1 },
      { legs: 80, ratio: 0.6 },
    ];
    expect(profileLegs(ratios, 40)).toBe(20);
  });

  it('profiles at the fallback when ours used no more anywhere (equal is not more)', () => {
    expect(
      profileLegs(
        [
          { legs: 10, ratio: 1 },
          { legs: 20, ratio: 0.8 },
        ],
        40,
      ),
    ).toBe(40);
    expect(profileLegs([], 40)).toBe(40);
  });
});
