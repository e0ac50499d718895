import type { RTCPeerConnection, RTCRtpTransceiver, RtpPacket } from 'werift';
import { decodeMuLaw, encodeMuLaw } from '../codec/mu-law';
import {
  ICE_GATHERING_TIMEOUT_MS,
  ICE_RESTART_WINDOW_MS,
  PCMU_PAYLOAD_TYPE,
  SAMPLES_PER_FRAME,
  TELEPHONE_EVENT_CLOCK_RATE_HZ,
} from '../constants';
import { JitterBuffer } from './jitter-buffer';
import { LEG_TRANSITIONS, type LegEvent, type LegState } from './leg-state';
import { MediaError } from './media-errors';
import type { DtmfTone, ParticipantId, ParticipantRole, RoomId } from './media-engine';
import type { LeaveReason, Participant } from './participant';
import type { MonotonicClock, Scheduler } from './platform';
import { RtpPacketizer } from './rtp-packetizer';
import { stripWideTelephoneEvents } from './sdp-rewrite';
import { MediaStateMachine } from './state-machine';
import { DtmfDetector } from './telephone-event';
import {
  directRtpSend,
  interruptSockets,
  resumeIceAfterRestart,
  type RtpHeaderLike,
} from './werift-internals';
import { leanSrtp } from './werift-fast-paths';

/** What a leg reports to its owner. */
export interface LegObserver {
  /** ICE and DTLS are up; audio flows. */
  connected(leg: WebRtcLeg): void;
  /** The connection failed or the remote closed it (not called after `leave`). */
  failed(leg: WebRtcLeg, reason: string): void;
  /** The remote pressed a key (RFC 4733); `tone` says when it played and how long. */
  dtmf(leg: WebRtcLeg, digit: string, tone: DtmfTone): void;
  /** Something went wrong that does not end the leg. */
  warn(message: string): void;
}

/** Options of a {@link WebRtcLeg}. */
export interface WebRtcLegOptions {
  id: ParticipantId;
  roomId: RoomId;
  /** A fresh peer connection from the worker's `PeerFactory`. */
  peer: RTCPeerConnection;
  observer: LegObserver;
  /** Timers (for the ICE gathering timeout). */
  scheduler: Scheduler;
  /** Time (for `interruptMedia`). */
  clock: MonotonicClock;
  /** How it takes part in the room; default `agent`. */
  role?: ParticipantRole;
  /** Longest wait for ICE gathering before the SDP is returned as it is; default spec §9's 15 s. */
  gatheringTimeoutMs?: number;
}

/**
 * One WebRTC leg (an agent's browser) in a room, on a werift peer connection.
 *
 * Receives PCMU into a jitter buffer and telephone-events into DTMF digits; sends one PCMU RTP
 * packet per 20 ms frame it hears once connected. No trickle ICE: the SDPs it returns carry all
 * candidates. Negotiation steps that finish after the leg closed are dropped (they reject with
 * `LegClosed`); a failed negotiation moves the leg to `failed`.
 */
export class WebRtcLeg implements Participant {
  #id: ParticipantId;
  #roomId: RoomId;
  muted = false;
  role: ParticipantRole;
  private readonly peer: RTCPeerConnection;
  private readonly clock: MonotonicClock;
  /** `interruptMedia`: the leg's sockets are dead until this time. */
  private mediaBlockedUntil = 0;
  /** Negotiation steps run one at a time (a renegotiation waits for the one before). */
  private negotiations: Promise<unknown> = Promise.resolve();
  /** When the client last restarted ICE (`renegotiate` applied an offer), or never. */
  private restartedAt = -Infinity;
  /** While `interrupted`: the timer that fails the leg if no restart connects. */
  private cancelRecovery: (() => void) | undefined;
  private readonly observer: LegObserver;
  private readonly scheduler: Scheduler;
  private readonly gatheringTimeoutMs: number;
  private readonly lifecycle: MediaStateMachine<LegState, LegEvent>;
  private readonly jitter = new JitterBuffer();
  private readonly dtmf = new DtmfDetector();
  private transceiver: RTCRtpTransceiver | undefined;
  private packetizer: RtpPacketizer | undefined;
  /** Sends one RTP packet (set once connected). */
  private sendRtp: ((payload: Buffer, header: RtpHeaderLike) => Promise<unknown>) | undefined;
  private dtmfPayloadType: number | undefined;
  /** Ends the waits of negotiation steps under way when the leg leaves. */
  private readonly stopWaiting = new Set<() => void>();

