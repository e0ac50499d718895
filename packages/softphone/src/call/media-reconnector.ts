/**
 * The media reconnection of an open call (spec section 4): when the media connection fails or
 * no audio arrives for `MEDIA_SILENCE_MS`, ICE restarts follow one another, each after the delay
 * its `ReconnectPolicy` gives, until audio arrives again; the outage is given up when the policy
 * says to stop (null) or `MAX_ICE_RETRY_MS` after the media was lost, whichever comes first.
 *
 * ```
 * media up ──lost (ICE failed, or silent for MEDIA_SILENCE_MS)──▶ reconnecting
 * reconnecting ──policy's delay──▶ ICE restart: offer sent (`reinvite`)
 * ICE restart ──no answer, or no audio MEDIA_SILENCE_MS after it──▶ failed: the next restart
 * reconnecting ──audio arrives (silence < MEDIA_GAP_MS, ICE connected)──▶ media up
 * reconnecting ──policy says null, or MAX_ICE_RETRY_MS passed──▶ given up (the call ends: 31003)
 * ```
 * The outage ends when audio arrives, not when ICE says `connected`: one outage is one
 * `lost` and one `restored`. ICE restarts and stats readings are tagged with attempt ids; the
 * late result of a superseded one is dropped.
 */
import {
  MAX_ICE_RETRY_MS,
  MEDIA_BACKOFF,
  MEDIA_CHECK_INTERVAL_MS,
  MEDIA_GAP_MS,
  MEDIA_SILENCE_MS,
} from '../constants';
import { createError, type SoftphoneError } from '../errors/errors';
import { BackoffReconnectPolicy, type ReconnectPolicy } from '../lib/reconnect-policy';
import type { Clock } from '../platform/platform';
import type { StatsMonitor } from '../quality/stats-monitor';
import type { MediaSession } from './media-session';

/** The media reconnect's default policy: the spec's back-off (min 1, max 30,000 ms, ×1.1, jitter 0.5). */
export const mediaReconnectPolicy = (random: () => number): ReconnectPolicy =>
  new BackoffReconnectPolicy(MEDIA_BACKOFF, random);

/** What the reconnector needs of the call it serves. */
export interface MediaReconnectorHost {
  /** Whether the call is open or reconnecting: only then is its media judged. */
  isLive(): boolean;
  /** Whether an offer can go to the gateway now (the signalling socket is open). */
  canSignal(): boolean;
  /** Sends an ICE restart's offer (`reinvite`). */
  sendOffer(sdp: string): void;
  /** The media is lost (53405): the call becomes `reconnecting`. */
  lost(error: SoftphoneError): void;
  /** Audio arrives again. */
  restored(): void;
  /** The outage is given up: the call ends (31003). */
  gaveUp(): void;
}

/** What a media reconnector is made from. */
export interface MediaReconnectorOptions {
  clock: Clock;
  media: Pick<MediaSession, 'isConnected' | 'restartIce' | 'rollback'>;
  monitor: Pick<StatsMonitor, 'measureSilenceMs'>;
  policy: ReconnectPolicy;
  host: MediaReconnectorHost;
}

/** The reconnector's timers. */
type TimerName = 'restart' | 'giveUp' | 'check';

/** The media reconnection of one call. */
export class MediaReconnector {
  readonly #o: MediaReconnectorOptions;
  /** The outage under way (null: the media is up). */
  #outage: { lostAtMs: number; retryCount: number } | null = null;
  readonly #timers: Record<TimerName, unknown> = { restart: null, giveUp: null, check: null };
  /** ICE restarts are tagged; a late result of a superseded one is dropped. */
  #restartAttempt = 0;
  /** Media checks are tagged too (a check outlived by the call or a newer one is dropped). */
  #checkAttempt = 0;

  constructor(options: MediaReconnectorOptions) {
    this.#o = options;
  }

  /** Whether the media is lost and being restored. */
  get isReconnecting(): boolean {
    return this.#outage !== null;
  }

