/** Pure display helpers for the views. */
import { VOLUME_METER_BARS } from '../constants';

/** `mm:ss` for a number of seconds (minutes keep counting past 59). */
export function formatDuration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const mm = String(Math.floor(seconds / 60)).padStart(2, '0');
  const ss = String(seconds % 60).padStart(2, '0');
  return `${mm}:${ss}`;
}

/** How {@link formatCallTime} reads a call's time: which day is today, in which zone and locale. */
export interface CallTimeOptions {
  /** Now, in milliseconds since the epoch (the platform's clock): it says which day is today. */
  readonly nowMs: number;
  /** The IANA zone to show the time in (e.g. 'Pacific/Kiritimati'); the browser's own if left out. */
  readonly timeZone?: string;
  /** The BCP 47 locale to write it in (e.g. 'en-US'); the browser's own if left out. */
  readonly locale?: string;
}

/**
 * A call's time (an ISO string, as the server sends it) in the agent's zone: a call of today
 * (the same calendar day as `nowMs`, in that zone) as its time only ('9:05 PM'), any other with
 * the date ('Nov 25, 2026, 9:05 PM'). Text that is not a time is shown as it came.
 */
export function formatCallTime(iso: string, options: CallTimeOptions): string {
  const atMs = Date.parse(iso);
  if (Number.isNaN(atMs)) return iso;
  const zone: Intl.DateTimeFormatOptions =
    options.timeZone === undefined ? {} : { timeZone: options.timeZone };
  const today = calendarDay(atMs, zone) === calendarDay(options.nowMs, zone);
  const style: Intl.DateTimeFormatOptions = today
    ? { timeStyle: 'short' }
    : { dateStyle: 'medium', timeStyle: 'short' };
  return new Intl.DateTimeFormat(options.locale, { ...style, ...zone }).format(atMs);
}

/** The calendar day of `atMs` in a zone, as 'year-month-day' (for comparing days). */
function calendarDay(atMs: number, zone: Intl.DateTimeFormatOptions): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    ...zone,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
  }).formatToParts(atMs);
  const part = (type: Intl.DateTimeFormatPartTypes) =>
    parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

/** Whole seconds between `fromMs` and `nowMs`, never negative. */
export function elapsedSeconds(fromMs: number, nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - fromMs) / 1000));
}

/** How many of the meter's bars a volume (0..1) lights after scaling (spec section 9). */
export function litBars(volume: number, scale: number): number {
  if (!Number.isFinite(volume) || volume <= 0) return 0;
  return Math.min(VOLUME_METER_BARS, Math.floor(volume * scale));
}

/** Up to two initials of a name: 'Maya Okafor' → 'MO', 'cher' → 'C'; '?' without letters. */
export function initials(name: string): string {
  const words = name
    .trim()
    .split(/\s+/)
    .filter((w) => /\p{L}/u.test(w));
  const first = words[0];
  if (!first) return '?';
  const last = words.length > 1 ? words[words.length - 1] : undefined;
  return [first, last]
    .filter((w): w is string => w !== undefined)
    .map((w) => Array.from(w.replace(/[^\p{L}]/gu, ''))[0] ?? '')
    .join('')
    .toUpperCase();
}

/** Background colours for initials avatars; each passes 4.5:1 against white text. */
const AVATAR_COLOURS = [
  '#1f5fbf',
  '#0f6e5c',
  '#7a3fb0',
  '#b0420f',
  '#2f5d2a',
  '#9c2f5b',
  '#3d4f8f',
  '#7a5410',
];

/** A stable avatar colour for a name. */
export function avatarColour(name: string): string {
  let hash = 0;
  for (const char of name) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) >>> 0;
  return AVATAR_COLOURS[hash % AVATAR_COLOURS.length] ?? '#1f5fbf';
}
