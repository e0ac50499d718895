/**
 * A werift peer that plays an agent's browser in tests: it negotiates with the engine (either
 * side offering), sends a tone as PCMU every 20 ms once connected, can press DTMF keys (RFC 4733),
 * and keeps what it hears. Tests of other packages may use it too (import it by path).
 */
import { RTCPeerConnection, RtpHeader, type RTCRtpTransceiver } from 'werift';
import { decodeMuLaw, encodeMuLaw } from '../codec/mu-law';
import {
  FRAME_DURATION_MS,
  SAMPLE_RATE_HZ,
  SAMPLES_PER_FRAME,
  TELEPHONE_EVENT_PAYLOAD_TYPE,
} from '../constants';
import { ToneGenerator } from '../dsp/tone';
import { engineAudioCodecs } from './peer-factory';
import { RtpPacketizer } from './rtp-packetizer';
import {
  disableDefaultStunServer,
  ignoreRepeatedHelloVerifyRequests,
  resumeIceAfterRestart,
} from './werift-internals';

/** Options of a {@link WeriftBrowser}. */
export interface WeriftBrowserOptions {
  /** Frequency of the tone it sends; default 1000 Hz. */
  toneHz?: number;
  /** Addresses of its ICE candidates; default loopback. */
  iceAddresses?: string[];
}

/** A test stand-in for the browser end of a WebRTC leg. */
export class WeriftBrowser {
  readonly peer: RTCPeerConnection;
  private readonly tone: ToneGenerator;
  private readonly received: Int16Array[] = [];
  private transceiver: RTCRtpTransceiver | undefined;
  private sending: NodeJS.Timeout | undefined;
  private packetizer: RtpPacketizer | undefined;
  private dtmfTimestamp = 0;

  /** Creates the peer; nothing is negotiated yet. */
  constructor(options: WeriftBrowserOptions = {}) {
    this.tone = new ToneGenerator({
      frequencyHz: options.toneHz ?? 1000,
      sampleRateHz: SAMPLE_RATE_HZ,
    });
    disableDefaultStunServer();
    // Answering the engine's offer, this peer is the DTLS client: on a busy machine the engine's
    // DTLS server may answer its retransmitted ClientHello too, and unpatched werift then fails
    // the handshake and never connects (see `ignoreRepeatedHelloVerifyRequests`).
    ignoreRepeatedHelloVerifyRequests();
    this.peer = new RTCPeerConnection({
      codecs: { audio: engineAudioCodecs() },
      // No STUN server (see `disableDefaultStunServer`).
      iceServers: [],
      iceUseIpv4: false,
      iceUseIpv6: false,
      iceAdditionalHostAddresses: options.iceAddresses ?? ['127.0.0.1'],
    });
    this.peer.onTrack.subscribe((track) => {
      track.onReceiveRtp.subscribe((packet) => {
        if (packet.header.payloadType === 0) this.received.push(decodeMuLaw(packet.payload));
      });
    });
    this.peer.connectionStateChange.subscribe((state) => {
      if (state === 'connected') this.startSending();
      if (state === 'closed' || state === 'failed') this.stopSending();
    });
  }

  /** Answers the engine's offer; resolves with the complete answer SDP. */
  async answer(offerSdp: string): Promise<string> {
    await this.peer.setRemoteDescription({ type: 'offer', sdp: offerSdp });
    this.transceiver = this.peer.getTransceivers()[0];
    this.transceiver?.setDirection('sendrecv');
    await this.peer.setLocalDescription(await this.peer.createAnswer());
    await this.gathered();
    return this.localSdp();
  }

  /**
   * Makes an offer; resolves with the complete offer SDP. With `asChrome`, the offer lists
   * `telephone-event/48000` before `/8000`, as Chrome's does.
   */
  async createOffer(asChrome = false): Promise<string> {
    this.transceiver = this.peer.addTransceiver('audio', { direction: 'sendrecv' });
    await this.peer.setLocalDescription(await this.peer.createOffer());
    await this.gathered();
    const sdp = this.localSdp();
    return asChrome ? withWideTelephoneEvent(sdp) : sdp;
  }

  /**
   * Starts an ICE restart as a browser does (`createOffer({ iceRestart: true })`): resolves with
   * the complete new offer, to be sent in a `reinvite` (or a reconnect `invite`); apply the
   * engine's answer with `acceptAnswer`.
   */
  async restartIce(): Promise<string> {
    await this.peer.setLocalDescription(await this.peer.createOffer({ iceRestart: true }));
    await this.gathered();
    return this.localSdp();
  }

