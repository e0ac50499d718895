/**
 * The media side of one call: the microphone, one `RTCPeerConnection` with a single audio
 * transceiver (PCMU preferred, then Opus), the remote audio output, level meters, stats and the
 * DTMF sender. SDP is exchanged whole (no trickle ICE): offers and answers wait for ICE
 * gathering, at most 15 s. ICE restarts make a new offer on the same connection.
 */
import { TypedEmitter } from '@leadline/contracts/lib';
import { CODEC_PREFERENCES, ICE_GATHERING_TIMEOUT_MS } from '../constants';
import { createError, InvalidArgumentError, type SoftphoneError } from '../errors/errors';
import {
  stopTracks,
  type AudioOutput,
  type Platform,
  type VolumeMeter,
} from '../platform/platform';

/** Events of a media session (the connection state, as `RTCPeerConnection` reports it). */
export type MediaSessionEvents = {
  /** ICE and DTLS are up: audio flows. */
  connected: [];
  /** Connectivity checks are failing (the connection may come back by itself). */
  disconnected: [];
  /** The connection failed (an ICE restart may bring it back). */
  failed: [];
};

/** A codec name of `DeviceOptions.codecPreferences`. */
export type CodecName = (typeof CODEC_PREFERENCES)[number];

/** Orders the browser's audio codecs by preference (default PCMU, then Opus), then the rest. */
export function preferCodecs(
  codecs: RTCRtpCodec[],
  preferences: readonly string[] = CODEC_PREFERENCES,
): RTCRtpCodec[] {
  const rank = (c: RTCRtpCodec) => {
    const index = preferences.indexOf(c.mimeType.split('/')[1]?.toLowerCase() ?? '');
    return index === -1 ? preferences.length : index;
  };
  return [...codecs].sort((a, b) => rank(a) - rank(b));
}

/**
 * Maps a `getUserMedia` failure to the spec's microphone errors: 31401 PermissionDeniedError
 * for code 31208 or the browser's not-allowed names, else 31402 AcquisitionFailedError.
 */
