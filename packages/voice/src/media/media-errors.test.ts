import { describe, expect, it } from 'vitest';
import { MEDIA_ERRORS, MediaError } from './media-errors';

describe('MediaError', () => {
  it('has one unique code per name', () => {
    const codes = Object.values(MEDIA_ERRORS).map((entry) => entry.code);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('survives the trip across the worker boundary', () => {
    const original = new MediaError('NoCommonCodec', 'only opus offered');
    const copy = MediaError.deserialize(structuredClone(original.serialize()));
    expect(copy).toBeInstanceOf(MediaError);
    expect(copy.name).toBe('NoCommonCodec');
    expect(copy.code).toBe(53_201);
    expect(copy.message).toBe(
      'The remote description offers no PCMU/8000 audio: only opus offered',
    );
  });

  it('wraps foreign errors, keeping them as the cause', () => {
    const cause = new TypeError('boom');
    const wrapped = MediaError.wrap('NegotiationFailed', cause);
    expect(wrapped.cause).toBe(cause);
    expect(wrapped.toString()).toBe('NegotiationFailed (53202): WebRTC negotiation failed: boom');
    expect(MediaError.wrap('InternalError', wrapped)).toBe(wrapped);
  });
});