  /**
   * Acts on how long no audio has arrived: a media reconnect once it is `MEDIA_SILENCE_MS`, a
   * closer look when audio is missing, the end of a media reconnect once audio flows again.
   */
  judge(silenceMs: number): void {
    if (!this.#o.host.isLive()) return;
    if (this.#outage) {
      if (silenceMs < MEDIA_GAP_MS && this.#o.media.isConnected) this.#restored();
      else this.#scheduleCheck(MEDIA_CHECK_INTERVAL_MS);
    } else if (silenceMs >= MEDIA_SILENCE_MS) {
      this.#start();
    } else if (silenceMs >= MEDIA_GAP_MS) {
      this.#scheduleCheck(MEDIA_SILENCE_MS - silenceMs);
    }
  }

  /**
   * The media connection failed (or an ICE restart did): during an outage, the next restart
   * (or giving up); otherwise an outage starts. The caller knows the call is live.
   */
  failed(): void {
    const outage = this.#outage;
    if (!outage) return this.#start();
    const elapsedMs = this.#o.clock.now() - outage.lostAtMs;
    if (elapsedMs >= MAX_ICE_RETRY_MS) this.#giveUp();
    else this.#retry();
  }

  /**
   * ICE says `connected` during the outage: that may be so while no audio flows yet (the far end
   * of the restart can still be down), so the stats are read at once.
   */
  iceConnected(): void {
    if (this.#outage) this.#scheduleCheck(0);
  }

  /**
   * The answer to an ICE restart was applied. The connection may still say `connected` from
   * before the outage: the media is back when audio arrives again, not when the answer does. A
   * restart that brings no audio back within `MEDIA_SILENCE_MS` has failed, and another follows.
   */
  answered(): void {
    this.#scheduleCheck(0);
    this.#setTimer('restart', () => this.failed(), MEDIA_SILENCE_MS);
  }

  /** The signalling socket is back: a restart that waited for it goes now. */
  signallingBack(): void {
    if (this.#outage) void this.#restartIce();
  }

  /** The call closed: its timers stop and the results of attempts under way are dropped. */
  stop(): void {
    for (const name of Object.keys(this.#timers) as TimerName[]) this.#clearTimer(name);
    this.#restartAttempt += 1;
    this.#checkAttempt += 1;
  }

  #start(): void {
    if (this.#outage || !this.#o.host.isLive()) return;
    this.#outage = { lostAtMs: this.#o.clock.now(), retryCount: 0 };
    this.#o.host.lost(createError(53405, 'Media connection failed.'));
    this.#setTimer('giveUp', () => this.#giveUp(), MAX_ICE_RETRY_MS);
    if (this.#retry()) this.#scheduleCheck(MEDIA_CHECK_INTERVAL_MS);
  }

  /** Schedules the next ICE restart after the policy's delay; gives up if it says stop. */
  #retry(): boolean {
    const outage = this.#outage;
    if (!outage) return false;
    const delayMs = this.#o.policy.nextRetryDelayInMs({
      retryCount: outage.retryCount,
      elapsedMs: this.#o.clock.now() - outage.lostAtMs,
    });
    if (delayMs === null) {
      this.#giveUp();
      return false;
    }
    outage.retryCount += 1;
    this.#setTimer('restart', () => void this.#restartIce(), delayMs);
    return true;
  }

  /** One ICE restart: a new offer sent as `reinvite`; its answer arrives as `answer`. */
  async #restartIce(): Promise<void> {
    const attempt = ++this.#restartAttempt;
    const { media, host } = this.#o;
    // Without signalling the offer cannot go; the restart resumes when the socket is back.
    if (!host.canSignal()) return;
    // Audio may have come back since this restart was scheduled: then none is needed.
    const silenceMs = await this.#o.monitor.measureSilenceMs();
    if (attempt !== this.#restartAttempt || !this.#outage) return;
    if (silenceMs !== null && silenceMs < MEDIA_GAP_MS && media.isConnected) {
      return this.#restored();
    }
    let sdp: string;
    try {
      sdp = await media.restartIce();
    } catch {
      if (attempt === this.#restartAttempt) this.failed();
      return;
    }
    if (attempt !== this.#restartAttempt || !this.#outage) {
      // Superseded: the offer never goes out, so it must not wait for an answer either.
      return media.rollback();
    }
    host.sendOffer(sdp);
    // An answer that never comes fails the attempt like one that brings no audio.
    this.#setTimer('restart', () => this.failed(), MEDIA_SILENCE_MS);
  }

  /** Reads the stats again in `delayMs` and judges the media by them. */
  #scheduleCheck(delayMs: number): void {
    const attempt = ++this.#checkAttempt;
    this.#setTimer(
      'check',
      () => {
        this.#timers.check = null;
        void this.#o.monitor.measureSilenceMs().then((silenceMs) => {
          if (attempt === this.#checkAttempt && silenceMs !== null) this.judge(silenceMs);
        });
      },
      delayMs,
    );
  }

  #restored(): void {
    this.#restartAttempt += 1;
    this.#clearTimer('restart');
    this.#clearTimer('giveUp');
    this.#clearTimer('check');
    this.#checkAttempt += 1;
    this.#outage = null;
    this.#o.host.restored();
  }

  #giveUp(): void {
    if (this.#outage) this.#o.host.gaveUp();
  }

  /** Runs `run` in `delayMs` on the timer `name`, replacing what that timer held. */
  #setTimer(name: TimerName, run: () => void, delayMs: number): void {
    this.#clearTimer(name);
    this.#timers[name] = this.#o.clock.setTimeout(run, delayMs);
  }

  #clearTimer(name: TimerName): void {
    this.#o.clock.clearTimeout(this.#timers[name]);
    this.#timers[name] = null;
  }
}
