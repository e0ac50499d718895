/**
 * A call's media errors, as spec section 8 lists them: 31000 for 'Error creating the offer',
 * 'Error processing answer' and 'Cannot establish connection. Client is disconnected'; 31003
 * for a media connection interrupted. Each ends the call: `error`, then `disconnect`.
 */
import { describe, expect, it } from 'vitest';
import { MAX_ICE_RETRY_MS, MEDIA_SILENCE_MS } from '../constants';
import { Device } from '../device/device';
import { GeneralError, type SoftphoneError } from '../errors/errors';
import { fakeEnvironment, fakeStream, type FakeEnvironment } from '../testing/fake-platform';
import { advance, flush, openCall, registeredDevice } from '../testing/scenarios';
import type { Call } from './call';

/** What a call emitted, in order (`error <code>`, `disconnect`), and its errors. */
function watch(call: Call): { log: string[]; errors: SoftphoneError[] } {
  const log: string[] = [];
  const errors: SoftphoneError[] = [];
  call.on('error', (error) => {
    errors.push(error);
    log.push(`error ${error.code}`);
  });
  call.on('disconnect', () => log.push('disconnect'));
  return { log, errors };
}

/**
 * An outgoing call whose microphone opens only when `start` is called, so the test listens
 * before the call makes its offer.
 */
async function outgoingCall(env: FakeEnvironment): Promise<{
  call: Call;
  log: string[];
  errors: SoftphoneError[];
  start: () => Promise<void>;
}> {
  let grant = (_stream: MediaStream) => undefined as void;
  env.microphone = () => new Promise((resolve) => (grant = resolve));
  const device = new Device('token-1', { platform: env.platform });
  const call = await device.connect({ params: { To: '+15550100042' } });
  const seen = watch(call);
  const start = async () => {
    env.socket().open();
    grant(fakeStream());
    await flush();
  };
  return { call, ...seen, start };
}

describe('31000 media errors (spec section 8)', () => {
  it("'Error creating the offer': the browser cannot make the offer; no invite goes out", async () => {
    const env = fakeEnvironment();
    env.offerRefusal = 'no codec in common';
    const { call, log, errors, start } = await outgoingCall(env);
    await start();
    expect(log).toEqual(['error 31000', 'disconnect']);
    expect(errors[0]).toBeInstanceOf(GeneralError);
    expect(errors[0]).toMatchObject({
      code: 31000,
      name: 'UnknownError',
      message: 'UnknownError (31000): Error creating the offer: no codec in common',
    });
    expect(errors[0]!.originalError).toBeInstanceOf(DOMException);
    expect(env.socket().last('invite')).toBeUndefined();
    expect(call.status()).toBe('closed');
  });

  it.each([
    ['answer', { callsid: 'CA9', sdp: 'bad', reconnect: 'RT9' }],
    ['ringing', { callsid: 'CA9', sdp: 'bad' }],
  ] as const)(
    "'Error processing answer': the gateway's %s carries an SDP the browser refuses",
    async (type, payload) => {
      const env = fakeEnvironment();
      const { call, log, errors, start } = await outgoingCall(env);
      await start();
      expect(env.socket().last('invite')).toBeDefined();
      env.socket().deliver(type, payload);
      await flush();
      expect(log).toEqual(['error 31000', 'disconnect']);
      expect(errors[0]).toMatchObject({
        code: 31000,
        name: 'UnknownError',
        message: 'UnknownError (31000): Error processing answer: unusable SDP',
      });
      expect(env.socket().last('hangup')).toMatchObject({ callsid: 'CA9' });
      expect(call.status()).toBe('closed');
    },
  );

  it.each(['connecting', 'ringing'] as const)(
    "'Cannot establish connection. Client is disconnected': signalling lost while %s",
    async (state) => {
      const env = fakeEnvironment();
      const { call, log, errors, start } = await outgoingCall(env);
      await start();
      if (state === 'ringing') {
        env.socket().deliver('ringing', { callsid: 'CA9' });
        await flush();
      }
      expect(call.status()).toBe(state);
      env.socket().close();
      await flush();
      expect(log).toEqual(['error 31000', 'disconnect']);
      expect(errors[0]).toBeInstanceOf(GeneralError);
      expect(errors[0]!.message).toBe(
        'UnknownError (31000): Cannot establish connection. Client is disconnected',
      );
      expect(call.status()).toBe('closed');
    },
  );

  it("an incoming call whose offer the browser refuses: 31000 'Error processing the offer'", async () => {
    const env = fakeEnvironment();
    const device = await registeredDevice(env);
    let call: Call | undefined;
    device.on('incoming', (c) => (call = c));
    env.socket().deliver('invite', {
      callsid: 'CA3',
      sdp: 'bad',
      parameters: { From: 'client:12', To: '+15550100042' },
    });
    await flush();
    const { log, errors } = watch(call!);
    call!.accept();
    await flush();
    expect(log).toEqual(['error 31000', 'disconnect']);
    expect(errors[0]!.message).toBe(
      'UnknownError (31000): Error processing the offer: unusable SDP',
    );
    expect(env.socket().last('hangup')).toMatchObject({ callsid: 'CA3' });
  });
});

describe('31003 media connection interrupted (spec section 8)', () => {
  it('ICE fails before the call opened: the call ends with 31003', async () => {
    const env = fakeEnvironment();
    const { call, log, errors, start } = await outgoingCall(env);
    await start();
    env.socket().deliver('ringing', { callsid: 'CA9', sdp: 'v=0 answer' });
    await flush();
    env.pc().setConnectionState('failed');
    await flush();
    expect(log).toEqual(['error 31003', 'disconnect']);
    expect(errors[0]).toBeInstanceOf(GeneralError);
    expect(errors[0]!.message).toBe(
      'ConnectionTimeoutError (31003): Media connection was interrupted.',
    );
    expect(env.socket().last('hangup')).toEqual({
      callsid: 'CA9',
      message: 'Media connection was interrupted.',
    });
    expect(call.status()).toBe('closed');
  });

  it(`an open call whose media does not come back within ${MAX_ICE_RETRY_MS} ms ends with 31003`, async () => {
    const env = fakeEnvironment();
    const { call } = await openCall(env);
    const { log, errors } = watch(call);
    const reconnecting: number[] = [];
    call.on('reconnecting', (error) => reconnecting.push(error.code));
    await advance(env, MEDIA_SILENCE_MS, { receive: false });
    // Still trying: the loss is only reported as what `reconnecting` is about.
    expect(reconnecting).toEqual([53405]);
    expect(log).toEqual([]);
    await advance(env, MAX_ICE_RETRY_MS, { receive: false });
    expect(log).toEqual(['error 31003', 'disconnect']);
    expect(errors[0]!.message).toBe(
      'ConnectionTimeoutError (31003): Media connection was interrupted.',
    );
    expect(env.socket().last('hangup')).toEqual({
      callsid: 'CA1',
      message: 'Media connection was interrupted.',
    });
  });
});
