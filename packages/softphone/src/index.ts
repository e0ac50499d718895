/**
 * Leadline's softphone SDK: a `Device` that registers with the signalling gateway and places
 * and receives `Call`s, with the official Twilio Voice SDK's public surface.
 */
export {
  Device,
  DeviceState,
  type DeviceOptions,
  type DeviceEvents,
  type ConnectOptions,
} from './device/device';
export { Call, CallState, CallDirection, type CallEvents } from './call/call';
export {
  SoftphoneError,
  AuthorizationError,
  GeneralError,
  MalformedRequestError,
  SignalingError,
  MediaError,
  UserMediaError,
  SipError,
  InvalidArgumentError,
  InvalidStateError,
  NotSupportedError,
  createError,
} from './errors/errors';
export {
  browserPlatform,
  type Platform,
  type Clock,
  type SocketLike,
  type AudioOutput,
} from './platform/platform';
