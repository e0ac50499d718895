/**
 * A call on the softphone, with the official Voice SDK's public surface: `accept`, `reject`,
 * `ignore`, `disconnect`, `mute`, `isMuted`, `status`, `parameters`, `direction`, and its events.
 */
import type { GatewayPayload } from '@leadline/contracts/signalling';
import { StateMachine, TypedEmitter } from '@leadline/contracts/lib';
import { createError, type SoftphoneError } from '../errors/errors';
import type { Platform } from '../platform/platform';
import type { PStreamClient } from '../signalling/pstream-client';
import { CALL_TABLE, CallState, type CallTransition } from './call-states';
import { MediaSession } from './media-session';

export { CallState };

/** Incoming or outgoing. */
export const CallDirection = { Incoming: 'INCOMING', Outgoing: 'OUTGOING' } as const;
export type CallDirection = (typeof CallDirection)[keyof typeof CallDirection];

/** Events of a call and their arguments. */
export type CallEvents = {
  /** The call is open: audio flows both ways. */
  accept: [call: Call];
  /** The call ended (either side hung up). */
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
  /** Input and output levels, 0..1. */
  volume: [inputVolume: number, outputVolume: number];
  /** Media connection lost; trying to restore it. */
  reconnecting: [error: SoftphoneError];
  /** Media connection restored. */
  reconnected: [];
};

/** What a call is made from (by the Device). */
export interface CallOptions {
  direction: CallDirection;
  platform: Platform;
  stream: PStreamClient;
  rtcConfiguration: RTCConfiguration;
  /** Incoming: the invite's parameters (`CallSid`, `From`, `To`, …). Outgoing: connect params. */
  parameters: Record<string, string>;
  /** Incoming: the gateway's offer. */
  offerSdp?: string;
  /** Outgoing: the temporary id used until the gateway names the call. */
  outboundConnectionId?: string;
  /** Called once when the call reaches `closed`, whichever way (the Device frees its slot). */
  onClosed?: () => void;
}

/** A call. */
export class Call extends TypedEmitter<CallEvents> {
  /** The call's states. */
  static readonly State = CallState;

  readonly direction: CallDirection;
  /** Incoming: the invite's parameters; outgoing: `CallSid` once the gateway named the call. */
  readonly parameters: Record<string, string>;
  /** Outgoing: the connect params. */
  readonly customParameters: Map<string, string>;
  /** Outgoing: the temporary call id. */
  readonly outboundConnectionId: string | null;

  readonly #machine: StateMachine<CallState, CallTransition>;
  readonly #media: MediaSession;
  readonly #stream: PStreamClient;
  readonly #offerSdp: string | null;
  readonly #onClosed: (() => void) | undefined;
  readonly #unsubscribe: Array<() => void> = [];
  #muted = false;
  /** Outgoing: the gateway said the far end answered. */
  #answeredByGateway = false;

  /** @internal Made by the Device. */
  constructor(options: CallOptions) {
    super();
    this.direction = options.direction;
    this.#stream = options.stream;
    this.#offerSdp = options.offerSdp ?? null;
    this.#onClosed = options.onClosed;
    this.outboundConnectionId = options.outboundConnectionId ?? null;
    const incoming = options.direction === CallDirection.Incoming;
    this.parameters = incoming ? { ...options.parameters } : {};
    this.customParameters = new Map(incoming ? [] : Object.entries(options.parameters));
    this.#machine = new StateMachine('call', CALL_TABLE, incoming ? 'pending' : 'connecting');
    this.#media = new MediaSession(options.platform, options.rtcConfiguration);
    this.#media.on('connected', () => this.#mediaConnected());
    this.#media.on('failed', () => this.#fail(createError(53405, 'Media connection failed.')));
    this.#listen();
  }

  /** The current state. */
  status(): CallState {
    return this.#machine.state;
  }