  /** The SDP the peer uses now (what the official SDK re-sends when it reconnects). */
  get currentSdp(): string {
    return this.localSdp();
  }

  /** Applies the engine's answer to the offer of `createOffer` or `restartIce`. */
  async acceptAnswer(answerSdp: string): Promise<void> {
    await this.peer.setRemoteDescription({ type: 'answer', sdp: answerSdp });
    resumeIceAfterRestart(this.peer.iceTransports, () => undefined);
  }

  /** Resolves once ICE and DTLS are up; rejects if the connection fails or closes first. */
  async connected(): Promise<void> {
    if (this.peer.connectionState === 'connected') return;
    const [state] = await this.peer.connectionStateChange.watch(
      (next) => next === 'connected' || next === 'failed' || next === 'closed',
    );
    if (state !== 'connected') throw new Error(`the peer connection ${state} before it connected`);
  }

  /** Samples heard so far. */
  get heardSamples(): number {
    return this.received.reduce((sum, frame) => sum + frame.length, 0);
  }

  /** Everything heard from sample `from` on, as one array. */
  heard(from = 0): Int16Array {
    const all = new Int16Array(this.heardSamples);
    let offset = 0;
    for (const frame of this.received) {
      all.set(frame, offset);
      offset += frame.length;
    }
    return all.subarray(from);
  }

  /**
   * Presses `digit` for `durationMs`: telephone-event packets every 20 ms, then the end packet
   * three times (RFC 4733 §2.5.1.4), all with the press's timestamp.
   */
  async pressDigit(digit: string, durationMs = 100): Promise<void> {
    const event = '0123456789*#ABCD'.indexOf(digit);
    const transport = this.transceiver?.sender.dtlsTransport;
    if (event < 0 || !transport) throw new Error(`cannot press ${digit}`);
    this.dtmfTimestamp = (this.dtmfTimestamp + 8000) >>> 0;
    const steps = Math.max(1, Math.round(durationMs / FRAME_DURATION_MS));
    for (let step = 1; step <= steps + 2; step++) {
      const end = step >= steps;
      const duration = Math.min(step, steps) * SAMPLES_PER_FRAME;
      const payload = Buffer.from([event, end ? 0x80 | 10 : 10, duration >> 8, duration & 0xff]);
      const header = new RtpHeader({
        payloadType: TELEPHONE_EVENT_PAYLOAD_TYPE,
        sequenceNumber: (40_000 + step) & 0xffff,
        timestamp: this.dtmfTimestamp,
        ssrc: this.transceiver?.sender.ssrc ?? 0,
        marker: step === 1,
      });
      await transport.sendRtp(payload, header);
      await new Promise((resolve) => setTimeout(resolve, FRAME_DURATION_MS));
    }
  }

  /** Stops sending and closes the peer. */
  async close(): Promise<void> {
    this.stopSending();
    await this.peer.close();
  }

  private startSending(): void {
    const sender = this.transceiver?.sender;
    if (this.sending || !sender) return;
    this.packetizer = new RtpPacketizer({ ssrc: sender.ssrc });
    this.sending = setInterval(() => {
      const encoded = encodeMuLaw(this.tone.fill(new Int16Array(SAMPLES_PER_FRAME)));
      const packet = this.packetizer?.packetize(Buffer.from(encoded), SAMPLES_PER_FRAME);
      if (packet) sender.sendRtp(packet).catch(() => undefined);
    }, FRAME_DURATION_MS);
  }

  private stopSending(): void {
    clearInterval(this.sending);
    this.sending = undefined;
  }

  private async gathered(): Promise<void> {
    if (this.peer.iceGatheringState === 'complete') return;
    await this.peer.iceGatheringStateChange.watch((state) => state === 'complete');
  }

  private localSdp(): string {
    const sdp = this.peer.localDescription?.sdp;
    if (sdp === undefined) throw new Error('no local description');
    return sdp;
  }
}

/** Adds `telephone-event/48000` (payload type 110) before the other audio codecs, as Chrome offers it. */
function withWideTelephoneEvent(sdp: string): string {
  return sdp
    .replace(/^(m=audio \d+ \S+) /m, '$1 110 ')
    .replace(/^(a=rtpmap:0 .*)$/m, `$1\r\na=rtpmap:110 telephone-event/48000\r\na=fmtp:110 0-16`);
}
