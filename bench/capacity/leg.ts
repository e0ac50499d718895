/**
 * One light werift WebRTC leg of the capacity load generator, the same on both systems: it
 * offers or answers PCMU (the engine's codecs: PCMU and telephone-event), sends a 1000 Hz PCMU
 * frame every 20 ms once connected (werift's SRTP without its costlier `RTCRtpSender` path), and
 * timestamps every PCMU datagram from the server when it reaches the leg's UDP socket, before
 * werift would decrypt it (bench/lib/socket-timing.ts, as bench/engine/bench-client.ts does).
 */
import { RTCPeerConnection, type RTCRtpTransceiver } from 'werift';
import { generateTone } from '@leadline/voice/dsp';
import {
  directRtpSend,
  encodeMuLaw,
  engineAudioCodecs,
  RtpPacketizer,
} from '@leadline/voice/testing';
import type { Arrival } from '../lib/pacing';
import { timeArrivals } from '../lib/socket-timing';

const FRAME_SAMPLES = 160;
/** A frame of 1000 Hz: 20 whole cycles, so every frame is the same. */
const TONE_FRAME = Buffer.from(
  encodeMuLaw(generateTone({ frequencyHz: 1000, sampleRateHz: 8000, dbfs: -10 }, FRAME_SAMPLES)),
);

export class Leg {
  readonly peer: RTCPeerConnection;
  private transceiver: RTCRtpTransceiver | undefined;
  private packetizer: RtpPacketizer | undefined;
  private sendRtp: ReturnType<typeof directRtpSend> | undefined;
  /** When this leg's next frame is due (ms, performance clock). */
  nextSendAt = NaN;
  readonly arrivals: Arrival[] = [];
  recording = false;
  /** Whether the leg's media is connected and it sends. */
  up = false;

  constructor(readonly name: string) {
    this.peer = new RTCPeerConnection({
      codecs: { audio: engineAudioCodecs() },
      iceServers: [],
      iceUseIpv4: false,
      iceUseIpv6: false,
      iceAdditionalHostAddresses: ['127.0.0.1'],
    });
  }

  /** Makes the offer (sendrecv audio) with every ICE candidate in it; returns its SDP. */
  async offer(): Promise<string> {
    this.transceiver = this.peer.addTransceiver('audio', { direction: 'sendrecv' });
    await this.peer.setLocalDescription(await this.peer.createOffer());
    await this.gathered();
    return this.peer.localDescription!.sdp;
  }

  /** Answers the server's offer `sdp`, with every ICE candidate; returns the answer's SDP. */
  async answer(sdp: string): Promise<string> {
    await this.peer.setRemoteDescription({ type: 'offer', sdp });
    this.transceiver = this.peer.getTransceivers()[0];
    if (this.transceiver) this.transceiver.setDirection('sendrecv');
    await this.peer.setLocalDescription(await this.peer.createAnswer());
    await this.gathered();
    return this.peer.localDescription!.sdp;
  }

  private async gathered(): Promise<void> {
    if (this.peer.iceGatheringState !== 'complete')
      await this.peer.iceGatheringStateChange.watch((state) => state === 'complete');
  }

  /** Resolves when the peer connects; rejects if it fails or closes first. */
  connected(): Promise<void> {
    if (this.peer.connectionState === 'connected') return Promise.resolve();
    return new Promise((resolve, reject) => {
      const { unSubscribe } = this.peer.connectionStateChange.subscribe((state) => {
        if (state === 'connected') resolve();
        else if (state === 'failed' || state === 'closed')
          reject(
            new Error(
              `the connection ${state} (ICE ${this.peer.iceConnectionState}, DTLS ${this.peer.dtlsTransports[0]?.state ?? '–'})`,
            ),
          );
        else return;
        unSubscribe();
      });
    });
  }

  /** Once connected: starts timing arrivals and makes `sendFrame` send. */
  start(): void {
    const sender = this.transceiver!.sender;
    this.packetizer = new RtpPacketizer({ ssrc: sender.ssrc });
    this.sendRtp = directRtpSend(sender);
    timeArrivals(
      this.peer,
      () => this.recording,
      (at, rtp) => this.arrivals.push({ at, rtp }),
    );
    this.up = true;
  }

  sendFrame(): void {
    const packet = this.packetizer?.packetize(TONE_FRAME, FRAME_SAMPLES);
    if (packet) this.sendRtp?.(packet.payload, packet.header).catch(() => undefined);
  }

  async close(): Promise<void> {
    this.up = false;
    await this.peer.close().catch(() => undefined);
  }
}
