/** One RFC 4733 telephone-event payload (§2.3). */
export interface TelephoneEvent {
  /** Event code: 0–9, 10 `*`, 11 `#`, 12–15 `A`–`D` for DTMF. */
  event: number;
  /** The E bit: this packet ends the event. */
  end: boolean;
  /** Power level in -dBm0 (0–63). */
  volume: number;
  /** Duration so far, in timestamp units. */
  duration: number;
}

const DTMF_DIGITS = '0123456789*#ABCD';

/** Parses a telephone-event payload; `undefined` if it is shorter than the 4 bytes of §2.3. */
export function parseTelephoneEvent(payload: Uint8Array): TelephoneEvent | undefined {
  if (payload.length < 4) return undefined;
  const flags = payload[1] ?? 0;
  return {
    event: payload[0] ?? 0,
    end: (flags & 0x80) !== 0,
    volume: flags & 0x3f,
    duration: ((payload[2] ?? 0) << 8) | (payload[3] ?? 0),
  };
}

/** The DTMF digit of an event code (RFC 4733 §3.2), or `undefined` for other events. */
export function dtmfDigit(event: number): string | undefined {
  return event >= 0 && event < DTMF_DIGITS.length ? DTMF_DIGITS[event] : undefined;
}

/** One key press, as its first end packet told it. */
export interface DtmfPress {
  digit: string;
  /** RTP timestamp of the press: when its tone started, on the stream's clock. */
  timestamp: number;
  /** How long the tone lasted, in timestamp units. */
  duration: number;
}

/**
 * Turns a stream of telephone-event packets into one digit per key press. A press is reported on
 * its first end packet; the end packet is sent three times (RFC 4733 §2.5.1.4) with the press's
 * timestamp, so repeats of an already reported timestamp are ignored.
 */
export class DtmfDetector {
  private lastReportedTimestamp: number | undefined;

  /** Feeds one packet (RTP timestamp and payload); returns the digit if a press just ended. */
  accept(timestamp: number, payload: Uint8Array): string | undefined {
    return this.acceptPress(timestamp, payload)?.digit;
  }

  /** As {@link accept}, with when the press started and how long it lasted. */
  acceptPress(timestamp: number, payload: Uint8Array): DtmfPress | undefined {
    const parsed = parseTelephoneEvent(payload);
    if (!parsed?.end || timestamp === this.lastReportedTimestamp) return undefined;
    const digit = dtmfDigit(parsed.event);
    if (digit === undefined) return undefined;
    this.lastReportedTimestamp = timestamp;
    return { digit, timestamp, duration: parsed.duration };
  }
}
