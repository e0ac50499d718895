import type { ParticipantId, RoomId } from './media-engine';
import { conferenceHearing, mixFrames, type HearingRule, type MixInput } from './mixer';
import type { Participant } from './participant';

/**
 * One call: its participants and the rule deciding who hears whom. Each frame it asks every
 * participant in the mix what it says and gives each what it hears.
 */
export class Room {
  private readonly members = new Map<ParticipantId, Participant>();

  /** Creates an empty room mixing under `rule` (the plain conference rule by default). */
  constructor(
    readonly id: RoomId,
    private readonly rule: HearingRule = conferenceHearing,
  ) {}

  /** The participants, in joining order. */
  get participants(): Participant[] {
    return [...this.members.values()];
  }

  /** Adds `participant`. */
  add(participant: Participant): void {
    this.members.set(participant.id, participant);
  }

  /** Removes the participant `id`; returns whether it was here. */
  delete(id: ParticipantId): boolean {
    return this.members.delete(id);
  }

  /** Mixes one frame. */
  mixFrame(): void {
    const speakers: Participant[] = [];
    const inputs: MixInput[] = [];
    for (const participant of this.members.values()) {
      if (!participant.inMix) continue;
      speakers.push(participant);
      inputs.push({ id: participant.id, frame: participant.speak(), muted: participant.muted });
    }
    if (inputs.length === 0) return;
    const outputs = mixFrames(inputs, this.rule);
    for (const participant of speakers) {
      const heard = outputs.get(participant.id);
      if (heard) participant.hear(heard);
    }
  }
}
