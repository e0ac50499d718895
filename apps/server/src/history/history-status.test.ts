import { describe, expect, it } from 'vitest';
import { formatDuration, formatTime, historyStatus } from './history-status';

describe('history status (spec section 4)', () => {
  it.each([
    ['missed', 0, 'missed', 'No agents answered'],
    ['offline', 0, 'offline', 'Outside availability hours'],
    ['busy', 0, 'busy', 'All agents busy'],
    ['in-progress', 12, 'in-progress', null],
    ['ringing', 0, 'ringing', null],
    ['completed', 75, '01:15', null],
    ['completed', 0, 'No Answer', null],
    ['no-answer', 0, 'No Answer', null],
    ['failed', 0, 'No Answer', null],
    ['completed', 3725, '1:02:05', null],
  ])('%s with %i s shows %s (%s)', (status, seconds, display, reason) => {
    expect(historyStatus(status, seconds)).toEqual({ status_display: display, reason });
  });

  // The lead's side of a call is kept apart from the agents' side: a busy lead is never
  // 'All agents busy' (issue 13).
  it.each([
    ['lead-busy', 0, 'lead-busy', 'No Answer', 'Lead busy'],
    ['no-answer', 0, 'lead-no-answer', 'No Answer', null],
    ['failed', 0, 'lead-failed', 'No Answer', "The lead's number could not be reached"],
    ['offline', 0, 'no-agents-online', 'offline', 'No agents online'],
    ['offline', 0, 'outside-hours', 'offline', 'Outside availability hours'],
    ['busy', 0, 'all-agents-busy', 'busy', 'All agents busy'],
    ['missed', 0, 'caller-hung-up', 'missed', 'The caller hung up before an agent answered'],
    ['queued', 0, 'all-agents-busy', 'queued', 'All agents busy'],
    ['completed', 42, 'server-restart', '00:42', null],
  ])('%s with %i s and reason %s shows %s (%s)', (status, seconds, code, display, reason) => {
    expect(historyStatus(status, seconds, code)).toEqual({ status_display: display, reason });
  });

  it('formats durations and times', () => {
    expect(formatDuration(0)).toBe('00:00');
    expect(formatDuration(59.9)).toBe('00:59');
    // In UTC, and saying so: the server does not know the agent's zone.
    expect(formatTime(new Date('2026-11-22T10:04:00Z'))).toBe('Nov 22, 2026, 10:04 AM UTC');
    expect(formatTime(new Date('2026-11-22T23:59:00Z'))).toBe('Nov 22, 2026, 11:59 PM UTC');
  });
});
