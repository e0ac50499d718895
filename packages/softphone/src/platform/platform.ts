/**
 * Everything the SDK needs from the browser, behind small interfaces: the SDK's logic never
 * touches a global directly, so tests run it with fakes and a fake clock.
 */
import { NotSupportedError } from '../errors/errors';

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

/** What the SDK takes from its environment. */
export interface Platform {
  clock: Clock;
  random(): number;
  createSocket(url: string): SocketLike;
  createPeerConnection(configuration: RTCConfiguration): RTCPeerConnection;
  getUserMedia(constraints: MediaStreamConstraints): Promise<MediaStream>;
  /** The browser's audio codecs (`RTCRtpReceiver.getCapabilities('audio')`), if it tells. */
  audioCodecs(): RTCRtpCodec[] | null;
  /** A stream of the given tracks. */
  createMediaStream(tracks: MediaStreamTrack[]): MediaStream;
  /** Plays a remote stream; returns a handle to stop it and route it to an output device. */
  createAudioOutput(): AudioOutput;
  /** The page's location (for the default signalling address). */
  location: { protocol: string; host: string } | null;
  userAgent: string;
}

/** A sink for a remote stream (an `<audio>` element in browsers). */
export interface AudioOutput {
  play(stream: MediaStream): Promise<void>;
  setSinkId(deviceId: string): Promise<void>;
  stop(): void;
}

/** WebSocket's OPEN ready state. */
export const SOCKET_OPEN = 1;

/** The real browser, or a `NotSupportedError` when WebRTC is missing. */
export function browserPlatform(): Platform {
  if (typeof globalThis.RTCPeerConnection !== 'function' || !globalThis.navigator?.mediaDevices) {
    throw new NotSupportedError(
      'Leadline softphone requires WebRTC browser support (RTCPeerConnection and getUserMedia).',
    );
  }
  return {
    clock: {
      now: () => Date.now(),
      setTimeout: (fn, ms) => globalThis.setTimeout(fn, ms),
      clearTimeout: (h) => globalThis.clearTimeout(h as number),
      setInterval: (fn, ms) => globalThis.setInterval(fn, ms),
      clearInterval: (h) => globalThis.clearInterval(h as number),
    },
    random: () => Math.random(),
    createSocket: (url) => new WebSocket(url),
    createPeerConnection: (configuration) => new RTCPeerConnection(configuration),
    getUserMedia: (constraints) => navigator.mediaDevices.getUserMedia(constraints),
    audioCodecs: () => RTCRtpReceiver.getCapabilities?.('audio')?.codecs ?? null,
    createMediaStream: (tracks) => new MediaStream(tracks),
    createAudioOutput: () => {
      const element = document.createElement('audio');
      element.autoplay = true;
      return {
        async play(stream) {
          element.srcObject = stream;
          await element.play().catch(() => undefined);
        },
        async setSinkId(deviceId) {
          const sinkable = element as HTMLAudioElement & {
            setSinkId?: (id: string) => Promise<void>;
          };
          if (sinkable.setSinkId) await sinkable.setSinkId(deviceId);
        },
        stop() {
          element.pause();
          element.srcObject = null;
        },
      };
    },
    location:
      typeof location === 'undefined' ? null : { protocol: location.protocol, host: location.host },
    userAgent: navigator.userAgent,
  };
}
