/**
 * The media side of one call: the microphone, one `RTCPeerConnection` with a single audio
 * transceiver (PCMU preferred, then Opus), and the remote audio output. SDP is exchanged
 * whole (no trickle ICE): offers and answers wait for ICE gathering, at most 15 s.
 */
import { TypedEmitter } from '@leadline/contracts/lib';
import { CODEC_PREFERENCES, ICE_GATHERING_TIMEOUT_MS } from '../constants';
import { createError, type SoftphoneError } from '../errors/errors';
import type { AudioOutput, Platform } from '../platform/platform';

/** Events of a media session. */
export type MediaSessionEvents = {
  /** ICE and DTLS are up: audio flows. */
  connected: [];
  /** The connection was lost (ICE disconnected or failed). */
  interrupted: [];
  /** The connection failed for good. */
  failed: [];
};

/** Orders the browser's audio codecs as the spec prefers them: PCMU, then Opus, then the rest. */
export function preferCodecs(codecs: RTCRtpCodec[]): RTCRtpCodec[] {
  const rank = (c: RTCRtpCodec) => {
    const name = c.mimeType.split('/')[1]?.toLowerCase() ?? '';
    const index = (CODEC_PREFERENCES as readonly string[]).indexOf(name);
    return index === -1 ? CODEC_PREFERENCES.length : index;
  };
  return [...codecs].sort((a, b) => rank(a) - rank(b));
}

/** Maps a `getUserMedia` failure to the spec's microphone errors (31401 / 31402). */
export function microphoneError(error: unknown): SoftphoneError {
  const name = (error as { name?: string } | null)?.name ?? '';
  const code = (error as { code?: number } | null)?.code;
  const denied =
    code === 31208 || ['NotAllowedError', 'PermissionDeniedError', 'SecurityError'].includes(name);
  return denied ? createError(31401, undefined, error) : createError(31402, undefined, error);
}

/** One call's media. */
export class MediaSession extends TypedEmitter<MediaSessionEvents> {
  readonly #pc: RTCPeerConnection;
  readonly #output: AudioOutput;
  #local: MediaStream | null = null;
  #remote: MediaStream | null = null;
  #muted = false;
  #closed = false;

  constructor(
    private readonly platform: Platform,
    configuration: RTCConfiguration,
  ) {
    super();
    this.#pc = platform.createPeerConnection({ bundlePolicy: 'max-bundle', ...configuration });
    this.#output = platform.createAudioOutput();
    this.#pc.ontrack = (event) => {
      this.#remote = event.streams[0] ?? platform.createMediaStream([event.track]);
      void this.#output.play(this.#remote);
    };
    this.#pc.onconnectionstatechange = () => {
      switch (this.#pc.connectionState) {
        case 'connected':
          return this.emit('connected');
        case 'disconnected':
          return this.emit('interrupted');
        case 'failed':
          return this.emit('failed');
        default:
          return;
      }
    };
  }

  /** Whether audio flows now. */
  get isConnected(): boolean {
    return this.#pc.connectionState === 'connected';
  }

  /** The microphone stream, once acquired. */
  get localStream(): MediaStream | null {
    return this.#local;
  }

  /** The far end's stream, once it arrived. */
  get remoteStream(): MediaStream | null {
    return this.#remote;
  }

  /** The peer connection (for stats). */
  get peerConnection(): RTCPeerConnection {
    return this.#pc;
  }

  /** Opens the microphone; throws a 31401/31402 error on failure. */
  async openMicrophone(constraints: MediaTrackConstraints | boolean = true): Promise<void> {
    let stream: MediaStream;
    try {
      stream = await this.platform.getUserMedia({ audio: constraints });
    } catch (error) {
      throw microphoneError(error);
    }
    const [track] = stream.getAudioTracks();
    if (!track) throw createError(31402, 'The input stream has no audio track.');
    if (this.#closed) {
      track.stop();
      return;
    }
    this.#local = stream;
    track.enabled = !this.#muted;
  }

  /**
   * Puts the microphone on the call's audio transceiver: the one a remote offer created, or a
   * new one for our own offer. (A transceiver made by `addTransceiver` before a remote offer
   * is never matched to the offer's m-line, so the order matters.)
   */
  async #attachMicrophone(): Promise<void> {
    const stream = this.#local;
    const track = stream?.getAudioTracks()[0];
    if (!stream || !track) throw createError(31402, 'The microphone is not open.');
    let transceiver = this.#pc.getTransceivers().find((t) => t.receiver.track.kind === 'audio');
    if (transceiver) {
      await transceiver.sender.replaceTrack(track);
      transceiver.sender.setStreams?.(stream);
      transceiver.direction = 'sendrecv';
    } else {
      transceiver = this.#pc.addTransceiver(track, { direction: 'sendrecv', streams: [stream] });
    }
    const codecs = this.platform.audioCodecs();
    if (codecs && typeof transceiver.setCodecPreferences === 'function') {
      transceiver.setCodecPreferences(preferCodecs(codecs));
    }
  }

  /** Creates the offer of an outgoing call; resolves with the SDP, candidates included. */
  async createOffer(): Promise<string> {
    await this.#attachMicrophone();
    try {
      await this.#pc.setLocalDescription(await this.#pc.createOffer());
    } catch (error) {
      throw createError(53400, `Error creating the offer: ${describe(error)}`, error);
    }
    return this.#gatheredSdp();
  }

  /** Answers an incoming call's offer; resolves with the SDP, candidates included. */
  async createAnswer(offerSdp: string): Promise<string> {
    try {
      await this.#pc.setRemoteDescription({ type: 'offer', sdp: offerSdp });
    } catch (error) {
      throw createError(53402, `Error processing the offer: ${describe(error)}`, error);
    }
    await this.#attachMicrophone();
    try {
      await this.#pc.setLocalDescription(await this.#pc.createAnswer());
    } catch (error) {
      throw createError(53400, `Error creating the answer: ${describe(error)}`, error);
    }
    return this.#gatheredSdp();
  }

  /** Applies the far end's answer to our offer. */
  async applyAnswer(sdp: string): Promise<void> {
    if (this.#pc.signalingState !== 'have-local-offer') return;
    try {
      await this.#pc.setRemoteDescription({ type: 'answer', sdp });
    } catch (error) {
      throw createError(53402, `Error processing answer: ${describe(error)}`, error);
    }
  }

  /** Mutes or unmutes the microphone (the track stays; it sends silence). */
  setMuted(muted: boolean): void {
    this.#muted = muted;
    for (const track of this.#local?.getAudioTracks() ?? []) track.enabled = !muted;
  }

  /** Plays the far end's audio on another output device. */
  setOutputDevice(deviceId: string): Promise<void> {
    return this.#output.setSinkId(deviceId);
  }

  /** Stops everything. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pc.ontrack = null;
    this.#pc.onconnectionstatechange = null;
    for (const track of this.#local?.getTracks() ?? []) track.stop();
    this.#output.stop();
    this.#pc.close();
  }

  #gatheredSdp(): Promise<string> {
    const pc = this.#pc;
    const { clock } = this.platform;
    return new Promise((resolve) => {
      const done = () => {
        clock.clearTimeout(timer);
        pc.removeEventListener('icegatheringstatechange', check);
        resolve(pc.localDescription?.sdp ?? '');
      };
      const check = () => {
        if (pc.iceGatheringState === 'complete') done();
      };
      // Past the timeout the SDP goes out with the candidates gathered so far.
      const timer = clock.setTimeout(done, ICE_GATHERING_TIMEOUT_MS);
      pc.addEventListener('icegatheringstatechange', check);
      check();
    });
  }
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));
