/**
 * When an RFC 4733 key press was played, on the sender's RTP clock (telephone-event/8000):
 * the gaps between presses are differences of `rtpTimestamp` (8 per ms) less `durationMs`.
 */
export interface DtmfTone {
  /** RTP timestamp of the press (when its tone started). */
  rtpTimestamp: number;
  /** How long the tone lasted (ms). */
  durationMs: number;
}
