import { describe, expect, it } from 'vitest';
import { ConnectTokenContent } from '@leadline/contracts/signalling';
import { decodeConnectToken, encodeConnectToken } from './connect-token';
import { InvalidArgumentError } from '../errors/errors';

describe('connect tokens', () => {
  const content = {
    customParameters: { To: '+15550100042', note: 'é ü ✓' },
    parameters: { CallSid: 'CA1', From: 'client:12' },
    signalingReconnectToken: 'RT-1',
  };

  it('round-trips as the official SDK encodes it', () => {
    const token = encodeConnectToken(content);
    expect(token).toBe(btoa(encodeURIComponent(JSON.stringify(content))));
    expect(decodeConnectToken(token)).toEqual(content);
    expect(ConnectTokenContent.safeParse(decodeConnectToken(token)).success).toBe(true);
  });

  it.each([
    ['%%%', 'Cannot parse connectToken'],
    [btoa('{'), 'Cannot parse connectToken'],
    [btoa('%E0%A4%A'), 'Cannot parse connectToken'],
    [btoa('null'), 'Invalid connectToken'],
    [btoa('{}'), 'Invalid connectToken'],
    [
      btoa(JSON.stringify({ parameters: { CallSid: '' }, signalingReconnectToken: 'x' })),
      'Invalid connectToken',
    ],
    [
      btoa(JSON.stringify({ parameters: { CallSid: 'CA1' }, signalingReconnectToken: 5 })),
      'Invalid connectToken',
    ],
  ])('refuses %j with %s', (token, message) => {
    expect(() => decodeConnectToken(token)).toThrow(new InvalidArgumentError(message));
  });
});
