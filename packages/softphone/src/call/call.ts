/**
 * A call on the softphone, with the official Voice SDK's public surface: `accept`, `reject`,
 * `ignore`, `disconnect`, `mute`, `isMuted`, `status`, `sendDigits`, `sendMessage`,
 * `postFeedback`, `parameters`, `direction`, `connectToken`, and its events.
 *
 * A call that is open reconnects what it loses (spec section 4): its media by ICE restarts
 * (its `MediaReconnector`) spaced by the `reconnectPolicy` (default: the back-off min 1, max
 * 30,000 ms, factor 1.1, jitter 0.5; it gives up after 30,000 ms), when the connection fails
 * or no audio arrives for 2,000 ms; its signalling by re-attaching to the
 * gateway with the reconnect token when the socket comes back. Meanwhile it is `reconnecting`.
 * A media outage ends when audio arrives again (not when ICE says `connected`), and an ICE
 * restart that brings no audio within 2,000 ms is followed by another: one outage is one
 * `reconnecting` and one `reconnected`.
 *
 * Its media errors are the spec's (section 8): a 31000 UnknownError for an offer or answer that
 * fails ('Error creating the offer', 'Error processing answer', …) and for signalling lost
 * before the call opened ('Cannot establish connection. Client is disconnected'); a 31003 when
 * the media connection is lost for good (ICE failed before the call opened, or not restored
 * within 30,000 ms). `reconnecting` says what was lost as the official SDK does: 53405 for the
 * media, 53001 for the signalling (which ends the call with 53001 if it stays away).
 */
import type { GatewayPayload } from '@leadline/contracts/signalling';
import { StateMachine, TypedEmitter } from '@leadline/contracts/lib';
import { CALL_SIGNALING_TIMEOUT_MS } from '../constants';
import { createError, gatewayError, type SoftphoneError } from '../errors/errors';
import type { ReconnectPolicy } from '../lib/reconnect-policy';
import type { Platform } from '../platform/platform';
import type { PStreamClient } from '../signalling/pstream-client';
import { encodeConnectToken } from '../signalling/connect-token';
import { dtmfSound, type SoundName } from '../audio/sounds';
import { StatsMonitor, type CallSample, type QualityWarning } from '../quality/stats-monitor';
import { CallMessages, type CallMessage } from './call-messages';
import { CallQuality, type CallWarningName } from './call-quality';
import { CALL_TABLE, CallState, type CallTransition } from './call-states';
import { checkDigits, DtmfQueue } from './dtmf';
import { checkFeedback, FeedbackIssue, FeedbackScore, type CallFeedback } from './feedback';
import { MediaReconnector, mediaReconnectPolicy } from './media-reconnector';
import { MediaSession } from './media-session';

export { CallState, FeedbackIssue, FeedbackScore, type CallMessage, type CallWarningName };

/** Incoming or outgoing. */
export const CallDirection = { Incoming: 'INCOMING', Outgoing: 'OUTGOING' } as const;
export type CallDirection = (typeof CallDirection)[keyof typeof CallDirection];

/** Codecs of `DeviceOptions.codecPreferences`. */
export const Codec = { Opus: 'opus', PCMU: 'pcmu' } as const;
export type Codec = (typeof Codec)[keyof typeof Codec];

/** Where a call's quality samples and feedback go (the console may post them to its server). */
export interface CallPublisher {
  /** A batch of quality samples: every 10 samples, and the rest when the call ends. */
  postMetrics(samples: CallSample[], call: Call): void | Promise<void>;
  /** Feedback given with `postFeedback`. */
  postFeedback(feedback: CallFeedback, call: Call): void | Promise<void>;
}