  /** Whether the microphone is muted. */
  isMuted(): boolean {
    return this.#muted;
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
    if (!this.#machine.can('accept') || this.direction !== CallDirection.Incoming) return;
    this.#machine.send('accept');
    void this.#answer();
  }

  /** Refuses an incoming call (only while pending); the gateway is told. */
  reject(): void {
    if (!this.#machine.can('reject')) return;
    this.#stream.send('reject', { callsid: this.#callSid() });
    this.#close('reject');
    this.emit('reject');
  }

  /** Stops ringing here without telling the gateway (only while pending). */
  ignore(): void {
    if (!this.#machine.can('ignore')) return;
    this.#close('ignore');
  }

  /** Hangs up (from open, connecting, reconnecting or ringing). */
  disconnect(): void {
    const state = this.#machine.state;
    if (state === 'pending' || !this.#machine.can('disconnect')) return;
    this.#stream.send('hangup', { callsid: this.#callSid() });
    this.#close('disconnect');
    this.emit('disconnect', this);
  }

  /** Mutes (default) or unmutes the microphone. */
  mute(shouldMute = true): void {
    if (this.#muted === shouldMute) return;
    this.#muted = shouldMute;
    this.#media.setMuted(shouldMute);
    this.emit('mute', shouldMute, this);
  }

  /** @internal Places an outgoing call (the Device calls this once). */
  async placeOutgoing(): Promise<void> {
    try {
      await this.#media.openMicrophone();
      const sdp = await this.#media.createOffer();
      if (this.#machine.state === 'closed') return;
      const params = new URLSearchParams([...this.customParameters]).toString();
      this.#stream.send('invite', { callsid: this.outboundConnectionId!, sdp, twilio: { params } });
    } catch (error) {
      this.#fail(asSoftphoneError(error));
    }
  }

  async #answer(): Promise<void> {
    try {
      await this.#media.openMicrophone();
      const sdp = await this.#media.createAnswer(this.#offerSdp ?? '');
      if (this.#machine.state === 'closed') return;
      this.#stream.send('answer', { callsid: this.#callSid(), sdp });
    } catch (error) {
      // The gateway hears a hangup; the error says why (e.g. no microphone).
      this.#stream.send('hangup', { callsid: this.#callSid() });
      this.#fail(asSoftphoneError(error));
    }
  }

  #callSid(): string {
    return this.parameters.CallSid ?? this.outboundConnectionId ?? '';
  }

  #mine(callsid: string): boolean {
    return callsid === this.parameters.CallSid || callsid === this.outboundConnectionId;
  }

  #listen(): void {
    const s = this.#stream;
    this.#unsubscribe.push(
      s.on('cancel', (p) => {
        if (!this.#mine(p.callsid) || !this.#machine.can('cancel')) return;
        this.#close('cancel');
        this.emit('cancel');
      }),
      s.on('ringing', (p) => void this.#onRinging(p)),
      s.on('answer', (p) => void this.#onAnswer(p)),
      s.on('hangup', (p) => {
        if (!this.#mine(p.callsid) || this.#machine.state === 'closed') return;
        if (p.error) this.emit('error', createError(p.error.code, p.error.message));
        this.#close('hangup');
        this.emit('disconnect', this);
      }),
      s.on('error', (p) => {
        if (p.callsid === undefined || !this.#mine(p.callsid)) return;
        this.emit('error', createError(p.error.code, p.error.message));
      }),
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
    if (this.direction !== CallDirection.Outgoing || this.#answeredByGateway) return;
    if (this.parameters.CallSid && !this.#mine(p.callsid)) return;
    if (this.#machine.state === 'closed') return;
    this.parameters.CallSid = p.callsid;
    this.#answeredByGateway = true;
    await this.#applyAnswer(p.sdp);
    this.#mediaConnected();
  }

  async #applyAnswer(sdp: string): Promise<void> {
    try {
      await this.#media.applyAnswer(sdp);
    } catch (error) {
      this.#stream.send('hangup', { callsid: this.#callSid() });
      this.#fail(asSoftphoneError(error));
    }
  }

  /** Opens the call once media is up (and, outgoing, the far end answered). */
  #mediaConnected(): void {
    const ready =
      this.#media.isConnected &&
      (this.direction === CallDirection.Incoming || this.#answeredByGateway);
    if (!ready || !this.#machine.can('open')) return;
    this.#machine.send('open');
    this.emit('accept', this);
  }

  #fail(error: SoftphoneError): void {
    if (this.#machine.state === 'closed') return;
    this.emit('error', error);
    this.#close('fail');
    this.emit('disconnect', this);
  }

  #close(transition: CallTransition): void {
    this.#machine.send(transition);
    for (const off of this.#unsubscribe.splice(0)) off();
    this.#media.close();
    this.#onClosed?.();
  }
}

const asSoftphoneError = (error: unknown): SoftphoneError =>
  error instanceof Error && 'code' in error && typeof error.code === 'number'
    ? (error as SoftphoneError)
    : createError(31000, error instanceof Error ? error.message : String(error), error);
