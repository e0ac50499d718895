/**
 * Who takes part in a call of the telephony port, and how: an agent's WebRTC leg or a phone
 * party (a number dialled into the call, or a caller who called in).
 */

/** Identifies one participant of a call (an agent's leg or a phone party). */
export type ParticipantId = string;

/**
 * How a participant takes part in its call; the engine's mixer decides from it who hears whom:
 * - `agent`, `lead`, `conference`, `barge`: hear everyone else, heard by everyone;
 * - `listen`: hears everyone, heard by no one;
 * - `whisper`: hears everyone, heard only by the call's `agent`s (never by the lead).
 * Phone parties are `lead`s; agents' legs are `agent`s unless told otherwise.
 */
export type ParticipantRole = 'agent' | 'lead' | 'conference' | 'listen' | 'whisper' | 'barge';

/** How an agent takes part in a call (the mixing rule of its leg). */
export type AgentRole = Exclude<ParticipantRole, 'lead'>;

/** Why a dialled number did not answer. */
export type DialFailure = 'busy' | 'no-answer' | 'failed';

/** Why a client's side of a call ended. */
export type ClientLeftReason = 'hangup' | 'failed' | 'disconnected';
