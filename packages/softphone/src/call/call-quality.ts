/**
 * What an open call reports of its quality (spec section 9): the stats monitor's samples and
 * warnings, the input and output levels every `VOLUME_INTERVAL_MS`, the call's own warnings
 * (`ice-connectivity-lost`, `constant-audio-input-level`), the codec in use, and the samples
 * handed to the publisher in batches of `SAMPLES_BATCH_SIZE` (the rest when the call ends).
 */
import {
  SAMPLES_BATCH_SIZE,
  VOLUME_INTERVAL_MS,
  VOLUME_WARNING_STREAK,
  WARNING_CLEAR_MS,
} from '../constants';
import type { Clock } from '../platform/platform';
import type {
  CallSample,
  QualityWarning,
  QualityWarningName,
  StatsMonitor,
} from '../quality/stats-monitor';
import type { MediaSession } from './media-session';

/** The name of a `warning` / `warning-cleared` event. */
export type CallWarningName =
  QualityWarningName | 'ice-connectivity-lost' | 'constant-audio-input-level';

/** The call's events this reports, with their arguments (as `CallEvents` has them). */
export type CallQualityEvents = {
  volume: [inputVolume: number, outputVolume: number];
  warning: [name: CallWarningName, data: QualityWarning | null];
  'warning-cleared': [name: CallWarningName];
  sample: [sample: CallSample];
};

/** What a call's quality reporting is made from. */
export interface CallQualityOptions {
  clock: Clock;
  media: Pick<MediaSession, 'readVolumes'>;
  monitor: StatsMonitor;
  /** Whether the microphone is muted now. */
  isMuted(): boolean;
  /** Hands a batch of samples (never empty) to the publisher. */
  publish(samples: CallSample[]): void;
  /** Emits one of the call's events. */
  emit<K extends keyof CallQualityEvents>(event: K, ...args: CallQualityEvents[K]): void;
}

/** The quality reporting of one call. */
export class CallQuality {
  readonly #o: CallQualityOptions;
  /** Call-level warnings raised now. */
  readonly #warnings = new Set<CallWarningName>();
  readonly #batch: CallSample[] = [];
  #codec: string | null = null;
  #volumeTimer: unknown = null;
  #lastInput = -1;
  #inputStreak = 0;
  /** While `constant-audio-input-level` stands: since when the readings change (or null). */
  #inputVariedSince: number | null = null;

  constructor(options: CallQualityOptions) {
    this.#o = options;
    options.monitor.on('warning', (w) => options.emit('warning', w.name, w));
    options.monitor.on('warning-cleared', (w) => options.emit('warning-cleared', w.name));
  }

  /** The codec in use, once a sample told. */
  get codec(): string | null {
    return this.#codec;
  }

  /** The call opened: sampling and the levels start. */
  start(): void {
    const { monitor, media, clock } = this.#o;
    monitor.start();
    this.#volumeTimer = clock.setInterval(() => {
      const [input, output] = media.readVolumes();
      monitor.addVolumes(input, output);
      this.#checkInputLevel(input);
      this.#o.emit('volume', input, output);
    }, VOLUME_INTERVAL_MS);
  }

  /** A sample of the monitor: noted, batched for the publisher, and emitted. */
  sampled(sample: CallSample): void {
    this.#codec = sample.codecName ?? this.#codec;
    this.#batch.push(sample);
    if (this.#batch.length >= SAMPLES_BATCH_SIZE) this.#publish();
    this.#o.emit('sample', sample);
  }

  /** Raises or clears a call-level warning (each change emitted once). */
  warn(name: CallWarningName, raised: boolean): void {
    if (raised === this.#warnings.has(name)) return;
    if (raised) {
      this.#warnings.add(name);
      this.#o.emit('warning', name, null);
    } else {
      this.#warnings.delete(name);
      this.#o.emit('warning-cleared', name);
    }
  }

  /** The call closed: sampling stops and the samples not yet published go. */
  stop(): void {
    this.#o.clock.clearInterval(this.#volumeTimer);
    this.#volumeTimer = null;
    this.#o.monitor.stop();
    this.#publish();
  }

  /**
   * `constant-audio-input-level`: the microphone reads the same level 10 times running (a
   * silent or stuck input; a live one, even a steady tone, never reads exactly the same). As the
   * other warnings (spec section 9): raised only from 5,000 ms into the call (a microphone may
   * start silent), and cleared once the readings have changed for 5,000 ms, so a microphone
   * that goes silent between words does not flicker it. Not while muted: muting clears it.
   */
  #checkInputLevel(input: number): void {
    const name = 'constant-audio-input-level';
    this.#inputStreak = input === this.#lastInput ? this.#inputStreak + 1 : 0;
    this.#lastInput = input;
    if (this.#o.isMuted()) {
      this.#inputVariedSince = null;
      this.warn(name, false);
    } else if (this.#inputStreak >= VOLUME_WARNING_STREAK) {
      this.#inputVariedSince = null;
      if (this.#o.monitor.warningsEnabled) this.warn(name, true);
    } else if (this.#warnings.has(name)) {
      const now = this.#o.clock.now();
      this.#inputVariedSince ??= now;
      if (now - this.#inputVariedSince >= WARNING_CLEAR_MS) {
        this.#inputVariedSince = null;
        this.warn(name, false);
      }
    }
  }

  #publish(): void {
    const samples = this.#batch.splice(0);
    if (samples.length) this.#o.publish(samples);
  }
}
