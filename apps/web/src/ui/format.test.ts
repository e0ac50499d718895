import { describe, expect, it } from 'vitest';
import {
  avatarColour,
  elapsedSeconds,
  formatCallTime,
  formatDuration,
  initials,
  litBars,
} from './format';

describe('formatDuration', () => {
  it.each([
    [0, '00:00'],
    [1, '00:01'],
    [59, '00:59'],
    [60, '01:00'],
    [61.9, '01:01'],
    [3599, '59:59'],
    [3600, '60:00'],
    [-5, '00:00'],
  ])('%s s → %s', (seconds, text) => expect(formatDuration(seconds)).toBe(text));
});

describe('elapsedSeconds', () => {
  it('counts whole seconds from the start', () => {
    expect(elapsedSeconds(10_000, 10_999)).toBe(0);
    expect(elapsedSeconds(10_000, 11_000)).toBe(1);
    expect(elapsedSeconds(10_000, 9_000)).toBe(0);
  });
});

describe('litBars (5 bars; input ×10, output ×20)', () => {
  it.each([
    [0, 10, 0],
    [0.05, 10, 0],
    [0.1, 10, 1],
    [0.25, 10, 2],
    [0.5, 10, 5],
    [1, 10, 5],
    [0.05, 20, 1],
    [0.15, 20, 3],
    [0.3, 20, 5],
    [Number.NaN, 20, 0],
    [-1, 20, 0],
  ])('volume %s × %s → %s bars', (volume, scale, bars) =>
    expect(litBars(volume, scale)).toBe(bars),
  );
});

describe('initials and avatar colour', () => {
  it.each([
    ['Maya Okafor', 'MO'],
    ['maya', 'M'],
    ['  Jean-Luc  de la Cruz ', 'JC'],
    ['Élodie Brun', 'ÉB'],
    ['+1 555 0100', '?'],
    ['R2 D2', 'RD'],
    ['', '?'],
    ['— —', '?'],
  ])('%j → %s', (name, expected) => expect(initials(name)).toBe(expected));

  it('gives a name the same colour every time', () => {
    expect(avatarColour('Maya Okafor')).toBe(avatarColour('Maya Okafor'));
    expect(avatarColour('Maya Okafor')).toMatch(/^#[0-9a-f]{6}$/);
  });
});

describe("formatCallTime (History: times in the agent's zone)", () => {
  // Some ICU versions put a narrow no-break space before AM/PM: compare the words.
  const plain = (text: string) => text.replace(/\s/g, ' ');
  const at = (iso: string, nowIso: string, timeZone: string) =>
    plain(formatCallTime(iso, { nowMs: Date.parse(nowIso), timeZone, locale: 'en-US' }));

  it.each([
    // [call, now, zone, shown]
    ['2026-11-26T09:05:00.000Z', '2026-11-26T22:48:00.000Z', 'UTC', '9:05 AM'],
    ['2026-11-25T21:05:00.000Z', '2026-11-26T09:00:00.000Z', 'UTC', 'Nov 25, 2026, 9:05 PM'],
    // UTC+14: 10:30 UTC on the 25th is 00:30 on the 26th there, the same day as now (23:00).
    ['2026-11-25T10:30:00.000Z', '2026-11-26T09:00:00.000Z', 'Pacific/Kiritimati', '12:30 AM'],
    // UTC−11: 12:00 UTC on the 25th is 01:00 on the 25th there, now (10:00 UTC on the 26th) is
    // 23:00 on the 25th there: today, although UTC says yesterday.
    ['2026-11-25T12:00:00.000Z', '2026-11-26T10:00:00.000Z', 'Pacific/Pago_Pago', '1:00 AM'],
    // …and a call of the same UTC day as now can be yesterday there.
    [
      '2026-11-26T08:00:00.000Z',
      '2026-11-26T12:00:00.000Z',
      'Pacific/Pago_Pago',
      'Nov 25, 2026, 9:00 PM',
    ],
    // Winter and summer time: New York is UTC−5 in January and UTC−4 in July.
    ['2026-01-15T17:30:00.000Z', '2026-01-15T20:00:00.000Z', 'America/New_York', '12:30 PM'],
    ['2026-07-15T17:30:00.000Z', '2026-07-15T20:00:00.000Z', 'America/New_York', '1:30 PM'],
  ])('%s seen at %s in %s shows %s', (iso, now, zone, shown) => {
    expect(at(iso, now, zone)).toBe(shown);
  });

  it("today starts at the zone's midnight: 00:00 is today, a second before is the day before", () => {
    // Kiritimati midnight of Nov 26 is 10:00 UTC on Nov 25.
    const now = '2026-11-26T05:00:00.000Z';
    expect(at('2026-11-25T10:00:00.000Z', now, 'Pacific/Kiritimati')).toBe('12:00 AM');
    expect(at('2026-11-25T09:59:59.000Z', now, 'Pacific/Kiritimati')).toBe(
      'Nov 25, 2026, 11:59 PM',
    );
  });

  it('a call on a later day than now (a clock ahead of ours) shows its date too', () => {
    expect(at('2026-11-27T00:30:00.000Z', '2026-11-26T23:50:00.000Z', 'UTC')).toBe(
      'Nov 27, 2026, 12:30 AM',
    );
  });

  it('writes the time in the given locale', () => {
    const shown = formatCallTime('2026-11-26T21:05:00.000Z', {
      nowMs: Date.parse('2026-11-26T22:00:00.000Z'),
      timeZone: 'UTC',
      locale: 'en-GB',
    });
    expect(plain(shown)).toBe('21:05');
  });

  it('shows text that is not a time as it came', () => {
    expect(formatCallTime('yesterday', { nowMs: 0, timeZone: 'UTC' })).toBe('yesterday');
  });
});
