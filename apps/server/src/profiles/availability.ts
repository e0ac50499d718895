/**
 * A profile's availability hours (spec section 4, 'Outside availability hours'): a weekly
 * schedule in a time zone. A lead that arrives while the schedule is closed is recorded as
 * `offline` and offered to nobody.
 */

/**
 * When a profile takes calls: per weekday (0 Sunday … 6 Saturday) the open intervals as
 * `HH:MM` pairs in `timeZone` (an IANA zone). A day without intervals is closed.
 */
export interface WeeklySchedule {
  timeZone: string;
  days: Partial<Record<0 | 1 | 2 | 3 | 4 | 5 | 6, Array<[string, string]>>>;
}

/** Open all day, every day (the seed's schedule, and the meaning of no schedule). */
const ALL_DAY: Array<[string, string]> = [['00:00', '24:00']];
export const ALWAYS_OPEN: WeeklySchedule = {
  timeZone: 'UTC',
  days: { 0: ALL_DAY, 1: ALL_DAY, 2: ALL_DAY, 3: ALL_DAY, 4: ALL_DAY, 5: ALL_DAY, 6: ALL_DAY },
};

const WEEKDAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'] as const;
const formats = new Map<string, Intl.DateTimeFormat>();

/** Weekday (0 Sunday) and minute of the day at `at` in `timeZone`. */
function localTime(at: Date, timeZone: string): { day: number; minute: number } {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      weekday: 'short',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formats.set(timeZone, format);
  }
  const parts = Object.fromEntries(format.formatToParts(at).map((p) => [p.type, p.value]));
  const day = WEEKDAYS.indexOf(parts.weekday as (typeof WEEKDAYS)[number]);
  return { day, minute: Number(parts.hour) * 60 + Number(parts.minute) };
}

/** Minutes since midnight of `HH:MM` (`24:00` is the end of the day); NaN when malformed. */
export function minutesOf(time: string): number {
  const match = /^(\d{2}):(\d{2})$/.exec(time);
  if (!match) return Number.NaN;
  const hours = Number(match[1]);
  const minutes = Number(match[2]);
  if (minutes > 59 || hours > 24 || (hours === 24 && minutes > 0)) return Number.NaN;
  return hours * 60 + minutes;
}

/** Whether `schedule` is a schedule this module can read (a known zone, well-formed times). */
export function isValidSchedule(schedule: WeeklySchedule): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: schedule.timeZone });
  } catch {
    return false;
  }
  return Object.values(schedule.days).every((intervals) =>
    (intervals ?? []).every(([from, to]) => minutesOf(from) < minutesOf(to)),
  );
}

/**
 * Whether the profile takes calls at `at`: no schedule means always; an interval includes its
 * start and excludes its end. A schedule that cannot be read counts as open (a typo in a
 * setting must not turn every lead away); `isValidSchedule` is for checking it when it is set.
 */
export function isOpen(schedule: WeeklySchedule | null | undefined, at: Date): boolean {
  if (!schedule || !isValidSchedule(schedule)) return true;
  const { day, minute } = localTime(at, schedule.timeZone);
  const intervals = schedule.days[day as keyof WeeklySchedule['days']] ?? [];
  return intervals.some(([from, to]) => minute >= minutesOf(from) && minute < minutesOf(to));
}
