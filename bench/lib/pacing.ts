/**
 * Frame pacing as a client feels it (the engine and capacity benches' load generators), with the definitions of the engine bench (docs/benchmarks.md,
 * media engine section): per leg, the arrival of every PCMU frame from the server, timestamped at
 * the client's socket. *Inter-arrival deviation*: |time between two frames of a leg − 20 ms|;
 * *lateness*: a frame's arrival against its RTP timestamp, relative to the leg's earliest frame.
 */
const FRAME_MS = 20;
const FRAME_SAMPLES = 160;

/** One frame's arrival: when (ms, performance clock) and its RTP timestamp. */
export interface Arrival {
  at: number;
  rtp: number;
}

/** Quantiles of a distribution (ms). */
export interface Spread {
  p50: number;
  p99: number;
  max: number;
}

export interface Pacing {
  /** Legs that received at least two frames in the window. */
  legsReceiving: number;
  frames: number;
  lostFrames: number;
  interArrivalDeviationMs: Spread;
  latenessMs: Spread;
  framesLaterThan60Ms: number;
}

function spread(values: number[]): Spread {
  const sorted = Float64Array.from(values).sort();
  // Nearest rank, as bench/lib/stats.ts `quantile`, on the array sorted once.
  const at = (q: number): number =>
    sorted.length === 0
      ? Number.NaN
      : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  return {
    p50: at(0.5),
    p99: at(0.99),
    max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
  };
}

/** The pacing of every leg's `arrivals` over a window. */
export function pacing(legs: ReadonlyArray<{ arrivals: readonly Arrival[] }>): Pacing {
  const deviations: number[] = [];
  const lateness: number[] = [];
  let frames = 0;
  let expectedFrames = 0;
  let legsReceiving = 0;
  for (const { arrivals } of legs) {
    if (arrivals.length < 2) continue;
    legsReceiving++;
    frames += arrivals.length;
    const first = arrivals[0]!;
    const last = arrivals.at(-1)!;
    expectedFrames += Math.round(((last.rtp - first.rtp) >>> 0) / FRAME_SAMPLES) + 1;
    const delays = arrivals.map((a) => a.at - ((a.rtp - first.rtp) >>> 0) / 8);
    let best = Infinity;
    for (const delay of delays) if (delay < best) best = delay;
    for (let i = 0; i < arrivals.length; i++) {
      lateness.push(delays[i]! - best);
      if (i > 0) deviations.push(Math.abs(arrivals[i]!.at - arrivals[i - 1]!.at - FRAME_MS));
    }
  }
  return {
    legsReceiving,
    frames,
    lostFrames: Math.max(0, expectedFrames - frames),
    interArrivalDeviationMs: spread(deviations),
    latenessMs: spread(lateness),
    framesLaterThan60Ms: lateness.filter((value) => value > 60).length,
  };
}
