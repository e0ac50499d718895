/**
 * The phone port over our SDK: a call the server declined reaches the console as the 31603 it
 * is, with the server's sentence. Our SDK, like the official one without
 * `enableImprovedSignalingErrorPrecision`, reports a hangup's 31603 as a 31005 ConnectionError
 * carrying the wire error (`gatewayError`, tested in the softphone package); `createError` makes
 * that error here as the SDK does.
 */
import { createError } from '@leadline/softphone';
import { describe, expect, it } from 'vitest';
import { declinedCallError } from './leadline-adapter';

const SENTENCE = 'Calls to premium-rate numbers are not allowed.';

describe('declinedCallError', () => {
  it('restates the 31005 of a declined hangup as the 31603 with the server’s sentence', () => {
    const sdk = createError(31005, 'Error sent from gateway in HANGUP', {
      code: 31603,
      message: SENTENCE,
    });
    expect(declinedCallError(sdk)).toEqual({ code: 31603, name: 'Decline', message: SENTENCE });
  });

  it('leaves every other error as the SDK raised it', () => {
    const busy = createError(31005, 'Error sent from gateway in HANGUP', {
      code: 31486,
      message: "The lead's phone is busy.",
    });
    const plain = createError(31005, 'Error sent from gateway in HANGUP');
    const media = createError(31000, 'Error processing answer');
    for (const error of [busy, plain, media]) expect(declinedCallError(error)).toBe(error);
  });
});
