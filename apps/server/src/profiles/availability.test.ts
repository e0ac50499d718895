import { describe, expect, it } from 'vitest';
import type { WeeklySchedule } from '../db/schema';
import { ALWAYS_OPEN, isOpen, isValidSchedule, minutesOf } from './availability';

/** Weekdays 09:00–17:00 in New York, closed at the weekend. */
const OFFICE: WeeklySchedule = {
  timeZone: 'America/New_York',
  days: {
    1: [['09:00', '17:00']],
    2: [['09:00', '17:00']],
    3: [
      ['09:00', '12:00'],
      ['13:00', '17:00'],
    ],
    4: [['09:00', '17:00']],
    5: [['09:00', '17:00']],
  },
};

describe('isOpen', () => {
  it.each([
    // Monday 2026-11-23: New York is UTC-5 (standard time).
    ['2026-11-23T13:59:59Z', false, 'Monday 08:59:59 in New York'],
    ['2026-11-23T14:00:00Z', true, 'Monday 09:00 (the start is in)'],
    ['2026-11-23T21:59:00Z', true, 'Monday 16:59'],
    ['2026-11-23T22:00:00Z', false, 'Monday 17:00 (the end is out)'],
    ['2026-11-25T17:30:00Z', false, 'Wednesday 12:30, the lunch break'],
    ['2026-11-25T18:00:00Z', true, 'Wednesday 13:00'],
    ['2026-11-28T15:00:00Z', false, 'Saturday 10:00: closed all day'],
    ['2026-11-24T04:30:00Z', false, 'Monday 23:30 in New York, already Tuesday in UTC'],
    // Summer: UTC-4 (daylight saving time).
    ['2026-07-06T13:00:00Z', true, 'a July Monday 09:00 in New York'],
    ['2026-07-06T12:59:00Z', false, 'a July Monday 08:59'],
  ])('%s is %s (%s)', (iso, open) => {
    expect(isOpen(OFFICE, new Date(iso))).toBe(open);
  });

  it('is always open without a schedule, or with the seed’s open-all-day one', () => {
    for (const iso of ['2026-11-28T03:00:00Z', '2026-11-23T23:59:59Z', '2026-11-24T00:00:00Z']) {
      expect(isOpen(null, new Date(iso))).toBe(true);
      expect(isOpen(ALWAYS_OPEN, new Date(iso))).toBe(true);
    }
  });

  it('treats an unreadable schedule as open, and says it is unreadable', () => {
    const typo: WeeklySchedule = { timeZone: 'Mars/Olympus_Mons', days: {} };
    expect(isValidSchedule(typo)).toBe(false);
    expect(isOpen(typo, new Date('2026-11-23T12:00:00Z'))).toBe(true);
    const backwards: WeeklySchedule = { timeZone: 'UTC', days: { 1: [['17:00', '09:00']] } };
    expect(isValidSchedule(backwards)).toBe(false);
    expect(isValidSchedule(OFFICE)).toBe(true);
    expect(isValidSchedule(ALWAYS_OPEN)).toBe(true);
  });

  it('reads HH:MM, 24:00 as the end of the day, and nothing else', () => {
    expect(minutesOf('00:00')).toBe(0);
    expect(minutesOf('09:30')).toBe(570);
    expect(minutesOf('24:00')).toBe(1440);
    for (const bad of ['24:01', '9:30', '09:60', 'noon', '']) expect(minutesOf(bad)).toBeNaN();
  });
});