  /** Wraps `options.peer`; nothing is negotiated until `createOffer` or `answer`. */
  constructor(options: WebRtcLegOptions) {
    this.#id = options.id;
    this.#roomId = options.roomId;
    this.peer = options.peer;
    this.observer = options.observer;
    this.scheduler = options.scheduler;
    this.clock = options.clock;
    this.role = options.role ?? 'agent';
    this.gatheringTimeoutMs = options.gatheringTimeoutMs ?? ICE_GATHERING_TIMEOUT_MS;
    this.lifecycle = new MediaStateMachine(`WebRTC leg ${options.id}`, LEG_TRANSITIONS, 'new');
    // Subscribed before any description is applied: werift raises onTrack inside setRemoteDescription.
    this.peer.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe((packet) => this.receive(packet));
    });
    this.peer.connectionStateChange.subscribe((state) => this.onConnectionState(state));
  }

  /** The participant it is ('' while a prepared offer waits for its call: `bind`). */
  get id(): ParticipantId {
    return this.#id;
  }

  /** The room it is in ('' while a prepared offer waits for its call). */
  get roomId(): RoomId {
    return this.#roomId;
  }

  /**
   * Gives a leg made ahead of time (`id` ''), whose offer is made and not yet answered, to the
   * participant it will be: the media core keeps a few such offers ready so that ringing an agent
   * does not wait for a peer connection, its sockets and ICE gathering.
   */
  bind(id: ParticipantId, roomId: RoomId, role: ParticipantRole): void {
    if (this.#id !== '' || this.lifecycle.state !== 'awaiting-answer') {
      throw new MediaError('IllegalTransition', `leg ${this.#id} cannot be bound now`);
    }
    this.#id = id;
    this.#roomId = roomId;
    this.role = role;
  }

  /** A leg takes part in the mix once ICE and DTLS are up (before, it says and hears nothing). */
  get inMix(): boolean {
    return this.lifecycle.state === 'connected';
  }

  /** The leg's lifecycle state. */
  get state(): LegState {
    return this.lifecycle.state;
  }

  /** Makes the offer (the engine calls the browser); resolves with the complete SDP. */
  async createOffer(): Promise<string> {
    this.lifecycle.send('offer');
    await this.negotiate(async () => {
      this.transceiver = this.peer.addTransceiver('audio', { direction: 'sendrecv' });
      await this.peer.setLocalDescription(await this.peer.createOffer());
      await this.iceGathered();
    });
    this.lifecycle.send('offered');
    return this.localSdp();
  }

  /** Applies the browser's answer to the offer made by `createOffer`. */
  async acceptAnswer(answerSdp: string): Promise<void> {
    this.lifecycle.send('accept');
    await this.negotiate(async () => {
      await this.peer.setRemoteDescription({
        type: 'answer',
        sdp: stripWideTelephoneEvents(answerSdp),
      });
      this.learnCodecs();
    });
    this.catchUpConnection();
  }

  /** Answers the browser's offer (the browser calls the engine); resolves with the complete SDP. */
  async answer(offerSdp: string): Promise<string> {
    this.lifecycle.send('answer');
    await this.negotiate(() => this.applyOffer(offerSdp));
    this.lifecycle.send('answered');
    this.catchUpConnection();
    return this.localSdp();
  }

  /**
   * Applies the client's offer and sets the local answer (complete once ICE gathered); the
   * body of both `answer` and `renegotiate`. Throws `NoCommonCodec` if it has no audio section.
   */
  private async applyOffer(offerSdp: string): Promise<void> {
    await this.peer.setRemoteDescription({
      type: 'offer',
      sdp: stripWideTelephoneEvents(offerSdp),
    });
    const transceiver = this.peer.getTransceivers().find((candidate) => candidate.kind === 'audio');
    if (!transceiver) throw new MediaError('NoCommonCodec', 'the offer has no audio section');
    this.transceiver = transceiver;
    this.transceiver.setDirection('sendrecv');
    this.learnCodecs();
    await this.peer.setLocalDescription(await this.peer.createAnswer());
    await this.iceGathered();
  }

  /**
   * Applies a new offer from the client on a negotiated leg (ICE restart) and resolves with the
   * answer. An offer with the ICE credentials the leg already uses is not applied: the current
   * local description is returned (a signalling reconnect whose media never broke).
   */
  renegotiate(offerSdp: string): Promise<string> {
    const run = async (): Promise<string> => {
      const state = this.lifecycle.state;
      if (state !== 'connecting' && state !== 'connected' && state !== 'interrupted') {
        throw new MediaError(
          'IllegalTransition',
          `leg ${this.id} cannot renegotiate when ${state}`,
        );
      }
      const remoteUfrag = iceUfrag(this.peer.remoteDescription?.sdp ?? '');
      if (remoteUfrag !== undefined && iceUfrag(offerSdp) === remoteUfrag) return this.localSdp();
      this.restartedAt = this.clock.now();
      await this.negotiate(() => this.applyOffer(offerSdp));
      resumeIceAfterRestart(this.peer.iceTransports, (error) =>
        this.observer.warn(`leg ${this.id}: ICE restart failed: ${String(error)}`),
      );
      return this.localSdp();
    };
    const result = this.negotiations.then(run, run);
    this.negotiations = result.catch(() => undefined);
    return result;
  }

  /**
   * Test hook: nothing is sent or received on the leg's sockets for `durationMs` (see
   * `MediaEngine.interruptMedia`). A later call replaces the end of the interruption.
   */
  interruptMedia(durationMs: number): void {
    this.mediaBlockedUntil = this.clock.now() + Math.max(0, durationMs);
    interruptSockets(this.peer.iceTransports, this.clock, () => this.mediaBlockedUntil);
  }

  speak(): Int16Array | undefined {
    const frame = new Int16Array(SAMPLES_PER_FRAME);
    return this.jitter.pull(frame) ? frame : undefined;
  }

  hear(frame: Int16Array): void {
    const send = this.sendRtp;
    if (this.lifecycle.state !== 'connected' || !this.packetizer || !send) return;
    const encoded = encodeMuLaw(frame);
    const packet = this.packetizer.packetize(
      Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength),
      frame.length,
    );
    send(packet.payload, packet.header).catch((error: unknown) =>
      this.observer.warn(`leg ${this.id}: sending RTP failed: ${String(error)}`),
    );
  }

  /**
   * The mixer skipped `frames` frames after a stall: the RTP timestamp moves past them, so the
   * browser's jitter buffer sees a gap (concealed as loss) instead of audio that drifts late; and
   * the incoming jitter buffer drops what the leg said in them, so it does not play late either.
   */
  skipFrames(frames: number): void {
    this.packetizer?.skip(frames * SAMPLES_PER_FRAME);
    this.jitter.skipFrames(frames);
  }

  async leave(_reason: LeaveReason): Promise<void> {
    this.lifecycle.trySend('close');
    this.cancelRecovery?.();
    for (const stop of [...this.stopWaiting]) stop();
    try {
      await this.peer.close();
    } catch (error) {
      this.observer.warn(`leg ${this.id}: closing the peer connection failed: ${String(error)}`);
    }
  }

  /**
   * Runs one negotiation step. A step that throws fails the leg (wrapped as a `MediaError`); a
   * step that completes after the leg closed is superseded and rejects with `LegClosed`.
   */
  private async negotiate(step: () => Promise<void>): Promise<void> {
    try {
      await step();
    } catch (error) {
      // werift refuses to go on with a closed peer: the leg was removed, not failed.
      if (this.lifecycle.state === 'closed') {
        throw new MediaError('LegClosed', `leg ${this.id} was removed`, { cause: error });
      }
      this.lifecycle.trySend('fail');
      throw MediaError.wrap('NegotiationFailed', error);
    }
    if (this.lifecycle.state === 'closed' || this.lifecycle.state === 'failed') {
      throw new MediaError('LegClosed', `leg ${this.id} is ${this.lifecycle.state}`);
    }
  }

  /** Checks PCMU was negotiated and learns the payload type of telephone-event/8000. */
  private learnCodecs(): void {
    const codecs = this.transceiver?.codecs ?? [];
    const mime = (codec: { mimeType: string }): string => codec.mimeType.toLowerCase();
    if (
      !codecs.some(
        (codec) => mime(codec) === 'audio/pcmu' && codec.payloadType === PCMU_PAYLOAD_TYPE,
      )
    ) {
      throw new MediaError('NoCommonCodec');
    }
    this.dtmfPayloadType = codecs.find(
      (codec) =>
        mime(codec) === 'audio/telephone-event' &&
        codec.clockRate === TELEPHONE_EVENT_CLOCK_RATE_HZ,
    )?.payloadType;
  }

  /** Resolves when ICE gathering completes, times out, or the leg leaves (whichever comes first). */
  private iceGathered(): Promise<void> {
    return new Promise((resolve) => {
      if (this.peer.iceGatheringState === 'complete' || this.lifecycle.state === 'closed') {
        resolve();
        return;
      }
      const done = (): void => {
        cancel();
        subscription.unSubscribe();
        this.stopWaiting.delete(done);
        resolve();
      };
      // Past the timeout the SDP goes out with the candidates gathered so far.
      const cancel = this.scheduler.after(this.gatheringTimeoutMs, () => {
        this.observer.warn(
          `leg ${this.id}: ICE gathering timed out; sending the candidates gathered so far`,
        );
        done();
      });
      const subscription = this.peer.iceGatheringStateChange.subscribe((state) => {
        if (state === 'complete') done();
      });
      this.stopWaiting.add(done);
    });
  }

  private localSdp(): string {
    const sdp = this.peer.localDescription?.sdp;
    if (sdp === undefined)
      throw new MediaError('NegotiationFailed', 'werift produced no local description');
    return sdp;
  }

  private receive(packet: RtpPacket): void {
    const { payloadType, timestamp } = packet.header;
    if (payloadType === PCMU_PAYLOAD_TYPE) {
      this.jitter.push(timestamp, decodeMuLaw(packet.payload));
    } else if (payloadType === this.dtmfPayloadType) {
      const press = this.dtmf.acceptPress(timestamp, packet.payload);
      if (press === undefined) return;
      const durationMs = (press.duration * 1000) / TELEPHONE_EVENT_CLOCK_RATE_HZ;
      this.observer.dtmf(this, press.digit, { rtpTimestamp: press.timestamp, durationMs });
    }
  }

  /** Applies a connection state werift reached while the leg was still negotiating. */
  private catchUpConnection(): void {
    if (this.peer.connectionState !== 'new' && this.peer.connectionState !== 'connecting') {
      this.onConnectionState(this.peer.connectionState);
    }
  }

  private onConnectionState(state: RTCPeerConnection['connectionState']): void {
    if (state === 'connected') {
      if (this.lifecycle.state === 'interrupted') {
        this.lifecycle.send('connect');
        this.cancelRecovery?.();
        this.cancelRecovery = undefined;
      } else if (this.lifecycle.trySend('connect')) {
        const sender = this.transceiver?.sender;
        if (sender) {
          this.packetizer = new RtpPacketizer({ ssrc: sender.ssrc });
          this.sendRtp = directRtpSend(sender);
          leanSrtp(sender.dtlsTransport);
        }
        this.observer.connected(this);
      }
    } else if (
      state === 'failed' &&
      this.recentlyRestarted() &&
      (this.lifecycle.state === 'connected' || this.lifecycle.state === 'interrupted')
    ) {
      this.interrupt();
    } else if (state === 'failed' || state === 'closed') {
      this.fail(state === 'failed' ? 'ICE or DTLS failed' : 'the remote closed the connection');
    }
  }

  /** Whether the client restarted ICE within the restart window (it is recovering media). */
  private recentlyRestarted(): boolean {
    return this.clock.now() - this.restartedAt < ICE_RESTART_WINDOW_MS;
  }

  /** ICE failed during the client's recovery: wait for a later restart, for a while. */
  private interrupt(): void {
    if (this.lifecycle.state === 'connected') this.lifecycle.send('interrupt');
    if (this.lifecycle.state !== 'interrupted' || this.cancelRecovery) return;
    const waitMs = Math.max(0, this.restartedAt + ICE_RESTART_WINDOW_MS - this.clock.now());
    this.cancelRecovery = this.scheduler.after(waitMs, () => {
      this.cancelRecovery = undefined;
      if (this.lifecycle.state !== 'interrupted') return;
      if (this.recentlyRestarted()) return this.interrupt();
      this.fail('ICE failed and no ICE restart brought it back');
    });
  }

  private fail(reason: string): void {
    if (this.lifecycle.trySend('fail')) this.observer.failed(this, reason);
  }
}

/** The `a=ice-ufrag` of an SDP (the first one), or undefined. */
function iceUfrag(sdp: string): string | undefined {
  return /^a=ice-ufrag:(\S+)/m.exec(sdp)?.[1];
}
