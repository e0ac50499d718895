import type { RTCPeerConnection, RTCRtpTransceiver, RtpPacket } from 'werift';
import { decodeMuLaw, encodeMuLaw } from '../codec/mu-law';
import {
  ICE_GATHERING_TIMEOUT_MS,
  PCMU_PAYLOAD_TYPE,
  SAMPLES_PER_FRAME,
  TELEPHONE_EVENT_CLOCK_RATE_HZ,
} from '../constants';
import { JitterBuffer } from './jitter-buffer';
import { LEG_TRANSITIONS, type LegEvent, type LegState } from './leg-state';
import { MediaError } from './media-errors';
import type { ParticipantId, RoomId } from './media-engine';
import type { LeaveReason, Participant } from './participant';
import type { Scheduler } from './platform';
import { RtpPacketizer } from './rtp-packetizer';
import { stripWideTelephoneEvents } from './sdp-rewrite';
import { MediaStateMachine } from './state-machine';
import { DtmfDetector } from './telephone-event';

/** What a leg reports to its owner. */
export interface LegObserver {
  /** ICE and DTLS are up; audio flows. */
  connected(leg: WebRtcLeg): void;
  /** The connection failed or the remote closed it (not called after `leave`). */
  failed(leg: WebRtcLeg, reason: string): void;
  /** The remote pressed a key (RFC 4733). */
  dtmf(leg: WebRtcLeg, digit: string): void;
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
  readonly id: ParticipantId;
  readonly roomId: RoomId;
  muted = false;
  readonly inMix = true;
  private readonly peer: RTCPeerConnection;
  private readonly observer: LegObserver;
  private readonly scheduler: Scheduler;
  private readonly gatheringTimeoutMs: number;
  private readonly lifecycle: MediaStateMachine<LegState, LegEvent>;
  private readonly jitter = new JitterBuffer();
  private readonly dtmf = new DtmfDetector();
  private transceiver: RTCRtpTransceiver | undefined;
  private packetizer: RtpPacketizer | undefined;
  private dtmfPayloadType: number | undefined;
  /** Ends the waits of negotiation steps under way when the leg leaves. */
  private readonly stopWaiting = new Set<() => void>();

  /** Wraps `options.peer`; nothing is negotiated until `createOffer` or `answer`. */
  constructor(options: WebRtcLegOptions) {
    this.id = options.id;
    this.roomId = options.roomId;
    this.peer = options.peer;
    this.observer = options.observer;
    this.scheduler = options.scheduler;
    this.gatheringTimeoutMs = options.gatheringTimeoutMs ?? ICE_GATHERING_TIMEOUT_MS;
    this.lifecycle = new MediaStateMachine(`WebRTC leg ${options.id}`, LEG_TRANSITIONS, 'new');
    // Subscribed before any description is applied: werift raises onTrack inside setRemoteDescription.
    this.peer.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe((packet) => this.receive(packet));
    });
    this.peer.connectionStateChange.subscribe((state) => this.onConnectionState(state));
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
    await this.negotiate(async () => {
      await this.peer.setRemoteDescription({
        type: 'offer',
        sdp: stripWideTelephoneEvents(offerSdp),
      });
      this.transceiver = this.peer
        .getTransceivers()
        .find((transceiver) => transceiver.kind === 'audio');
      if (!this.transceiver)
        throw new MediaError('NoCommonCodec', 'the offer has no audio section');
      this.transceiver.setDirection('sendrecv');
      this.learnCodecs();
      await this.peer.setLocalDescription(await this.peer.createAnswer());
      await this.iceGathered();
    });
    this.lifecycle.send('answered');
    this.catchUpConnection();
    return this.localSdp();
  }

  speak(): Int16Array | undefined {
    const frame = new Int16Array(SAMPLES_PER_FRAME);
    return this.jitter.pull(frame) ? frame : undefined;
  }

  hear(frame: Int16Array): void {
    const sender = this.transceiver?.sender;
    if (this.lifecycle.state !== 'connected' || !this.packetizer || !sender) return;
    const encoded = encodeMuLaw(frame);
    const packet = this.packetizer.packetize(
      Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength),
      frame.length,
    );
    sender
      .sendRtp(packet)
      .catch((error: unknown) =>
        this.observer.warn(`leg ${this.id}: sending RTP failed: ${String(error)}`),
      );
  }

  async leave(_reason: LeaveReason): Promise<void> {
    this.lifecycle.trySend('close');
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
      const digit = this.dtmf.accept(timestamp, packet.payload);
      if (digit !== undefined) this.observer.dtmf(this, digit);
    }
  }

  /** Applies a connection state werift reached while the leg was still negotiating. */
  private catchUpConnection(): void {
    if (this.peer.connectionState !== 'new' && this.peer.connectionState !== 'connecting') {
      this.onConnectionState(this.peer.connectionState);
    }
  }

  private onConnectionState(state: RTCPeerConnection['connectionState']): void {
    if (state === 'connected' && this.lifecycle.trySend('connect')) {
      const sender = this.transceiver?.sender;
      if (sender) this.packetizer = new RtpPacketizer({ ssrc: sender.ssrc });
      this.observer.connected(this);
    } else if ((state === 'failed' || state === 'closed') && this.lifecycle.trySend('fail')) {
      this.observer.failed(
        this,
        state === 'failed' ? 'ICE or DTLS failed' : 'the remote closed the connection',
      );
    }
  }
}
