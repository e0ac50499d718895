import { describe, expect, it } from 'vitest';
import { ERROR_TABLE, type ErrorCode } from './error-table';
import {
  AuthorizationError,
  AuthorizationErrors,
  ClientErrors,
  createError,
  gatewayError,
  GeneralError,
  GeneralErrors,
  MediaError,
  MediaErrors,
  SignalingErrors,
  SipError,
  SoftphoneError,
  UserMediaError,
  UserMediaErrors,
} from './errors';

const CODES = Object.keys(ERROR_TABLE).map(Number) as ErrorCode[];

describe('the error table', () => {
  it("holds the spec's codes (section 8)", () => {
    for (const code of [
      31000, 31003, 31005, 31009, 31201, 31204, 31205, 31401, 31402, 20101, 20104,
    ]) {
      expect(CODES).toContain(code);
    }
  });

  it("raises the spec's media errors (section 8) as general errors with stable names", () => {
    const offer = createError(31000, 'Error creating the offer');
    expect(offer).toBeInstanceOf(GeneralErrors.UnknownError);
    expect(offer).toBeInstanceOf(GeneralError);
    expect(offer.message).toBe('UnknownError (31000): Error creating the offer');
    const interrupted = createError(31003, 'Media connection was interrupted.');
    expect(interrupted).toBeInstanceOf(GeneralErrors.ConnectionTimeoutError);
    expect(interrupted).toBeInstanceOf(GeneralError);
    expect(interrupted.message).toBe(
      'ConnectionTimeoutError (31003): Media connection was interrupted.',
    );
  });

  it.each(CODES)('%i is a class of its group with a stable name and message', (code) => {
    const [group, name, description, explanation] = ERROR_TABLE[code];
    const error = createError(code);
    expect(error).toBeInstanceOf(SoftphoneError);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toBe(code);
    expect(error.name).toBe(name);
    expect(error.description).toBe(description);
    expect(error.message).toBe(`${name} (${code}): ${explanation || description}`);
    const namespaces: Record<string, Record<string, unknown>> = {
      AuthorizationErrors,
      ClientErrors,
      GeneralErrors,
      MediaErrors,
      SignalingErrors,
      UserMediaErrors,
    };
    if (namespaces[group]) expect(error).toBeInstanceOf(namespaces[group][name] as never);
  });

  it('builds errors like the official SDK: message, original error, area class', () => {
    const cause = { code: 31486, message: 'busy' };
    const busy = new ClientErrors.BusyHere('The number is busy.', cause);
    expect(busy.message).toBe('BusyHere (31486): The number is busy.');
    expect(busy.originalError).toBe(cause);
    expect(busy).toBeInstanceOf(SipError);
    const fromObject = new AuthorizationErrors.AccessTokenExpired(cause);
    expect(fromObject.message).toMatch(/^AccessTokenExpired \(20104\): The Access Token provided/);
    expect(fromObject.originalError).toBe(cause);
    expect(fromObject).toBeInstanceOf(AuthorizationError);
    expect(new UserMediaErrors.PermissionDeniedError()).toBeInstanceOf(UserMediaError);
    expect(new MediaErrors.ConnectionError()).toBeInstanceOf(MediaError);
    expect(new GeneralErrors.ConnectionError()).toBeInstanceOf(GeneralError);
    expect(new MediaErrors.ConnectionError().code).toBe(53405);
    expect(new GeneralErrors.ConnectionError().code).toBe(31005);
    expect(AuthorizationErrors.AccessTokenExpired.name).toBe('AccessTokenExpired');
  });

  it('has no duplicate name within a group', () => {
    const seen = new Set<string>();
    for (const code of CODES) {
      const key = ERROR_TABLE[code].slice(0, 2).join('.');
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    }
  });
});

describe('errors sent by the gateway', () => {
  it('keep their class for ordinary codes and become 31005 for precise ones unless asked', () => {
    expect(gatewayError({ code: 31009, message: 'gone' }, false, 'x')).toMatchObject({
      code: 31009,
      message: 'TransportError (31009): gone',
    });
    const imprecise = gatewayError(
      { code: 31486, message: 'busy' },
      false,
      'Error sent from gateway in HANGUP',
    );
    expect(imprecise).toMatchObject({
      code: 31005,
      message: 'ConnectionError (31005): Error sent from gateway in HANGUP',
      originalError: { code: 31486, message: 'busy' },
    });
    expect(gatewayError({ code: 31486, message: 'busy' }, true, 'x')).toMatchObject({
      code: 31486,
    });
    expect(gatewayError({ code: 12345, message: '?' }, true, 'unknown')).toMatchObject({
      code: 31005,
    });
  });
});
