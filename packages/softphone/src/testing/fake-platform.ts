/**
 * The shared fake environment for the SDK's unit tests: fake clock, sockets the test drives
 * as the gateway, and small fakes of the media APIs (peer connection with stats and a DTMF
 * sender, tracks, level meters, sounds, media devices) that record what the SDK did with them.
 */
import type {
  AudioOutput,
  MediaDevicesLike,
  Platform,
  SoundElement,
  VolumeMeter,
} from '../platform/platform';
import type { DtmfSenderLike } from '../call/dtmf';
import { FakeClock } from './fake-clock';
import { FakeSocket } from './fake-socket';

/** A fake audio track. */
export class FakeTrack {
  readonly kind = 'audio';
  enabled = true;
  stopped = false;
  constructor(readonly label = 'mic') {}
  clone(): FakeTrack {
    return new FakeTrack(this.label);
  }
  stop(): void {
    this.stopped = true;
  }
}

/** A fake stream of fake tracks. */
export function fakeStream(tracks: FakeTrack[] = [new FakeTrack()]): MediaStream {
  return {
    getAudioTracks: () => tracks,
    getTracks: () => tracks,
  } as unknown as MediaStream;
}

/** The tracks of a fake stream. */
export const tracksOf = (stream: MediaStream | undefined | null): FakeTrack[] =>
  (stream?.getTracks() ?? []) as unknown as FakeTrack[];

/**
 * An RTCDTMFSender that plays its tone buffer as browsers do (W3C webrtc §7.2): one tone, then
 * `duration + gap` before the next; `tonechange` at each tone and once more, with no tone, when
 * the buffer is done; `insertDTMF` replaces the buffer. Records the calls and the tones played.
 */
