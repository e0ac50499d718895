import { describe, expect, it } from 'vitest';
import { signChannel } from '../pusher-auth';
import { isValidChannelAuth } from './channel-auth';

const CREDENTIALS = { appId: 'a', key: 'k', secret: 'secret-0123456789', cluster: 'us2' };
const MEMBER = { user_id: '7', user_info: { name: 'Ann' } };

describe('isValidChannelAuth', () => {
  const privateAuth = signChannel(CREDENTIALS, '1.2', 'private-x').auth;
  const presence = signChannel(CREDENTIALS, '1.2', 'presence-x', MEMBER);

  it.each([
    ['a private signature', '1.2', 'private-x', privateAuth, undefined, true],
    ['a presence signature', '1.2', 'presence-x', presence.auth, presence.channel_data, true],
    ['another socket', '1.3', 'private-x', privateAuth, undefined, false],
    ['another channel', '1.2', 'private-y', privateAuth, undefined, false],
    ['changed member data', '1.2', 'presence-x', presence.auth, '{"user_id":"8"}', false],
    ['no auth', '1.2', 'private-x', undefined, undefined, false],
    ['another key', '1.2', 'private-x', privateAuth.replace(/^k:/, 'z:'), undefined, false],
    ['no colon', '1.2', 'private-x', 'garbage', undefined, false],
    ['a short signature', '1.2', 'private-x', 'k:abc', undefined, false],
  ] as const)('%s → %s', (_what, socketId, channel, auth, channelData, valid) =>
    expect(isValidChannelAuth(CREDENTIALS, socketId, channel, auth, channelData)).toBe(valid),
  );
});
