import { join } from 'node:path';
import { safeFileName, recordingFileName } from '../media/file-names';
import { MediaError } from '../media/media-errors';
import type { MediaEvent, ParticipantId, RoomId } from '../media/media-engine';
import type { LeaveReason } from '../media/participant';
import type { Scheduler } from '../media/platform';
import { loadClips, type ClipLibrary } from './clips';
import { resolveNumber, SANDBOX_NUMBER_PLAN, type NumberPlan } from './number-plan';
import { VirtualParty, type PartyCall, type PartyObserver } from './virtual-party';

/** Options of a {@link SandboxNetwork}. */
export interface SandboxNetworkOptions {
  /** Directory of the parties' recordings and records (the media core creates it). */
  sandboxDir: string;
  /** Directory of the voice clips (loaded by `start`). */
  assetsDir: string;
  /** Ringing time of a sandbox number whose row sets none. */
  answerDelayMs: number;
  /** What each number does; default `SANDBOX_NUMBER_PLAN`. */
  numberPlan?: NumberPlan;
  scheduler: Scheduler;
  /** Receives the parties' events (`party.*`). */
  emit: (event: MediaEvent) => void;
  /** Receives problems that end no call. */
  warn: (message: string) => void;
  /** Takes a party that left by itself (unanswered, hung up) out of its room. */
  detach: (participantId: ParticipantId, reason: LeaveReason) => void;
}

/** How a party's call is named in warnings: `dial <number>` or `caller <number>`. */
export function partyCallName(call: PartyCall): string {
  return call.direction === 'outbound' ? `dial ${call.number}` : `caller ${call.from}`;
}

/**
 * The virtual phone network inside the media core: it makes the phone parties of the numbers a
 * room dials (what each does, from the number plan) and of the callers who call in, with the
 * voice clips they play, and reports what they do as `party.*` events. The core puts the parties
 * in rooms, takes them out, and passes them digits.
 */
export class SandboxNetwork {
  private readonly numberPlan: NumberPlan;
  private clips: ClipLibrary | undefined;

  /** Creates a network that makes no party before `start`. */
  constructor(private readonly options: SandboxNetworkOptions) {
    this.numberPlan = options.numberPlan ?? SANDBOX_NUMBER_PLAN;
  }

  /** Loads the voice clips. */
  async start(): Promise<void> {
    this.clips = await loadClips(this.options.assetsDir);
  }

  /** The call of a dialled number, which does what the number plan says it does. */
  outboundCall(number: string, from: string | null): PartyCall {
    return {
      direction: 'outbound',
      number,
      from,
      behaviour: resolveNumber(this.numberPlan, number),
    };
  }

  /** A new phone party of `call` in `roomId`; before `start`, none (warned). */
  party(roomId: RoomId, participantId: ParticipantId, call: PartyCall): VirtualParty | undefined {
    if (!this.clips) {
      this.options.warn(`${partyCallName(call)}: ${new MediaError('EngineNotRunning').message}`);
      return undefined;
    }
    return new VirtualParty({
      id: participantId,
      roomId,
      call,
      answerDelayMs: this.options.answerDelayMs,
      recordingPath: join(this.options.sandboxDir, recordingFileName(participantId)),
      recordPath: join(this.options.sandboxDir, safeFileName(participantId, 'json')),
      clips: this.clips,
      scheduler: this.options.scheduler,
      observer: this.observer,
    });
  }

  private readonly observer: PartyObserver = {
    ringing: (party) =>
      this.options.emit({ type: 'party.ringing', participantId: party.id, roomId: party.roomId }),
    answered: (party) =>
      this.options.emit({ type: 'party.answered', participantId: party.id, roomId: party.roomId }),
    unanswered: (party, reason) => {
      this.options.detach(party.id, 'failed');
      this.options.emit({
        type: 'party.unanswered',
        participantId: party.id,
        roomId: party.roomId,
        reason,
      });
    },
    hungUp: (party) => {
      this.options.emit({ type: 'party.hangup', participantId: party.id, roomId: party.roomId });
      this.options.detach(party.id, 'hung-up');
    },
    dtmf: (party, digits) =>
      this.options.emit({
        type: 'party.dtmf',
        participantId: party.id,
        roomId: party.roomId,
        digits,
      }),
    recorded: (party, path, seconds) =>
      this.options.emit({
        type: 'party.recorded',
        participantId: party.id,
        roomId: party.roomId,
        path,
        seconds,
      }),
    warn: (message) => this.options.warn(message),
  };
}
