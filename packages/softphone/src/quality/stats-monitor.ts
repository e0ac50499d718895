/**
 * The call quality monitor (spec section 9): samples `getStats()` every 1,000 ms, turns the
 * counters into per-second samples (bytes, packets, loss %, jitter, rtt, MOS), and raises and
 * clears the threshold warnings of `QUALITY_RULES`. Warnings are enabled 5,000 ms after start
 * (the first seconds of a call are choppy); a raised warning clears only once its stat has been
 * back within the threshold for 5,000 ms.
 */
import { TypedEmitter } from '@leadline/contracts/lib';
import {
  QUALITY_RULES,
  STATS_INTERVAL_MS,
  WARNING_CLEAR_MS,
  WARNINGS_DELAY_MS,
} from '../constants';
import type { Clock } from '../platform/platform';
import { computeMos } from './mos';
import { readRtcStats, type RtcStats } from './rtc-stats';

/** One per-second sample of a call's quality. */
export interface CallSample {
  timestamp: number;
  bytesSent: number;
  bytesReceived: number;
  packetsSent: number;
  packetsReceived: number;
  packetsLost: number;
  /** Packets lost in this sample, as a percentage of the inbound packets. */
  packetsLostFraction: number;
  /** ms */
  jitter: number;
  /** ms, when known */
  rtt: number | null;
  /** 1..4.5; null on the first sample or without rtt */
  mos: number | null;
  codecName: string | null;
  /** Average input and output volume (0..1) over the sample. */
  audioInputLevel: number;
  audioOutputLevel: number;
  /** Counters since the call started. */
  totals: Pick<
    RtcStats,
    'bytesSent' | 'bytesReceived' | 'packetsSent' | 'packetsReceived' | 'packetsLost'
  >;
}

/** The name of a call quality warning. */
export type QualityWarningName = (typeof QUALITY_RULES)[number]['warning'];

/** A raised or cleared warning, with the values that decided it. */
export interface QualityWarning {
  name: QualityWarningName;
  /** The threshold crossed: its kind (`max`, `min`, `maxAverage`) and value. */
  threshold: { name: 'max' | 'min' | 'maxAverage'; value: number };
  values: number[];
}

/** Events of the monitor. */
export type StatsMonitorEvents = {
  sample: [sample: CallSample];
  warning: [warning: QualityWarning];
  'warning-cleared': [warning: QualityWarning];
};

type Rule = {
  warning: QualityWarningName;
  stat: 'jitter' | 'rtt' | 'mos' | 'packetsLostFraction' | 'bytesReceived' | 'bytesSent';
  max?: number;
  min?: number;
  maxAverage?: number;
  clearValue?: number;
  sampleCount?: number;
  raiseCount?: number;
  clearCount?: number;
};

const DEFAULT_SAMPLE_COUNT = 10;
const DEFAULT_RAISE_COUNT = 3;

/** The monitor of one call. */
export class StatsMonitor extends TypedEmitter<StatsMonitorEvents> {
  readonly #samples: CallSample[] = [];
  /** Raised warnings, with since when their latest samples are within the threshold. */
  readonly #active = new Map<QualityWarningName, { goodSince: number | null }>();
  #previous: RtcStats | null = null;
  #volumes: Array<[number, number]> = [];
  #interval: unknown = null;
  #enableTimer: unknown = null;
  #warningsEnabled = false;
  #pending = false;
  #lastReceivedAt = 0;
  /** The inbound byte count of the latest reading. */
  #bytesReceived = 0;

  constructor(
    private readonly getStats: () => Promise<RTCStatsReport>,
    private readonly clock: Clock,
  ) {
    super();
  }

