import { describe, expect, it } from 'vitest';
import { DtmfDetector, dtmfDigit, parseTelephoneEvent } from './telephone-event';

const payload = (event: number, end: boolean, duration: number): Uint8Array =>
  Uint8Array.of(event, (end ? 0x80 : 0) | 10, duration >> 8, duration & 0xff);

describe('telephone-event (RFC 4733)', () => {
  it('parses the payload fields', () => {
    expect(parseTelephoneEvent(Uint8Array.of(11, 0x8a, 0x03, 0x20))).toEqual({
      event: 11,
      end: true,
      volume: 10,
      duration: 800,
    });
    expect(parseTelephoneEvent(Uint8Array.of(1, 2, 3))).toBeUndefined();
  });

  it('maps event codes to DTMF digits', () => {
    expect([...Array(16).keys()].map((event) => dtmfDigit(event)).join('')).toBe(
      '0123456789*#ABCD',
    );
    expect(dtmfDigit(16)).toBeUndefined();
  });

  it('reports one digit per press, on the first end packet', () => {
    const detector = new DtmfDetector();
    const seen: (string | undefined)[] = [];
    for (const duration of [160, 320, 480])
      seen.push(detector.accept(8000, payload(5, false, duration)));
    for (let repeat = 0; repeat < 3; repeat++)
      seen.push(detector.accept(8000, payload(5, true, 640)));
    expect(seen.filter((digit) => digit !== undefined)).toEqual(['5']);
    expect(seen[3]).toBe('5');
    // The same key pressed again is a new event with a new timestamp.
    expect(detector.accept(16_000, payload(5, true, 640))).toBe('5');
    expect(detector.accept(24_000, payload(10, true, 640))).toBe('*');
  });

  it('tells when a press started and how long it lasted', () => {
    const detector = new DtmfDetector();
    expect(detector.acceptPress(8000, payload(1, false, 160))).toBeUndefined();
    expect(detector.acceptPress(8000, payload(1, true, 1280))).toEqual({
      digit: '1',
      timestamp: 8000,
      duration: 1280,
    });
    expect(detector.acceptPress(8000, payload(1, true, 1280))).toBeUndefined();
  });

  it('ignores events that are not DTMF and short payloads', () => {
    const detector = new DtmfDetector();
    expect(detector.accept(1, payload(32, true, 160))).toBeUndefined();
    expect(detector.accept(2, Uint8Array.of(1))).toBeUndefined();
  });
});
