import { describe, expect, it } from 'vitest';
import {
  PusherChannelName,
  PusherClientFrame,
  PusherPresenceMember,
  PusherSignedQuery,
  PusherTriggerBody,
} from './pusher-protocol';

describe('Pusher protocol schemas', () => {
  it.each([
    [PusherClientFrame, { event: 'pusher:ping', data: {} }, true],
    [PusherClientFrame, { event: 'pusher:subscribe', data: { channel: 'a' } }, true],
    [PusherClientFrame, { event: '' }, false],
    [PusherClientFrame, { data: {} }, false],
    [PusherChannelName, 'presence-user-1', true],
    [PusherChannelName, 'private-a=b@c,d.e;f', true],
    [PusherChannelName, 'has space', false],
    [PusherChannelName, 'x'.repeat(201), false],
    [PusherPresenceMember, { user_id: '1', user_info: { name: 'A' } }, true],
    [PusherPresenceMember, { user_id: 1 }, true],
    [PusherPresenceMember, { user_info: {} }, false],
    [PusherTriggerBody, { name: 'e', data: '{}', channels: ['a'] }, true],
    [PusherTriggerBody, { name: 'e', data: { not: 'a string' }, channels: ['a'] }, false],
    [
      PusherSignedQuery,
      { auth_key: 'k', auth_timestamp: '1', auth_version: '1.0', auth_signature: 'a'.repeat(64) },
      true,
    ],
    [
      PusherSignedQuery,
      { auth_key: 'k', auth_timestamp: '1', auth_version: '2.0', auth_signature: 'a'.repeat(64) },
      false,
    ],
  ] as const)('case %#', (schema, value, ok) => expect(schema.safeParse(value).success).toBe(ok));
});
