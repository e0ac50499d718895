/**
 * What the call history shows for a call (spec section 4 'History status display'):
 * missed, busy, offline, in-progress and ringing as they are (and queued: a web lead waiting
 * for an agent); otherwise the duration, or 'No Answer' when seconds is 0. The reason comes
 * from the call's reason code, else from the spec's reasons for missed, offline and busy.
 */
import { CALL_REASON_TEXT, HISTORY_REASONS } from '@leadline/contracts';

const SHOWN_AS_IS = new Set(['missed', 'busy', 'offline', 'in-progress', 'ringing', 'queued']);

/** `m:ss`-style duration: `mm:ss`, or `h:mm:ss` from an hour on. */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(s / 3600);
  const mm = String(Math.floor((s % 3600) / 60)).padStart(2, '0');
  const ss = String(s % 60).padStart(2, '0');
  return hours > 0 ? `${hours}:${mm}:${ss}` : `${mm}:${ss}`;
}

/** The status text and reason of a history row. */
export function historyStatus(
  status: string,
  seconds: number,
  reasonCode: string | null = null,
): { status_display: string; reason: string | null } {
  const coded = reasonCode ? (CALL_REASON_TEXT as Record<string, string>)[reasonCode] : undefined;
  if (SHOWN_AS_IS.has(status)) {
    const reason = coded ?? (HISTORY_REASONS as Record<string, string>)[status] ?? null;
    return { status_display: status, reason };
  }
  const display = seconds > 0 ? formatDuration(seconds) : 'No Answer';
  // A lead-side outcome explains the 'No Answer' (unless it says the same again).
  const reason = seconds > 0 || coded === display ? null : (coded ?? null);
  return { status_display: display, reason };
}

const TIME_FORMAT = new Intl.DateTimeFormat('en-US', {
  month: 'short',
  day: 'numeric',
  year: 'numeric',
  hour: 'numeric',
  minute: '2-digit',
  timeZone: 'UTC',
  timeZoneName: 'short',
});

/**
 * The readable time of a row, in UTC and saying so ('Nov 22, 2026, 10:04 AM UTC'): the spec's
 * `time_formatted`, for API clients that show it as it is. The server does not know the agent's
 * zone; the console formats `created_at` in the browser's zone instead.
 */
export const formatTime = (at: Date): string => TIME_FORMAT.format(at);