export function microphoneError(error: unknown): SoftphoneError {
  const { name, code } = (error ?? {}) as { name?: string; code?: number };
  const denied = code === 31208 || name === 'NotAllowedError' || name === 'PermissionDeniedError';
  return createError(denied ? 31401 : 31402, undefined, error);
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * A failed offer or answer: a 31000 media error whose message starts with what failed (spec
 * section 8: 'Error creating the offer', 'Error processing answer'), then the browser's reason.
 * The official SDK raises 53400/53402 for these; its own legacy code, and the spec's, is 31000.
 */
const sdpError = (what: string, error: unknown): SoftphoneError =>
  createError(31000, `${what}: ${describe(error)}`, error);

/** Checks an input stream: it must exist and have an audio track. */
export function checkInputStream(stream: MediaStream | null): MediaStream {
  if (!stream) throw new InvalidArgumentError('Can not set input stream to null while in a call');
  if (!stream.getAudioTracks().length) {
    throw new InvalidArgumentError('Supplied input stream has no audio tracks');
  }
  return stream;
}

/** One call's media. */
export class MediaSession extends TypedEmitter<MediaSessionEvents> {
  readonly #pc: RTCPeerConnection;
  readonly #output: AudioOutput;
  #local: MediaStream | null = null;
  #remote: MediaStream | null = null;
  #sender: RTCRtpSender | null = null;
  #meters: VolumeMeter[] = [];
  #muted = false;
  #closed = false;
  /** The answer being applied to our pending offer, if any. */
  #applyingAnswer: Promise<void> | null = null;

  constructor(
    private readonly platform: Platform,
    configuration: RTCConfiguration,
    private readonly codecPreferences: readonly string[] = CODEC_PREFERENCES,
  ) {
    super();
    const pc = (this.#pc = platform.createPeerConnection({
      bundlePolicy: 'max-bundle',
      ...configuration,
    }));
    this.#output = platform.createAudioOutput();
    pc.ontrack = (event) => {
      this.#remote = event.streams[0] ?? platform.createMediaStream([event.track]);
      void this.#output.play(this.#remote);
    };
    pc.onconnectionstatechange = () => {
      const state = pc.connectionState;
      if (state === 'connected' || state === 'disconnected' || state === 'failed') this.emit(state);
    };
  }

  /** Whether audio flows now. */
  get isConnected(): boolean {
    return this.#pc.connectionState === 'connected';
  }

  /** The microphone stream of the call, once acquired. */
  get localStream(): MediaStream | null {
    return this.#local;
  }

  /** The far end's stream, once it arrived. */
  get remoteStream(): MediaStream | null {
    return this.#remote;
  }

  /** The current local SDP (for a signalling reconnect). */
  get localSdp(): string {
    return this.#pc.localDescription?.sdp ?? '';
  }

  /**
   * Opens the microphone: a copy of `input` when given (the audio helper's chosen device), else
   * the default one. Throws a 31401/31402 error when the browser refuses.
   */
  async openMicrophone(input: MediaStream | null): Promise<void> {
    let stream: MediaStream;
    if (input) {
      stream = this.platform.createMediaStream(
        checkInputStream(input)
          .getAudioTracks()
          .map((track) => track.clone()),
      );
    } else {
      try {
        stream = await this.platform.getUserMedia({ audio: true });
      } catch (error) {
        throw microphoneError(error);
      }
      if (!stream.getAudioTracks().length) {
        throw createError(31402, 'The input stream has no audio track.');
      }
    }
    if (this.#closed) return stopTracks(stream);
    this.#local = stream;
    this.setMuted(this.#muted);
  }

  /** Replaces the microphone during the call (the track of the sender; no renegotiation). */
  async replaceInput(input: MediaStream | null): Promise<void> {
    const track = checkInputStream(input).getAudioTracks()[0]!.clone();
    track.enabled = !this.#muted;
    await this.#sender?.replaceTrack(track);
    const old = this.#local;
    this.#local = this.platform.createMediaStream([track]);
    stopTracks(old);
    this.#restartMeters();
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
    this.#sender = transceiver.sender;
    const codecs = this.platform.audioCodecs();
    if (codecs && typeof transceiver.setCodecPreferences === 'function') {
      transceiver.setCodecPreferences(preferCodecs(codecs, this.codecPreferences));
    }
  }

  /** Creates the offer of an outgoing call; resolves with the SDP, candidates included. */
  async createOffer(): Promise<string> {
    await this.#attachMicrophone();
    return this.#offer({});
  }

  /** Creates an ICE restart offer on the live connection; resolves with the SDP. */
  restartIce(): Promise<string> {
    return this.#offer({ iceRestart: true });
  }

  async #offer(options: RTCOfferOptions): Promise<string> {
    try {
      await this.#pc.setLocalDescription(await this.#pc.createOffer(options));
    } catch (error) {
      throw sdpError('Error creating the offer', error);
    }
    return this.#gatheredSdp();
  }

  /** Answers an incoming call's offer; resolves with the SDP, candidates included. */
  async createAnswer(offerSdp: string): Promise<string> {
    try {
      await this.#pc.setRemoteDescription({ type: 'offer', sdp: offerSdp });
    } catch (error) {
      throw sdpError('Error processing the offer', error);
    }
    await this.#attachMicrophone();
    try {
      await this.#pc.setLocalDescription(await this.#pc.createAnswer());
    } catch (error) {
      throw sdpError('Error creating the answer', error);
    }
    return this.#gatheredSdp();
  }

  /** Whether an offer of ours waits for its answer. */
  get awaitingAnswer(): boolean {
    return this.#pc.signalingState === 'have-local-offer';
  }

  /**
   * Applies the far end's answer to our offer (ignored when no offer is pending). A second
   * answer to the same offer while the first is being applied (early media's `ringing` and the
   * `answer` back to back, as when a number answers at once) waits for the first instead of
   * applying it again in the wrong state.
   */
  applyAnswer(sdp: string): Promise<void> {
    if (this.#applyingAnswer) return this.#applyingAnswer;
    if (!this.awaitingAnswer) return Promise.resolve();
    const applying = this.#pc
      .setRemoteDescription({ type: 'answer', sdp })
      .catch((error: unknown) => {
        throw sdpError('Error processing answer', error);
      })
      .finally(() => {
        if (this.#applyingAnswer === applying) this.#applyingAnswer = null;
      });
    this.#applyingAnswer = applying;
    return applying;
  }

  /** Withdraws an offer of ours that will not be sent (a superseded ICE restart). */
  async rollback(): Promise<void> {
    if (!this.awaitingAnswer) return;
    await this.#pc.setLocalDescription({ type: 'rollback' }).catch(() => undefined);
  }

  /** Whether the microphone is muted. */
  get isMuted(): boolean {
    return this.#muted;
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

  /** The connection's statistics. */
  getStats(): Promise<RTCStatsReport> {
    return this.#pc.getStats();
  }

  /** The RFC 4733 sender of the microphone's track, if the browser can send DTMF now. */
  get dtmfSender(): RTCDTMFSender | null {
    const dtmf = this.#sender?.dtmf;
    return dtmf && dtmf.canInsertDTMF !== false ? dtmf : null;
  }

  /** Reads the input and output levels (0..1); starts the meters on first use. */
  readVolumes(): [number, number] {
    if (!this.#meters.length) this.#restartMeters();
    const [input, output] = this.#meters;
    return [input?.read() ?? 0, output?.read() ?? 0];
  }

  #restartMeters(): void {
    for (const meter of this.#meters) meter.stop();
    this.#meters = [];
    if (!this.#local || !this.#remote) return;
    const input = this.platform.createVolumeMeter(this.#local);
    const output = this.platform.createVolumeMeter(this.#remote);
    if (input && output) this.#meters = [input, output];
    else [input, output].forEach((meter) => meter?.stop());
  }

  /** Stops everything. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#pc.ontrack = null;
    this.#pc.onconnectionstatechange = null;
    for (const meter of this.#meters) meter.stop();
    stopTracks(this.#local);
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