  /** Starts sampling (warnings follow after 5,000 ms). */
  start(): void {
    if (this.#interval !== null) return;
    this.#lastReceivedAt = this.clock.now();
    this.#enableTimer = this.clock.setTimeout(
      () => (this.#warningsEnabled = true),
      WARNINGS_DELAY_MS,
    );
    this.#interval = this.clock.setInterval(() => void this.#fetch(), STATS_INTERVAL_MS);
  }

  /** Stops sampling. */
  stop(): void {
    this.clock.clearInterval(this.#interval);
    this.clock.clearTimeout(this.#enableTimer);
    this.#interval = this.#enableTimer = null;
  }

  /** Adds one volume reading (0..1) to the current sample's averages. */
  addVolumes(input: number, output: number): void {
    this.#volumes.push([input, output]);
  }

  /** Whether warnings are enabled: from 5,000 ms after `start` on (spec section 9). */
  get warningsEnabled(): boolean {
    return this.#warningsEnabled;
  }

  /** Whether a warning is raised now. */
  hasActiveWarning(name: QualityWarningName): boolean {
    return this.#active.has(name);
  }

  /**
   * How long no audio has arrived (ms): to the packet when the browser reports packet times,
   * else to the sample (or `measureSilenceMs` reading) that last saw bytes arrive.
   */
  get silenceMs(): number {
    return Math.max(0, this.clock.now() - this.#lastReceivedAt);
  }

  /**
   * Reads the stats now, outside the sampling cadence (no sample is emitted), and returns
   * `silenceMs` as of this reading; null when the stats cannot be read (a closed connection).
   */
  async measureSilenceMs(): Promise<number | null> {
    let stats: RtcStats;
    try {
      stats = readRtcStats(await this.getStats());
    } catch {
      return null;
    }
    this.#noteReceived(stats);
    return this.silenceMs;
  }

  /** Moves the time audio last arrived by a reading of the counters. */
  #noteReceived(stats: RtcStats): void {
    const { lastPacketReceivedAt, timestamp, bytesReceived } = stats;
    if (lastPacketReceivedAt !== null && timestamp > 0) {
      // The report's clock may not be ours: only the age of the last packet is used.
      const ageMs = Math.max(0, timestamp - lastPacketReceivedAt);
      this.#lastReceivedAt = Math.max(this.#lastReceivedAt, this.clock.now() - ageMs);
    } else if (bytesReceived > this.#bytesReceived) {
      this.#lastReceivedAt = this.clock.now();
    }
    this.#bytesReceived = Math.max(this.#bytesReceived, bytesReceived);
  }

  async #fetch(): Promise<void> {
    if (this.#pending) return;
    this.#pending = true;
    let report: RTCStatsReport;
    try {
      report = await this.getStats();
    } catch {
      return; // a closed connection; the call stops the monitor
    } finally {
      this.#pending = false;
    }
    if (this.#interval !== null) this.addStats(readRtcStats(report));
  }

  /** Adds one reading of the counters (the sampling timer calls this; tests may too). */
  addStats(stats: RtcStats): void {
    const prev = this.#previous;
    this.#previous = stats;
    const delta = (key: keyof CallSample['totals']) => stats[key] - (prev ? prev[key] : 0);
    const lost = delta('packetsLost');
    const inbound = delta('packetsReceived') + lost;
    const lossPercent = inbound > 0 ? (lost / inbound) * 100 : 0;
    const volumes = this.#volumes.splice(0);
    const average = (i: 0 | 1) =>
      volumes.length ? volumes.reduce((sum, v) => sum + v[i], 0) / volumes.length : 0;
    const sample: CallSample = {
      timestamp: stats.timestamp,
      bytesSent: delta('bytesSent'),
      bytesReceived: delta('bytesReceived'),
      packetsSent: delta('packetsSent'),
      packetsReceived: delta('packetsReceived'),
      packetsLost: lost,
      packetsLostFraction: lossPercent,
      jitter: stats.jitter,
      rtt: stats.rtt ?? this.#samples.at(-1)?.rtt ?? null,
      mos: null,
      codecName: stats.codecName,
      audioInputLevel: average(0),
      audioOutputLevel: average(1),
      totals: {
        bytesSent: stats.bytesSent,
        bytesReceived: stats.bytesReceived,
        packetsSent: stats.packetsSent,
        packetsReceived: stats.packetsReceived,
        packetsLost: stats.packetsLost,
      },
    };
    sample.mos = prev ? computeMos(sample.rtt, sample.jitter, lossPercent) : null;
    this.#noteReceived(stats);
    this.#samples.push(sample);
    if (this.#samples.length > DEFAULT_SAMPLE_COUNT) this.#samples.shift();
    if (this.#warningsEnabled) for (const rule of QUALITY_RULES) this.#check(rule);
    this.emit('sample', sample);
  }

  #check(rule: Rule): void {
    const values = this.#samples
      .slice(-(rule.sampleCount ?? DEFAULT_SAMPLE_COUNT))
      .map((s) => s[rule.stat]);
    if (values.some((v) => v === null)) return;
    const numbers = values as number[];
    let raise: boolean;
    let clear: boolean;
    let latestGood: boolean;
    let threshold: QualityWarning['threshold'];
    if (rule.maxAverage !== undefined) {
      threshold = { name: 'maxAverage', value: rule.maxAverage };
      if (numbers.length < rule.sampleCount!) return;
      const average = numbers.reduce((a, b) => a + b, 0) / numbers.length;
      raise = average > rule.maxAverage;
      clear = latestGood = average <= (rule.clearValue ?? rule.maxAverage);
    } else {
      const { max, min } = rule;
      threshold = max === undefined ? { name: 'min', value: min! } : { name: 'max', value: max };
      const crosses = (v: number) => (max === undefined ? v < min! : v > max);
      const crossing = numbers.filter(crosses).length;
      raise = crossing >= (rule.raiseCount ?? DEFAULT_RAISE_COUNT);
      clear = crossing <= (rule.clearCount ?? 0);
      latestGood = !crosses(numbers.at(-1)!);
    }
    const warning: QualityWarning = { name: rule.warning, threshold, values: numbers };
    const active = this.#active.get(rule.warning);
    if (!active) {
      if (!raise) return;
      this.#active.set(rule.warning, { goodSince: null });
      this.emit('warning', warning);
      return;
    }
    const now = this.clock.now();
    active.goodSince = latestGood ? (active.goodSince ?? now) : null;
    if (clear && active.goodSince !== null && now - active.goodSince >= WARNING_CLEAR_MS) {
      this.#active.delete(rule.warning);
      this.emit('warning-cleared', warning);
    }
  }
}
