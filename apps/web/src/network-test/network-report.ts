/**
 * The network test's report (issue 17): the quality samples of the test call, from the SDK's
 * own quality monitor, summed up into a grade and the three figures an agent can act on.
 */
import type { PhoneCallSample } from '../phone/phone-port';
import { gradeOf, type NetworkGrade } from './network-grade';

/** What the network test found. */
export interface NetworkReport {
  /** The grade of the average MOS. */
  readonly grade: NetworkGrade;
  /** The MOS over the test: the average the grade is of, and the lowest second. */
  readonly mos: { readonly average: number; readonly min: number };
  /** Average inbound jitter (ms). */
  readonly jitterMs: number;
  /** Inbound packets lost over the whole test, as a percentage of those sent to the browser. */
  readonly packetLossPercent: number;
  /** Average round-trip time (ms); null when the browser measured none. */
  readonly rttMs: number | null;
  /** How many samples it is made of (about one a second). */
  readonly samples: number;
}

const average = (values: readonly number[]): number =>
  values.reduce((sum, value) => sum + value, 0) / values.length;

/**
 * The report of the samples of a test call, or null when none had a MOS (a first sample never
 * has one: it has no second before it to compare with) or no audio arrived at all (a MOS of no
 * packets, none lost, would look perfect). Jitter and round-trip time are averaged
 * over the samples that have them; packet loss is the packets lost over all those that should
 * have arrived.
 */
export function summarizeSamples(samples: readonly PhoneCallSample[]): NetworkReport | null {
  const scored = samples.filter(
    (sample): sample is PhoneCallSample & { mos: number } =>
      typeof sample.mos === 'number' && Number.isFinite(sample.mos),
  );
  const received = samples.reduce((sum, sample) => sum + Math.max(0, sample.packetsReceived), 0);
  if (scored.length === 0 || received === 0) return null;
  const mos = scored.map((sample) => sample.mos);
  const rtts = samples
    .map((sample) => sample.rtt)
    .filter((rtt): rtt is number => typeof rtt === 'number' && Number.isFinite(rtt));
  const lost = samples.reduce((sum, sample) => sum + Math.max(0, sample.packetsLost), 0);
  const averageMos = average(mos);
  return {
    grade: gradeOf(averageMos),
    mos: { average: averageMos, min: Math.min(...mos) },
    jitterMs: average(samples.map((sample) => sample.jitter)),
    packetLossPercent: (lost / (lost + received)) * 100,
    rttMs: rtts.length > 0 ? average(rtts) : null,
    samples: samples.length,
  };
}
