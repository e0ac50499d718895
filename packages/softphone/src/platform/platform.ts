/**
 * Everything the SDK needs from the browser, behind small interfaces: the SDK's logic never
 * touches a global directly, so tests run it with fakes and a fake clock.
 */

/** Time and timers. */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  setInterval(fn: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/** The part of `WebSocket` the signalling client uses. */
export interface SocketLike {
  readonly readyState: number;
  onopen: ((event: Event) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

/** A sink for a remote stream (an `<audio>` element in browsers). */
export interface AudioOutput {
  play(stream: MediaStream): Promise<void>;
  setSinkId(deviceId: string): Promise<void>;
  stop(): void;
}

/** The level of a stream, read on demand (a WebAudio analyser in browsers). */
export interface VolumeMeter {
  /** The current level, 0..1 (average of the byte frequency data / 255). */
  read(): number;
  stop(): void;
}

/** One sound file, played on an output device (an `<audio>` element in browsers). */
export interface SoundElement {
  /** Starts from the beginning; resolves once it plays. */
  play(loop: boolean): Promise<void>;
  stop(): void;
  setSinkId(deviceId: string): Promise<void>;
}

/** The part of `navigator.mediaDevices` the audio helper uses besides `getUserMedia`. */
export interface MediaDevicesLike {
  enumerateDevices(): Promise<MediaDeviceInfo[]>;
  addEventListener(type: 'devicechange', listener: () => void): void;
  removeEventListener(type: 'devicechange', listener: () => void): void;
}

/** What the SDK takes from its environment. */
export interface Platform {
  clock: Clock;
  random(): number;
  /** Whether the browser has WebRTC (RTCPeerConnection and getUserMedia). */
  webRtc: boolean;
  createSocket(url: string): SocketLike;
  createPeerConnection(configuration: RTCConfiguration): RTCPeerConnection;
  getUserMedia(constraints: MediaStreamConstraints): Promise<MediaStream>;
  /** Device enumeration and `devicechange`, if the browser has them. */
  mediaDevices: MediaDevicesLike | null;
  /** Whether audio output can be routed to a chosen device (`setSinkId`). */
  canSetSinkId: boolean;
  /** The browser's audio codecs (`RTCRtpReceiver.getCapabilities('audio')`), if it tells. */
  audioCodecs(): RTCRtpCodec[] | null;
  /** A stream of the given tracks. */
  createMediaStream(tracks: MediaStreamTrack[]): MediaStream;
  /** Plays a remote stream; returns a handle to stop it and route it to an output device. */
  createAudioOutput(): AudioOutput;
  /** A level meter on a stream, or null without WebAudio. */
  createVolumeMeter(stream: MediaStream): VolumeMeter | null;
  /** A sound file (ringtone, DTMF feedback…). */
  createSound(url: string): SoundElement;
  /** The page's location (for the default signalling address). */
  location: { protocol: string; host: string } | null;
  userAgent: string;
}

/** WebSocket's OPEN ready state. */
export const SOCKET_OPEN = 1;

/** Stops every track of a stream (a no-op for `null`). */
export const stopTracks = (stream: MediaStream | null): void =>
  stream?.getTracks().forEach((t) => t.stop());

type SinkableAudio = HTMLAudioElement & { setSinkId?: (id: string) => Promise<void> };

let audioContext: AudioContext | null | undefined;

/** The real browser (`webRtc` is false when RTCPeerConnection or getUserMedia is missing). */
export function browserPlatform(): Platform {
  const g = globalThis as typeof globalThis & { AudioContext?: typeof AudioContext };
  const mediaDevices = g.navigator?.mediaDevices ?? null;
  const canSetSinkId =
    typeof HTMLAudioElement !== 'undefined' && 'setSinkId' in HTMLAudioElement.prototype;
  const newAudio = (): SinkableAudio => document.createElement('audio');
  const sinkOf = (element: SinkableAudio) => (id: string) =>
    element.setSinkId ? element.setSinkId(id) : Promise.resolve();
  return {
    clock: {
      now: () => Date.now(),
      setTimeout: (fn, ms) => setTimeout(fn, ms),
      clearTimeout: (h) => clearTimeout(h as number),
      setInterval: (fn, ms) => setInterval(fn, ms),
      clearInterval: (h) => clearInterval(h as number),
    },
    random: Math.random,
    webRtc: typeof g.RTCPeerConnection === 'function' && !!mediaDevices?.getUserMedia,
    createSocket: (url) => new WebSocket(url),
    createPeerConnection: (configuration) => new RTCPeerConnection(configuration),
    getUserMedia: (constraints) => mediaDevices.getUserMedia(constraints),
    mediaDevices,
    canSetSinkId,
    audioCodecs: () => RTCRtpReceiver.getCapabilities?.('audio')?.codecs ?? null,
    createMediaStream: (tracks) => new MediaStream(tracks),
    createAudioOutput: () => {
      const element = newAudio();
      element.autoplay = true;
      return {
        async play(stream) {
          element.srcObject = stream;
          await element.play().catch(() => undefined);
        },
        setSinkId: sinkOf(element),
        stop() {
          element.pause();
          element.srcObject = null;
        },
      };
    },
    createVolumeMeter: (stream) => {
      if (audioContext === undefined) audioContext = g.AudioContext ? new g.AudioContext() : null;
      if (!audioContext) return null;
      // Suspended without a user gesture; a call's accept or connect is usually one.
      void audioContext.resume().catch(() => undefined);
      const source = audioContext.createMediaStreamSource(stream);
      const analyser = audioContext.createAnalyser();
      analyser.fftSize = 32;
      analyser.smoothingTimeConstant = 0.3;
      source.connect(analyser);
      const bins = new Uint8Array(analyser.frequencyBinCount);
      return {
        read() {
          analyser.getByteFrequencyData(bins);
          return bins.reduce((sum, v) => sum + v, 0) / bins.length / 255;
        },
        stop: () => source.disconnect(),
      };
    },
    createSound: (url) => {
      const element = newAudio();
      element.src = url;
      element.preload = 'auto';
      return {
        play(loop) {
          element.loop = loop;
          element.currentTime = 0;
          return element.play();
        },
        stop() {
          element.pause();
          element.currentTime = 0;
        },
        setSinkId: sinkOf(element),
      };
    },
    location: typeof location === 'undefined' ? null : location,
    userAgent: g.navigator?.userAgent ?? '',
  };
}
