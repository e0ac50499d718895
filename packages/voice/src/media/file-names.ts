import type { ParticipantId } from './media-engine';

/** File name for an id (participant or room): characters unsafe in a path replaced by `_`. */
export function safeFileName(id: string, extension: string): string {
  const safe = id.replace(/[^A-Za-z0-9_-]/g, '_');
  return `${safe === '' ? '_' : safe}.${extension}`;
}

/** File name of a participant's recording: its id, with characters unsafe in a path replaced by `_`. */
export function recordingFileName(participantId: ParticipantId): string {
  return safeFileName(participantId, 'wav');
}
