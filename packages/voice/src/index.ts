export * from './media/media-engine';
export * from './voice-engine';
export {
  SignallingGateway,
  type GatewayEvents,
  type ClientLeftReason,
  type GatewayStats,
} from './gateway/signalling-gateway';
export type { TokenCheck } from './gateway/client-session';
export type { SignallingClient } from './gateway/signalling-gateway';
export { systemClock, type Clock } from './gateway/clock';
export { WorkerMediaEngine } from './media/worker-media-engine';
export { defaultMediaWorkerUrl } from './media/media-worker-url';
export type { WorkerStats } from './media/worker-protocol';
export { defaultAssetsDir } from './pstn/clips';
export type { PartyRecord } from './pstn/virtual-party';
export type { SandboxCall } from './pstn/sandbox-call-log';
export { SANDBOX_CALL_STATES, type SandboxCallState } from './pstn/sandbox-call-state';
export {
  AUTH_DEADLINE_CLOSE,
  AUTH_DEADLINE_MS,
  RECONNECT_GRACE_MS,
} from './gateway/gateway-constants';
export { MEDIA_ERRORS, MediaError, type MediaErrorName } from './media/media-errors';
export { SANDBOX_CALL_LOG_LIMIT, SANDBOX_NUMBERS } from './constants';
export {
  SANDBOX_NUMBER_PLAN,
  resolveNumber,
  type NumberPlan,
  type NumberPlanRow,
  type PartyBehaviour,
} from './pstn/number-plan';