export class FakeDtmfSender implements DtmfSenderLike {
  canInsertDTMF = true;
  toneBuffer = '';
  readonly inserted: Array<{ tones: string; duration: number; gap: number; at: number }> = [];
  /** Tones played, with when they started (ms on the fake clock). */
  readonly played: Array<{ tone: string; at: number }> = [];
  #duration = 100;
  #gap = 70;
  #playout: unknown = null;
  readonly #listeners = new Set<(event: { tone: string }) => void>();
  constructor(private readonly clock: FakeClock) {}
  addEventListener(_type: 'tonechange', listener: (event: { tone: string }) => void): void {
    this.#listeners.add(listener);
  }
  removeEventListener(_type: 'tonechange', listener: (event: { tone: string }) => void): void {
    this.#listeners.delete(listener);
  }
  insertDTMF(tones: string, duration = 100, gap = 70): void {
    this.inserted.push({ tones, duration, gap, at: this.clock.now() });
    this.toneBuffer = tones.toUpperCase();
    this.#duration = duration;
    this.#gap = gap;
    if (this.#playout === null) this.#playout = this.clock.setTimeout(() => this.#play(), 0);
  }
  #play(): void {
    const tone = this.toneBuffer.slice(0, 1);
    this.toneBuffer = this.toneBuffer.slice(1);
    if (tone) this.played.push({ tone, at: this.clock.now() });
    this.#playout = tone
      ? this.clock.setTimeout(() => this.#play(), this.#duration + this.#gap)
      : null;
    for (const listener of [...this.#listeners]) listener({ tone });
  }
}

/** Counters a test sets for the next `getStats()`. */
export interface FakeStats {
  bytesSent: number;
  bytesReceived: number;
  packetsSent: number;
  packetsReceived: number;
  packetsLost: number;
  /** seconds, as browsers report it */
  jitter: number;
  /** seconds */
  roundTripTime: number;
}

/** A minimal RTCPeerConnection: signalling states, transceivers, stats, DTMF. */
export class FakePeerConnection extends EventTarget {
  connectionState: RTCPeerConnectionState = 'new';
  signalingState: RTCSignalingState = 'stable';
  iceGatheringState: RTCIceGatheringState = 'complete';
  localDescription: RTCSessionDescriptionInit | null = null;
  remoteDescription: RTCSessionDescriptionInit | null = null;
  ontrack: ((event: RTCTrackEvent) => void) | null = null;
  onconnectionstatechange: (() => void) | null = null;
  closed = false;
  /** Offers made, with their options (ICE restarts have `iceRestart`). */
  readonly offers: RTCOfferOptions[] = [];
  /** Tracks put on the sender, in order. */
  readonly sentTracks: FakeTrack[] = [];
  readonly dtmf: FakeDtmfSender;
  stats: FakeStats = {
    bytesSent: 0,
    bytesReceived: 0,
    packetsSent: 0,
    packetsReceived: 0,
    packetsLost: 0,
    jitter: 0,
    roundTripTime: 0.05,
  };
  /** Whether the sender has a DTMF sender (browsers without RTCDTMFSender: false). */
  hasDtmf = true;
  readonly transceivers: RTCRtpTransceiver[] = [];
  /** The codec orders given to `setCodecPreferences`, in order. */
  readonly codecPreferences: RTCRtpCodec[][] = [];

  /**
   * @param refusal - when it gives a reason, `createOffer` rejects with it (as a browser that
   *   cannot make an offer, e.g. with no codec in common)
   */
  constructor(
    private readonly clock: FakeClock,
    private readonly refusal: () => string | null = () => null,
  ) {
    super();
    this.dtmf = new FakeDtmfSender(clock);
  }

  addTransceiver(track?: FakeTrack): RTCRtpTransceiver {
    if (track instanceof FakeTrack) this.sentTracks.push(track);
    const sentTracks = this.sentTracks;
    const codecPreferences = this.codecPreferences;
    const dtmfOf = () => (this.hasDtmf ? this.dtmf : null);
    const transceiver = {
      direction: 'sendrecv',
      receiver: { track: { kind: 'audio' } },
      sender: {
        replaceTrack: (t: FakeTrack) => {
          sentTracks.push(t);
          return Promise.resolve();
        },
        setStreams: () => undefined,
        get dtmf() {
          return dtmfOf();
        },
      },
      setCodecPreferences: (codecs: RTCRtpCodec[]) => {
        codecPreferences.push([...codecs]);
      },
    } as unknown as RTCRtpTransceiver;
    this.transceivers.push(transceiver);
    return transceiver;
  }
  getTransceivers(): RTCRtpTransceiver[] {
    return this.transceivers;
  }
  async createOffer(options: RTCOfferOptions = {}): Promise<RTCSessionDescriptionInit> {
    const refusal = this.refusal();
    if (refusal) throw new DOMException(refusal, 'OperationError');
    this.offers.push(options);
    return { type: 'offer', sdp: `v=0 fake-offer ${this.offers.length}` };
  }
  async createAnswer(): Promise<RTCSessionDescriptionInit> {
    return { type: 'answer', sdp: 'v=0 fake-answer' };
  }
  async setLocalDescription(description: RTCSessionDescriptionInit): Promise<void> {
    this.localDescription = description;
    this.signalingState = description.type === 'offer' ? 'have-local-offer' : 'stable';
  }
  async setRemoteDescription(description: RTCSessionDescriptionInit): Promise<void> {
    if (description.sdp === 'bad') throw new Error('unusable SDP');
    // As browsers: an answer needs our offer pending, checked when the operation runs.
    await Promise.resolve();
    if (description.type === 'answer' && this.signalingState !== 'have-local-offer') {
      throw new Error(
        `Failed to set remote answer sdp: Called in wrong state: ${this.signalingState}`,
      );
    }
    this.remoteDescription = description;
    this.signalingState = description.type === 'offer' ? 'have-remote-offer' : 'stable';
    // A remote offer's audio m-line makes its own transceiver, as in a browser.
    if (description.type === 'offer' && this.transceivers.length === 0) this.addTransceiver();
  }
  async getStats(): Promise<RTCStatsReport> {
    const s = this.stats;
    const report = new Map<string, Record<string, unknown>>([
      [
        'T1',
        {
          id: 'T1',
          type: 'transport',
          timestamp: this.clock.now(),
          selectedCandidatePairId: 'CP1',
        },
      ],
      ['CP1', { id: 'CP1', type: 'candidate-pair', currentRoundTripTime: s.roundTripTime }],
      ['C0', { id: 'C0', type: 'codec', mimeType: 'audio/PCMU' }],
      [
        'IN',
        {
          id: 'IN',
          type: 'inbound-rtp',
          kind: 'audio',
          codecId: 'C0',
          bytesReceived: s.bytesReceived,
          packetsReceived: s.packetsReceived,
          packetsLost: s.packetsLost,
          jitter: s.jitter,
        },
      ],
      [
        'OUT',
        {
          id: 'OUT',
          type: 'outbound-rtp',
          kind: 'audio',
          codecId: 'C0',
          bytesSent: s.bytesSent,
          packetsSent: s.packetsSent,
        },
      ],
    ]);
    return report;
  }
  /** Media flows for `ms`: counters grow as 50 packets of 160 bytes a second would. */
  flow(ms: number, { send = true, receive = true, lost = 0 } = {}): void {
    const packets = Math.round(ms / 20);
    if (send) {
      this.stats.packetsSent += packets;
      this.stats.bytesSent += packets * 160;
    }
    if (receive) {
      this.stats.packetsReceived += packets - lost;
      this.stats.packetsLost += lost;
      this.stats.bytesReceived += (packets - lost) * 160;
    }
  }
  /** The test moves the connection state. */
  setConnectionState(state: RTCPeerConnectionState): void {
    this.connectionState = state;
    this.onconnectionstatechange?.();
  }
  /** ICE gathering completes (the browser's `icegatheringstatechange`). */
  finishGathering(): void {
    this.iceGatheringState = 'complete';
    this.dispatchEvent(new Event('icegatheringstatechange'));
  }
  /** The far end's track arrives. */
  receiveTrack(): void {
    const stream = fakeStream([new FakeTrack('remote')]);
    this.ontrack?.({ streams: [stream], track: stream.getTracks()[0] } as unknown as RTCTrackEvent);
  }
  close(): void {
    this.closed = true;
    this.connectionState = 'closed';
  }
}

/** A sound that records plays and stops; `autoPlay: false` leaves `play()` pending. */
export class FakeSound implements SoundElement {
  readonly plays: Array<{ loop: boolean; at: number }> = [];
  stops = 0;
  sinkId = 'default';
  playing = false;
  constructor(
    readonly url: string,
    private readonly env: FakeEnvironment,
  ) {}
  play(loop: boolean): Promise<void> {
    this.plays.push({ loop, at: this.env.clock.now() });
    this.playing = true;
    return this.env.soundsStart ? Promise.resolve() : new Promise<void>(() => undefined);
  }
  stop(): void {
    this.stops += 1;
    this.playing = false;
  }
  async setSinkId(deviceId: string): Promise<void> {
    this.sinkId = deviceId;
  }
}

/** Media devices the test changes (`devices`, then `change()`). */
export class FakeMediaDevices implements MediaDevicesLike {
  devices: MediaDeviceInfo[] = [];
  readonly #listeners = new Set<() => void>();
  async enumerateDevices(): Promise<MediaDeviceInfo[]> {
    return [...this.devices];
  }
  addEventListener(_type: 'devicechange', listener: () => void): void {
    this.#listeners.add(listener);
  }
  removeEventListener(_type: 'devicechange', listener: () => void): void {
    this.#listeners.delete(listener);
  }
  /** The browser reports a device change. */
  change(devices: MediaDeviceInfo[]): void {
    this.devices = devices;
    for (const listener of this.#listeners) listener();
  }
}

/** A device description. */
export const mediaDevice = (kind: MediaDeviceKind, deviceId: string, label = deviceId) =>
  ({ kind, deviceId, label, groupId: 'g' }) as MediaDeviceInfo;

/** The fake platform and handles on what it created. */
export interface FakeEnvironment {
  platform: Platform;
  clock: FakeClock;
  sockets: FakeSocket[];
  peerConnections: FakePeerConnection[];
  /** Sound elements by URL. */
  sounds: Map<string, FakeSound>;
  /** Whether `play()` of a sound resolves (default true). */
  soundsStart: boolean;
  mediaDevices: FakeMediaDevices;
  /** Sinks chosen for the remote audio outputs, in order. */
  outputSinks: string[];
  /** The levels the volume meters read: [input, output]. */
  levels: [number, number];
  /** `getUserMedia` constraints, in order. */
  userMedia: MediaStreamConstraints[];
  /** The latest socket. */
  socket(): FakeSocket;
  /** The latest peer connection. */
  pc(): FakePeerConnection;
  /** What `getUserMedia` does next (default: a stream with one audio track). */
  microphone: () => Promise<MediaStream>;
  /** When set, every peer connection's `createOffer` rejects with this reason (default null). */
  offerRefusal: string | null;
  /** The browser's audio codecs (`RTCRtpReceiver.getCapabilities`); default null (unknown). */
  audioCodecs: RTCRtpCodec[] | null;
  /** ICE gathering of new peer connections: 'complete' at once (default) or still 'gathering'. */
  iceGathering: RTCIceGatheringState;
}

/** Makes a fake environment. */
export function fakeEnvironment(): FakeEnvironment {
  const clock = new FakeClock();
  const mediaDevices = new FakeMediaDevices();
  const meter = (index: 0 | 1): VolumeMeter => ({
    read: () => env.levels[index],
    stop: () => undefined,
  });
  const env: FakeEnvironment = {
    clock,
    sockets: [],
    peerConnections: [],
    sounds: new Map(),
    soundsStart: true,
    mediaDevices,
    outputSinks: [],
    levels: [0, 0],
    userMedia: [],
    socket: () => env.sockets.at(-1)!,
    pc: () => env.peerConnections.at(-1)!,
    microphone: () => Promise.resolve(fakeStream()),
    offerRefusal: null,
    audioCodecs: null,
    iceGathering: 'complete',
    platform: {
      clock,
      random: () => 0.5,
      webRtc: true,
      createSocket: (url) => {
        const socket = new FakeSocket(url);
        env.sockets.push(socket);
        return socket;
      },
      createPeerConnection: () => {
        const pc = new FakePeerConnection(clock, () => env.offerRefusal);
        pc.iceGatheringState = env.iceGathering;
        env.peerConnections.push(pc);
        return pc as unknown as RTCPeerConnection;
      },
      getUserMedia: (constraints) => {
        env.userMedia.push(constraints);
        return env.microphone();
      },
      mediaDevices,
      canSetSinkId: true,
      audioCodecs: () => env.audioCodecs,
      createMediaStream: (tracks) => fakeStream(tracks as unknown as FakeTrack[]),
      createAudioOutput: (): AudioOutput => ({
        play: () => Promise.resolve(),
        setSinkId: (id) => {
          env.outputSinks.push(id);
          return Promise.resolve();
        },
        stop: () => undefined,
      }),
      createVolumeMeter: (stream) => meter(tracksOf(stream)[0]?.label === 'remote' ? 1 : 0),
      createSound: (url) => {
        const sound = new FakeSound(url, env);
        env.sounds.set(url, sound);
        return sound;
      },
      location: { protocol: 'http:', host: 'localhost:3000' },
      userAgent: 'fake',
    },
  };
  return env;
}
