/**
 * Leadline's softphone SDK: a `Device` that registers with the signalling gateway and places
 * and receives `Call`s, with the official Twilio Voice SDK's public surface.
 */
export {
  Device,
  DeviceState,
  isLegacyEdge,
  type DeviceOptions,
  type DeviceEvents,
  type ConnectOptions,
} from './device/device';
export {
  Call,
  CallState,
  CallDirection,
  Codec,
  FeedbackIssue,
  FeedbackScore,
  type CallEvents,
  type CallMessage,
  type CallPublisher,
  type CallWarningName,
} from './call/call';
export type { CallFeedback } from './call/feedback';
export { AudioHelper, type AudioHelperEvents } from './audio/audio-helper';
export { OutputDeviceCollection } from './audio/output-device-collection';
export type { SoundName } from './audio/sounds';
export type { CallSample, QualityWarning, QualityWarningName } from './quality/stats-monitor';
export { computeMos } from './quality/mos';
export {
  SoftphoneError,
  AuthorizationError,
  GeneralError,
  MalformedRequestError,
  SignalingError,
  MediaError,
  UserMediaError,
  SipError,
  AuthorizationErrors,
  ClientErrors,
  SIPServerErrors,
  GeneralErrors,
  MalformedRequestErrors,
  UserMediaErrors,
  SignalingErrors,
  MediaErrors,
  InvalidArgumentError,
  InvalidStateError,
  NotSupportedError,
  createError,
  type SoftphoneErrorClass,
} from './errors/errors';
export type { ErrorCode } from './errors/error-table';
export {
  browserPlatform,
  type Platform,
  type Clock,
  type SocketLike,
  type AudioOutput,
  type VolumeMeter,
  type SoundElement,
  type MediaDevicesLike,
} from './platform/platform';
