/**
 * The server's one telephony port (`@leadline/contracts/telephony`; the engine in
 * `@leadline/voice` implements it). Call flows and call-control endpoints use only this; the
 * embedded voice engine (`VoiceEngine`) and the Twilio provider (`twilio/twilio-telephony.ts`)
 * implement it.
 */
export type { AgentRole, Telephony, TelephonyEvent } from '@leadline/contracts/telephony';
