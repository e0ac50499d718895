/**
 * Test and bench helpers of the voice package (`@leadline/voice/testing`): a werift peer that
 * plays a browser, a PStream client socket, listening helpers, and the pieces the bench's light
 * client legs are made of. Not for production code.
 */
export { WeriftBrowser, type WeriftBrowserOptions } from '../media/werift-browser';
export { engineAudioCodecs } from '../media/peer-factory';
export {
  directRtpSend,
  disableDefaultStunServer,
  resumeIceAfterRestart,
} from '../media/werift-internals';
export { RtpPacketizer } from '../media/rtp-packetizer';
export { encodeMuLaw, decodeMuLaw } from '../codec/mu-law';
export { PStreamTestClient, type ReceivedFrame } from './pstream-test-client';
export { FakeMediaEngine } from './fake-media-engine';
export { FakeClock } from './fake-clock';
export * from './audio-checks';
