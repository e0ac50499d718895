/**
 * The shared fake environment for the SDK's unit tests: fake clock, sockets the test drives
 * as the gateway, and minimal fakes of the media APIs.
 */
import type { AudioOutput, Platform } from '../platform/platform';
import { FakeClock } from './fake-clock';
import { FakeSocket } from './fake-socket';

/** A minimal RTCPeerConnection: enough for calls that never reach media in unit tests. */
export class FakePeerConnection extends EventTarget {
  connectionState: RTCPeerConnectionState = 'new';
  signalingState: RTCSignalingState = 'stable';
  iceGatheringState: RTCIceGatheringState = 'complete';
  localDescription: RTCSessionDescriptionInit | null = null;
  ontrack: ((event: RTCTrackEvent) => void) | null = null;
  onconnectionstatechange: (() => void) | null = null;
  closed = false;

  readonly transceivers: RTCRtpTransceiver[] = [];
  addTransceiver(): RTCRtpTransceiver {
    const transceiver = {
      direction: 'sendrecv',
      receiver: { track: { kind: 'audio' } },
      sender: { replaceTrack: () => Promise.resolve(), setStreams: () => undefined },
      setCodecPreferences: () => undefined,
    } as unknown as RTCRtpTransceiver;
    this.transceivers.push(transceiver);
    return transceiver;
  }
  getTransceivers(): RTCRtpTransceiver[] {
    return this.transceivers;
  }
  async createOffer(): Promise<RTCSessionDescriptionInit> {
    return { type: 'offer', sdp: 'v=0 fake-offer' };
  }
  async createAnswer(): Promise<RTCSessionDescriptionInit> {
    return { type: 'answer', sdp: 'v=0 fake-answer' };
  }
  async setLocalDescription(description: RTCSessionDescriptionInit): Promise<void> {
    this.localDescription = description;
    this.signalingState = description.type === 'offer' ? 'have-local-offer' : 'stable';
  }
  async setRemoteDescription(description: RTCSessionDescriptionInit): Promise<void> {
    this.signalingState = description.type === 'offer' ? 'have-remote-offer' : 'stable';
    // A remote offer's audio m-line makes its own transceiver, as in a browser.
    if (description.type === 'offer' && this.transceivers.length === 0) this.addTransceiver();
  }
  /** The test moves the connection state. */
  setConnectionState(state: RTCPeerConnectionState): void {
    this.connectionState = state;
    this.onconnectionstatechange?.();
  }
  close(): void {
    this.closed = true;
    this.connectionState = 'closed';
  }
}

/** A fake microphone track and stream. */
function fakeStream(): MediaStream {
  const track = {
    kind: 'audio',
    enabled: true,
    stop: () => undefined,
  } as unknown as MediaStreamTrack;
  return {
    getAudioTracks: () => [track],
    getTracks: () => [track],
  } as unknown as MediaStream;
}

/** The fake platform and handles on what it created. */
export interface FakeEnvironment {
  platform: Platform;
  clock: FakeClock;
  sockets: FakeSocket[];
  peerConnections: FakePeerConnection[];
  /** The latest socket. */
  socket(): FakeSocket;
  /** What `getUserMedia` does next (default: a stream with one audio track). */
  microphone: () => Promise<MediaStream>;
}

/** Makes a fake environment. */
export function fakeEnvironment(): FakeEnvironment {
  const clock = new FakeClock();
  const env: FakeEnvironment = {
    clock,
    sockets: [],
    peerConnections: [],
    socket: () => env.sockets.at(-1)!,
    microphone: () => Promise.resolve(fakeStream()),
    platform: {
      clock,
      random: () => 0.5,
      createSocket: (url) => {
        const socket = new FakeSocket(url);
        env.sockets.push(socket);
        return socket;
      },
      createPeerConnection: () => {
        const pc = new FakePeerConnection();
        env.peerConnections.push(pc);
        return pc as unknown as RTCPeerConnection;
      },
      getUserMedia: () => env.microphone(),
      audioCodecs: () => null,
      createMediaStream: () => fakeStream(),
      createAudioOutput: (): AudioOutput => ({
        play: () => Promise.resolve(),
        setSinkId: () => Promise.resolve(),
        stop: () => undefined,
      }),
      location: { protocol: 'http:', host: 'localhost:3000' },
      userAgent: 'fake',
    },
  };
  return env;
}