/** Events of a call and their arguments. */
export type CallEvents = {
  /** The call is open: audio flows both ways. */
  accept: [call: Call];
  /** The call ended (either side hung up, or it failed). */
  disconnect: [call: Call];
  /** The caller gave up before the incoming call was answered. */
  cancel: [];
  /** The incoming call was rejected here. */
  reject: [];
  /** Something failed; the call may have ended. */
  error: [error: SoftphoneError];
  /** Mute changed. */
  mute: [isMuted: boolean, call: Call];
  /** An outgoing call rings at the far end (`hasEarlyMedia`: ringback is audible). */
  ringing: [hasEarlyMedia: boolean];
  /** Input and output levels, 0..1, every 50 ms while the call is open. */
  volume: [inputVolume: number, outputVolume: number];
  /** Media or signalling connection lost; trying to restore it. */
  reconnecting: [error: SoftphoneError];
  /** Media and signalling restored. */
  reconnected: [];
  /** A call quality warning was raised (`data`: the threshold and values, for stats warnings). */
  warning: [name: CallWarningName, data: QualityWarning | null];
  /** A call quality warning cleared. */
  'warning-cleared': [name: CallWarningName];
  /** A message arrived from the gateway. */
  messageReceived: [message: CallMessage];
  /** The gateway acknowledged a message of `sendMessage`. */
  messageSent: [message: CallMessage];
  /** A call quality sample (every 1,000 ms while open). */
  sample: [sample: CallSample];
};

/** What a call is made from (by the Device). */
export interface CallOptions {
  direction: CallDirection;
  platform: Platform;
  stream: PStreamClient;
  rtcConfiguration: RTCConfiguration;
  /** Incoming: the invite's parameters (`CallSid`, `From`, `To`, …); reconnect: the token's. */
  parameters?: Record<string, string>;
  /** Outgoing: the connect params. */
  customParameters?: Record<string, string>;
  /** Incoming: the gateway's offer. */
  offerSdp?: string;
  /** Outgoing: the temporary id used until the gateway names the call. */
  outboundConnectionId?: string;
  /** The gateway's reconnect token (incoming invite, or a connect token). */
  reconnectToken?: string;
  codecPreferences?: readonly string[];
  enableImprovedSignalingErrorPrecision?: boolean;
  maxCallSignalingTimeoutMs?: number;
  /** The microphone chosen on the device, if any (else the default one). */
  getInputStream?: () => MediaStream | null;
  /** The speaker device the call's audio plays on. */
  sinkId?: string;
  publisher?: CallPublisher;
  /** Called when `accept()` is taking effect (the Device makes the call its active one). */
  beforeAccept?: () => void;
  /** Plays a device sound (DTMF feedback). */
  playSound?: (name: SoundName) => void;
  /** Called once when the call reaches `closed`, whichever way (the Device frees its slot). */
  onClosed?: () => void;
  /**
   * The delays between the ICE restarts of a media reconnect, and when to stop (default: the
   * spec's back-off, min 1, max 30,000 ms, factor 1.1, jitter 0.5). However long the policy
   * would go on, the call gives up `MAX_ICE_RETRY_MS` after the media was lost.
   */
  reconnectPolicy?: ReconnectPolicy;
}

/** Why a call whose media connection is lost for good ends (31003; spec section 8). */
const MEDIA_INTERRUPTED = 'Media connection was interrupted.';

/** What a call may lose while open. */
type Connection = 'media' | 'signalling';

/** A call. */
export class Call extends TypedEmitter<CallEvents> {
  /** The call's states. */
  static readonly State = CallState;
  /** Incoming or outgoing. */
  static readonly CallDirection = CallDirection;
  /** Feedback scores. */
  static readonly FeedbackScore = FeedbackScore;
  /** Feedback issues. */
  static readonly FeedbackIssue = FeedbackIssue;
  /** Codecs. */
  static readonly Codec = Codec;

  readonly direction: CallDirection;
  /** Incoming: the invite's parameters; outgoing: `CallSid` once the gateway named the call. */
  readonly parameters: Record<string, string>;
  /** Outgoing: the connect params. */
  readonly customParameters: Map<string, string>;
  /** Outgoing: the temporary call id. */
  readonly outboundConnectionId: string | null;

