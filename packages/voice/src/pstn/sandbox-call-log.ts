/**
 * The sandbox phone network's call log: every call the virtual network placed (a number dialled
 * into a call) or received (a virtual caller ringing in), with its caller ID, its progress and the
 * digits the phone party received. It is kept on the main thread by `VoiceEngine`, from the
 * commands it gives and the media events it gets, so showing it never waits on a media worker.
 */
import { SANDBOX_CALL_LOG_LIMIT } from '../constants';
import type { DialFailure, ParticipantId } from '../media/media-engine';
import { MediaStateMachine, statesOf } from '../media/state-machine';
import {
  SANDBOX_CALL_TRANSITIONS,
  type SandboxCallEvent,
  type SandboxCallState,
} from './sandbox-call-state';

/** One call of the sandbox phone network, as `VoiceEngine.sandboxCalls()` shows it. */
export interface SandboxCall {
  /** The call (room) the phone party is in. */
  callSid: string;
  /** The phone party: the `participantId` of its `phone.*` events. */
  participantId: ParticipantId;
  /**
   * `outbound`: the network placed a call to `to` (a number dialled into the call);
   * `inbound`: a caller from `from` called `to` (one of the account's numbers).
   */
  direction: 'outbound' | 'inbound';
  /** The number called (E.164). */
  to: string;
  /** The number the call came from (E.164): the caller ID, or null when it had none. */
  from: string | null;
  /** When the call was placed (ISO 8601). */
  startedAt: string;
  /** Where the call is now; see `SANDBOX_CALL_TRANSITIONS`. */
  state: SandboxCallState;
  /** When the call was answered (ISO 8601), or null if it was not (yet). */
  answeredAt: string | null;
  /** When the call ended, was refused or failed (ISO 8601), or null while it goes on. */
  endedAt: string | null;
  /** DTMF digits the phone party received, in order. */
  digits: string;
}

/** What a new entry of the log is given; the rest it keeps itself. */
export type PlacedSandboxCall = Pick<
  SandboxCall,
  'callSid' | 'participantId' | 'direction' | 'to' | 'from'
>;

/** Options of a {@link SandboxCallLog}. */
export interface SandboxCallLogOptions {
  /** Wall-clock time in ms since the Unix epoch (the engine's `Clock.now`). */
  now: () => number;
  /** Calls kept (the newest); default {@link SANDBOX_CALL_LOG_LIMIT}. */
  limit?: number;
}

/** A call being logged: its fields, its lifecycle. */
interface Entry {
  call: Omit<SandboxCall, 'state'>;
  lifecycle: MediaStateMachine<SandboxCallState, SandboxCallEvent>;
}

/** States no event leaves. */
const FINAL_STATES: ReadonlySet<SandboxCallState> = new Set(
  statesOf<SandboxCallState, SandboxCallEvent>(SANDBOX_CALL_TRANSITIONS).filter(
    (state) => Object.keys(SANDBOX_CALL_TRANSITIONS[state]).length === 0,
  ),
);

/**
 * The call log: calls in the order they were placed, the oldest forgotten past the limit. Facts
 * that come too late for a call's state (a hang-up reported after the call was ended by a
 * command) change nothing.
 */
export class SandboxCallLog {
  readonly #entries = new Map<ParticipantId, Entry>();
  readonly #now: () => number;
  readonly #limit: number;

  /** Creates an empty log. */
  constructor(options: SandboxCallLogOptions) {
    this.#now = options.now;
    this.#limit = Math.max(1, Math.floor(options.limit ?? SANDBOX_CALL_LOG_LIMIT));
  }

  /** A call was placed (or a caller rang in): it is logged as `ringing`. */
  placed(call: PlacedSandboxCall): void {
    this.#entries.delete(call.participantId);
    this.#entries.set(call.participantId, {
      call: { ...call, startedAt: this.#timestamp(), answeredAt: null, endedAt: null, digits: '' },
      lifecycle: new MediaStateMachine(
        `sandbox call ${call.participantId}`,
        SANDBOX_CALL_TRANSITIONS,
        'ringing',
      ),
    });
    for (const oldest of this.#entries.keys()) {
      if (this.#entries.size <= this.#limit) break;
      this.#entries.delete(oldest);
    }
  }

  /** The phone party answered. */
  answered(participantId: ParticipantId): void {
    const entry = this.#entries.get(participantId);
    if (entry?.lifecycle.trySend('answer')) entry.call.answeredAt = this.#timestamp();
  }

  /** The phone party did not answer, for `reason`. */
  unanswered(participantId: ParticipantId, reason: DialFailure): void {
    this.#finish(this.#entries.get(participantId), reason);
  }

  /** The call ended (either side hung up, or it was hung up while ringing). */
  ended(participantId: ParticipantId): void {
    this.#finish(this.#entries.get(participantId), 'end');
  }

  /** Every call of `callSid` still ringing or answered ends (the whole call was hung up). */
  endedRoom(callSid: string): void {
    for (const entry of this.#entries.values())
      if (entry.call.callSid === callSid) this.#finish(entry, 'end');
  }

  /** Every call still ringing or answered ends (the engine closed). */
  endedAll(): void {
    for (const entry of this.#entries.values()) this.#finish(entry, 'end');
  }

  /** The phone party received `digits`. */
  received(participantId: ParticipantId, digits: string): void {
    const entry = this.#entries.get(participantId);
    if (entry) entry.call.digits += digits;
  }

  /**
   * Whether the log has the call and it is over (ended, busy, unanswered or failed): later news
   * of it (ringing, an answer, a hang-up) comes too late to be reported.
   */
  isOver(participantId: ParticipantId): boolean {
    const entry = this.#entries.get(participantId);
    return entry !== undefined && FINAL_STATES.has(entry.lifecycle.state);
  }

  /** The logged calls, oldest first (copies). */
  list(): SandboxCall[] {
    return [...this.#entries.values()].map(({ call, lifecycle }) => ({
      ...call,
      state: lifecycle.state,
    }));
  }

  #finish(entry: Entry | undefined, event: SandboxCallEvent): void {
    if (entry?.lifecycle.trySend(event)) entry.call.endedAt = this.#timestamp();
  }

  #timestamp(): string {
    return new Date(this.#now()).toISOString();
  }
}
