/** Pure display helpers for the views. */
import { VOLUME_METER_BARS } from '../constants';

/** `mm:ss` for a number of seconds (minutes keep counting past 59). */
export function formatDuration(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const mm = String(Math.floor(seconds / 60)).padStart(2, '0');
  const ss = String(seconds % 60).padStart(2, '0');
  return `${mm}:${ss}`;
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