  readonly #o: CallOptions;
  readonly #machine: StateMachine<CallState, CallTransition>;
  readonly #media: MediaSession;
  readonly #monitor: StatsMonitor;
  readonly #quality: CallQuality;
  readonly #dtmf: DtmfQueue;
  readonly #reconnector: MediaReconnector;
  readonly #unsubscribe: Array<() => void> = [];
  /** What is lost while `reconnecting`. */
  readonly #down = new Set<Connection>();
  readonly #messages: CallMessages;
  #reconnectToken: string | null;
  /** Outgoing: the gateway said the far end answered. */
  #answered = false;
  /** While the signalling is lost: the end of the wait for it. */
  #signallingTimer: unknown = null;

  /** @internal Made by the Device. */
  constructor(options: CallOptions) {
    super();
    this.#o = options;
    this.direction = options.direction;
    this.outboundConnectionId = options.outboundConnectionId ?? null;
    this.#reconnectToken = options.reconnectToken ?? null;
    this.parameters = { ...options.parameters };
    this.customParameters = new Map(Object.entries(options.customParameters ?? {}));
    const incoming = options.direction === CallDirection.Incoming;
    this.#machine = new StateMachine('call', CALL_TABLE, incoming ? 'pending' : 'connecting');
    const { platform } = options;
    this.#media = new MediaSession(platform, options.rtcConfiguration, options.codecPreferences);
    if (options.sinkId && options.sinkId !== 'default') {
      void this.#media.setOutputDevice(options.sinkId).catch(() => undefined);
    }
    this.#media.on('connected', () => this.#onMediaConnected());
    this.#media.on('disconnected', () => this.#quality.warn('ice-connectivity-lost', true));
    this.#media.on('failed', () => this.#onMediaFailed());
    this.#monitor = new StatsMonitor(() => this.#media.getStats(), platform.clock);
    this.#monitor.on('sample', (sample) => {
      this.#quality.sampled(sample);
      this.#reconnector.judge(this.#monitor.silenceMs);
    });
    this.#quality = new CallQuality({
      clock: platform.clock,
      media: this.#media,
      monitor: this.#monitor,
      isMuted: () => this.#media.isMuted,
      publish: (samples) => this.#publishSamples(samples),
      emit: this.emit.bind(this),
    });
    this.#reconnector = new MediaReconnector({
      clock: platform.clock,
      media: this.#media,
      monitor: this.#monitor,
      policy: options.reconnectPolicy ?? mediaReconnectPolicy(() => platform.random()),
      host: {
        isLive: () => this.status() === 'open' || this.status() === 'reconnecting',
        canSignal: () => this.#o.stream.isOpen,
        sendOffer: (sdp) => this.#send('reinvite', { callsid: this.#callSid(), sdp }, false),
        lost: (error) => this.#interrupt('media', error),
        restored: () => this.#restore('media'),
        gaveUp: () => this.#fail(createError(31003, MEDIA_INTERRUPTED), MEDIA_INTERRUPTED),
      },
    });
    this.#messages = new CallMessages({
      stream: options.stream,
      random: () => platform.random(),
      callSid: () => this.parameters.CallSid,
      mine: (callsid) => this.#mine(callsid),
      received: (message) => this.emit('messageReceived', message),
      sent: (message) => this.emit('messageSent', message),
    });
    this.#dtmf = new DtmfQueue(platform.clock, (digit) => this.#o.playSound?.(dtmfSound(digit)));
    this.#listen();
  }

  /** The current state. */
  status(): CallState {
    return this.#machine.state;
  }

  /** Whether the microphone is muted. */
  isMuted(): boolean {
    return this.#media.isMuted;
  }

  /** The codec in use (`pcmu`, `opus`), once the first quality sample told. */
  get codec(): string {
    return this.#quality.codec ?? '';
  }

  /**
   * A token that lets a device take this call over (`device.connect({ connectToken })`), for
   * example after a page reload; available once the gateway gave a reconnect token.
   */
  get connectToken(): string | undefined {
    const callSid = this.parameters.CallSid;
    if (!this.#reconnectToken || !callSid) return undefined;
    return encodeConnectToken({
      customParameters: Object.fromEntries(this.customParameters),
      parameters: this.parameters as { CallSid: string },
      signalingReconnectToken: this.#reconnectToken,
    });
  }

  /** The far end's audio, once it arrived. */
  getRemoteStream(): MediaStream | undefined {
    return this.#media.remoteStream ?? undefined;
  }

  /** The microphone's stream, once open. */
  getLocalStream(): MediaStream | undefined {
    return this.#media.localStream ?? undefined;
  }

  /** Answers an incoming call (a no-op unless pending). */
  accept(): void {
    if (this.direction !== CallDirection.Incoming || !this.#machine.trySend('accept')) return;
    this.#o.beforeAccept?.();
    void this.#answer();
  }

  /** Refuses an incoming call (only while pending); the gateway is told. */
  reject(): void {
    if (!this.#machine.can('reject')) return;
    this.#send('reject', { callsid: this.#callSid() });
    this.#close('reject');
    this.emit('reject');
  }

  /** Stops ringing here without telling the gateway (only while pending). */
  ignore(): void {
    if (this.#machine.can('ignore')) this.#close('ignore');
  }

  /** Hangs up (from open, connecting, reconnecting or ringing). */
  disconnect(): void {
    this.#hangUp('disconnect');
  }

  /** Mutes (default) or unmutes the microphone. */
  mute(shouldMute = true): void {
    if (this.#media.isMuted === shouldMute) return;
    this.#media.setMuted(shouldMute);
    this.emit('mute', shouldMute, this);
  }

  /**
   * Sends DTMF digits (0-9, `*`, `#`, `w` for a 500 ms pause) as RFC 4733 events: 160 ms tones
   * at least 200 ms apart, paced by the browser; over signalling when the browser cannot send
   * them. While the signalling channel is down it sends nothing and emits a 31005
   * ConnectionError 'Could not send DTMF: Signaling channel is disconnected' (spec section 8),
   * even where the browser could send RFC 4733: the call is reconnecting then and its media may
   * be gone too, so tones would be lost unseen (the official SDK sends them over media anyway;
   * docs/signalling.md).
   */
  sendDigits(digits: string): void {
    checkDigits(digits);
    if (!this.#o.stream.isOpen) {
      this.emit(
        'error',
        createError(31005, 'Could not send DTMF: Signaling channel is disconnected'),
      );
      return;
    }
    const sender = this.#media.dtmfSender;
    if (!sender) this.#send('dtmf', { callsid: this.#callSid(), dtmf: digits });
    this.#dtmf.push(digits, sender);
  }

  /**
   * Sends a user-defined message to the gateway; returns its voice event sid (`messageSent`
   * follows the gateway's acknowledgement).
   */
  sendMessage(message: CallMessage): string {
    return this.#messages.send(message);
  }

  /**
   * Posts the user's feedback on the call: a score of 1 to 5 (none: declined) and an optional
   * issue; throws `InvalidArgumentError` for anything else.
   */
  postFeedback(score?: FeedbackScore, issue?: FeedbackIssue): Promise<void> {
    const feedback = checkFeedback(score, issue);
    return Promise.resolve(this.#o.publisher?.postFeedback(feedback, this));
  }

  /** @internal Places an outgoing call (the Device calls this once). */
  async placeOutgoing(): Promise<void> {
    try {
      await this.#media.openMicrophone(this.#o.getInputStream?.() ?? null);
      const sdp = await this.#media.createOffer();
      if (this.status() === 'closed') return;
      const callsid = this.#callSid();
      if (this.#reconnectToken) {
        this.#send('invite', { callsid, sdp, reconnect: this.#reconnectToken, twilio: {} });
      } else {
        const params = new URLSearchParams([...this.customParameters]).toString();
        this.#send('invite', { callsid, sdp, twilio: { params } });
      }
    } catch (error) {
      this.#fail(asSoftphoneError(error));
    }
  }

  /** @internal The device's microphone changed: the call's track is replaced. */
  _setInputTracksFromStream(stream: MediaStream | null): Promise<void> {
    return this.#media.replaceInput(stream);
  }

  /** @internal The device's speaker changed. */
  _setSinkIds(sinkIds: string[]): Promise<void> {
    return this.#media.setOutputDevice(sinkIds[0] ?? 'default');
  }

  async #answer(): Promise<void> {
    try {
      await this.#media.openMicrophone(this.#o.getInputStream?.() ?? null);
      const sdp = await this.#media.createAnswer(this.#o.offerSdp ?? '');
      if (this.status() === 'closed') return;
      this.#send('answer', { callsid: this.#callSid(), sdp });
    } catch (error) {
      // The gateway hears a hangup; the error says why (e.g. no microphone).
      this.#fail(asSoftphoneError(error));
    }
  }

  #send: PStreamClient['send'] = (type, payload, queue) =>
    this.#o.stream.send(type, payload, queue);

  #callSid(): string {
    return this.parameters.CallSid ?? this.outboundConnectionId ?? '';
  }

  #mine(callsid: string | undefined): boolean {
    return callsid === this.parameters.CallSid || callsid === this.outboundConnectionId;
  }

  #listen(): void {
    const s = this.#o.stream;
    this.#unsubscribe.push(
      s.on('cancel', (p) => {
        if (!this.#mine(p.callsid) || !this.#machine.can('cancel')) return;
        this.#close('cancel');
        this.emit('cancel');
      }),
      s.on('ringing', (p) => void this.#onRinging(p)),
      s.on('answer', (p) => void this.#onAnswer(p)),
      s.on('hangup', (p) => {
        if (!this.#mine(p.callsid) || this.status() === 'closed') return;
        if (p.error) {
          const precise = !!this.#o.enableImprovedSignalingErrorPrecision;
          this.emit('error', gatewayError(p.error, precise, 'Error sent from gateway in HANGUP'));
        }
        this.#close('hangup');
        this.emit('disconnect', this);
      }),
      s.on('error', (p) => {
        if (p.callsid !== undefined && this.#mine(p.callsid)) {
          const precise = !!this.#o.enableImprovedSignalingErrorPrecision;
          this.emit('error', gatewayError(p.error, precise, p.error.message));
        }
      }),
      ...this.#messages.listen(),
      s.on('transportClose', () => this.#onTransportClose()),
      s.on('connected', () => this.#onSignallingBack()),
    );
  }

  async #onRinging(p: GatewayPayload<'ringing'>): Promise<void> {
    if (this.direction !== CallDirection.Outgoing || !this.#machine.can('ringing')) return;
    if (this.parameters.CallSid && !this.#mine(p.callsid)) return;
    this.parameters.CallSid = p.callsid;
    this.#machine.send('ringing');
    this.emit('ringing', p.sdp !== undefined);
    if (p.sdp) await this.#applyAnswer(p.sdp);
  }

  async #onAnswer(p: GatewayPayload<'answer'>): Promise<void> {
    if (this.status() === 'closed') return;
    const outgoingFirst = this.direction === CallDirection.Outgoing && !this.#answered;
    if (!this.#mine(p.callsid) && !(outgoingFirst && !this.parameters.CallSid)) return;
    if (p.reconnect) this.#reconnectToken = p.reconnect;
    if (outgoingFirst) {
      this.parameters.CallSid = p.callsid;
      this.#answered = true;
    }
    this.#clearSignallingTimer();
    this.#restore('signalling');
    await this.#applyAnswer(p.sdp);
    // During a media reconnect the answer is to an ICE restart: the reconnector waits for audio.
    if (this.#reconnector.isReconnecting) this.#reconnector.answered();
    else this.#onMediaConnected();
  }

  async #applyAnswer(sdp: string): Promise<void> {
    const restart = this.#reconnector.isReconnecting;
    try {
      await this.#media.applyAnswer(sdp);
    } catch (error) {
      // A failed ICE restart answer is one more failed attempt; otherwise the call cannot go on.
      if (restart) return this.#onMediaFailed();
      this.#fail(asSoftphoneError(error));
    }
  }

  /**
   * Media is up: opens a connecting call (outgoing: once answered). During a media outage the
   * reconnector decides when it ends (when audio arrives).
   */
  #onMediaConnected(): void {
    if (!this.#media.isConnected) return;
    this.#quality.warn('ice-connectivity-lost', false);
    if (this.#reconnector.isReconnecting) return this.#reconnector.iceConnected();
    const ready = this.direction === CallDirection.Incoming || this.#answered;
    if (!ready || !this.#machine.trySend('open')) return;
    this.#quality.start();
    this.emit('accept', this);
  }

  #publishSamples(samples: CallSample[]): void {
    const publisher = this.#o.publisher;
    if (publisher) {
      void Promise.resolve()
        .then(() => publisher.postMetrics(samples, this))
        .catch(() => undefined);
    }
  }

  // ------------------------------------------------------------------ reconnection

  /** Something the open call needs is lost: it becomes `reconnecting`. */
  #interrupt(what: Connection, error: SoftphoneError): void {
    const first = this.#down.size === 0;
    this.#down.add(what);
    if (first && this.#machine.trySend('interrupted')) this.emit('reconnecting', error);
  }

  /** Something lost is back; once everything is, the call is open again. */
  #restore(what: Connection): void {
    if (!this.#down.delete(what) || this.#down.size) return;
    if (this.#machine.trySend('restored')) this.emit('reconnected');
  }

  #onTransportClose(): void {
    const state = this.status();
    if (state === 'pending') {
      // The gateway forgets an invite whose socket went away.
      this.#close('cancel');
      this.emit('cancel');
    } else if (state === 'connecting' || state === 'ringing') {
      this.#fail(createError(31000, 'Cannot establish connection. Client is disconnected'));
    } else if (state !== 'closed') {
      const timeoutMs = this.#o.maxCallSignalingTimeoutMs ?? CALL_SIGNALING_TIMEOUT_MS;
      if (!this.#reconnectToken || timeoutMs <= 0) return this.#fail(createError(53001));
      this.#interrupt('signalling', createError(53001));
      this.#clearSignallingTimer();
      this.#signallingTimer = this.#o.platform.clock.setTimeout(
        () => this.#fail(createError(53001)),
        timeoutMs,
      );
    }
  }

  /** The socket is back and authenticated: re-attach the call, resume a media restart. */
  #onSignallingBack(): void {
    if (this.#down.has('signalling') && this.#reconnectToken) {
      this.#send('invite', {
        callsid: this.#callSid(),
        sdp: this.#media.localSdp,
        reconnect: this.#reconnectToken,
        twilio: {},
      });
    }
    this.#reconnector.signallingBack();
  }

  /**
   * The media connection failed: a live call (or one whose media is being restored) reconnects
   * it; one not yet open ends (31003).
   */
  #onMediaFailed(): void {
    const state = this.status();
    if (this.#reconnector.isReconnecting || state === 'open' || state === 'reconnecting') {
      this.#reconnector.failed();
    } else if (state === 'connecting' || state === 'ringing') {
      this.#fail(createError(31003, MEDIA_INTERRUPTED), MEDIA_INTERRUPTED);
    }
  }

  #clearSignallingTimer(): void {
    this.#o.platform.clock.clearTimeout(this.#signallingTimer);
    this.#signallingTimer = null;
  }

  // ------------------------------------------------------------------ endings

  #hangUp(transition: 'disconnect' | 'fail', message?: string): void {
    if (!this.#machine.can(transition)) return;
    const callsid = this.#callSid();
    this.#send('hangup', message ? { callsid, message } : { callsid });
    this.#close(transition);
    this.emit('disconnect', this);
  }

  #fail(error: SoftphoneError, message?: string): void {
    const state = this.status();
    if (state === 'closed') return;
    this.emit('error', error);
    if (state === 'pending') {
      this.#close('fail');
      return;
    }
    this.#hangUp('fail', message);
  }

  #close(transition: CallTransition): void {
    this.#machine.send(transition);
    for (const off of this.#unsubscribe.splice(0)) off();
    this.#clearSignallingTimer();
    this.#reconnector.stop();
    this.#dtmf.clear();
    this.#quality.stop();
    this.#media.close();
    this.#o.onClosed?.();
  }
}

const asSoftphoneError = (error: unknown): SoftphoneError =>
  error instanceof Error && 'code' in error && typeof error.code === 'number'
    ? (error as SoftphoneError)
    : createError(31000, error instanceof Error ? error.message : String(error), error);
