import { describe, expect, it } from 'vitest';
import { phoneErrorPolicy, phoneErrorText } from './phone-errors';

describe('phoneErrorPolicy (spec section 8)', () => {
  it.each([
    [31009, 'ignore'],
    [31005, 'ignore'],
    [31205, 'refreshToken'],
    [20101, 'refreshToken'],
    [20104, 'refreshToken'],
    [31401, 'microphone'],
    [31402, 'microphone'],
    [31208, 'microphone'],
    // Decline: the server refused the call with a sentence for the agent (the dial guard).
    [31603, 'declined'],
    // "Other errors are logged with a timestamp and reset the call state", the media errors
    // (31000, 31003) among them.
    [31000, 'reset'],
    [31003, 'reset'],
    [31201, 'reset'],
    [31204, 'reset'],
    [53000, 'reset'],
    // The official SDK's codes for a device's socket errors and a reconnecting call's losses.
    [53001, 'reset'],
    [53405, 'reset'],
  ] as const)('%i → %s', (code, policy) => expect(phoneErrorPolicy(code)).toBe(policy));
});

describe('phoneErrorText', () => {
  it('drops the SDKs’ `Name (code): ` prefix, which is for the log', () => {
    const refused = {
      name: 'ConnectionError',
      code: 31005,
      message: 'ConnectionError (31005): Could not send DTMF: Signaling channel is disconnected',
    };
    expect(phoneErrorText(refused)).toBe('Could not send DTMF: Signaling channel is disconnected');
  });
  it('keeps a message without it, and a prefix of another error', () => {
    expect(phoneErrorText({ name: 'ConnectionError', code: 31005, message: 'Gone.' })).toBe(
      'Gone.',
    );
    expect(
      phoneErrorText({ name: 'ConnectionError', code: 31005, message: 'UnknownError (31000): x' }),
    ).toBe('UnknownError (31000): x');
  });
});
