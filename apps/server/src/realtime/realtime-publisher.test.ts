import { describe, expect, it } from 'vitest';
import { realtimeEventOf } from './realtime-publisher';

describe('realtimeEventOf', () => {
  it('an agent-status domain event: agent-status on the account channel', () => {
    expect(
      realtimeEventOf({
        type: 'agent.status',
        accountId: 3,
        userId: 7,
        status: 'on_call',
        isAvailable: true,
        at: '2026-11-22T10:00:00.000Z',
      }),
    ).toEqual({
      channel: 'private-account-3',
      name: 'agent-status',
      data: { user_id: 7, status: 'on_call', is_available: true, at: '2026-11-22T10:00:00.000Z' },
    });
  });

  it('a floor change: floor-changed on the account channel, with the call id and how only', () => {
    expect(
      realtimeEventOf({
        type: 'floor.changed',
        accountId: 3,
        callId: 41,
        reason: 'ring-ended',
        at: '2026-11-22T10:00:01.000Z',
      }),
    ).toEqual({
      channel: 'private-account-3',
      name: 'floor-changed',
      data: { call_id: 41, reason: 'ring-ended', at: '2026-11-22T10:00:01.000Z' },
    });
  });
});
