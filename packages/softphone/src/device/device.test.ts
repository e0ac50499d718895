import { describe, expect, it, vi } from 'vitest';
import { Device } from './device';
import { fakeEnvironment, type FakeEnvironment } from '../testing/fake-platform';
import { InvalidArgumentError, InvalidStateError } from '../errors/errors';
import type { Call } from '../call/call';

const TOKEN = 'token-1';

/** A device whose socket is open and whose `listen` was answered. */
function connectedDevice(env: FakeEnvironment, ttlSeconds = 3600) {
  const device = new Device(TOKEN, { platform: env.platform });
  const registering = device.register();
  env.socket().open();
  env.socket().deliver('connected', { region: 'local', token: { identity: '7', ttl: ttlSeconds } });
  return { device, registering };
}

const flush = () => new Promise((r) => setTimeout(r, 0));

describe('Device registration', () => {
  it('opens the signalling socket at the page host and sends listen, then register', async () => {
    const env = fakeEnvironment();
    const { device, registering } = connectedDevice(env);
    expect(env.socket().url).toBe('ws://localhost:3000/signal');
    expect(device.state).toBe('registering');
    const [listen, register] = env.socket().frames();
    expect(listen).toMatchObject({ type: 'listen', version: '1.6', payload: { token: TOKEN } });
    expect(register).toMatchObject({ type: 'register', payload: { media: { audio: true } } });
    const registered = vi.fn();
    device.on('registered', registered);
    env.socket().deliver('ready', {});
    await registering;
    expect(device.state).toBe('registered');
    expect(device.identity).toBe('7');
    expect(registered).toHaveBeenCalledOnce();
  });

  it('re-sends presence every 30,000 ms while registered', async () => {
    const env = fakeEnvironment();
    const { registering } = connectedDevice(env);
    env.socket().deliver('ready', {});
    await registering;
    const socket = env.socket();
    const count = () => socket.frames().filter((f) => f.type === 'register').length;
    // The gateway's heartbeat every 5 s keeps the socket alive.
    const advance = (ms: number) => {
      for (let left = ms; left > 0; left -= 5000) {
        env.clock.tick(Math.min(5000, left));
        socket.deliver('\n');
      }
    };
    expect(count()).toBe(1);
    advance(29_990);
    expect(count()).toBe(1);
    advance(20);
    expect(count()).toBe(2);
    expect(env.sockets).toHaveLength(1);
  });

  it('registers only from unregistered and unregisters only from registered', async () => {
    const env = fakeEnvironment();
    const { device, registering } = connectedDevice(env);
    await expect(device.register()).rejects.toThrow(
      new InvalidStateError(
        'Attempt to register when device is in state "registering". Must be "unregistered".',
      ),
    );
    env.socket().deliver('ready', {});
    await registering;
    await expect(device.register()).rejects.toBeInstanceOf(InvalidStateError);
    const unregistering = device.unregister();
    expect(env.socket().last('register')).toEqual({ media: { audio: false } });
    env.socket().deliver('offline', {});
    await unregistering;
    expect(device.state).toBe('unregistered');
    await expect(device.unregister()).rejects.toThrow(
      'Attempt to unregister when device is in state "unregistered". Must be "registered".',
    );
  });

  it('refuses everything after destroy', async () => {
    const env = fakeEnvironment();
    const device = new Device(TOKEN, { platform: env.platform });
    const destroyed = vi.fn();
    device.on('destroyed', destroyed);
    device.destroy();
    expect(device.state).toBe('destroyed');
    expect(destroyed).toHaveBeenCalledOnce();
    await expect(device.register()).rejects.toThrow('Device has been destroyed.');
    await expect(device.connect()).rejects.toThrow('Device has been destroyed.');
    expect(() => device.updateToken('x')).toThrow(InvalidStateError);
  });
});

describe('tokens', () => {
  it('requires a string token', () => {
    const env = fakeEnvironment();
    expect(() => new Device(42 as unknown as string, { platform: env.platform })).toThrow(
      new InvalidArgumentError('Parameter "token" must be of type "string".'),
    );
    const device = new Device(TOKEN, { platform: env.platform });
    expect(() => device.updateToken(null as unknown as string)).toThrow(
      'Parameter "token" must be of type "string".',
    );
  });

  it('fires tokenWillExpire at the lifetime minus 10,000 ms', () => {
    const env = fakeEnvironment();
    const { device } = connectedDevice(env, 60);
    const fired = vi.fn();
    device.on('tokenWillExpire', fired);
    env.clock.tick(49_999);
    expect(fired).not.toHaveBeenCalled();
    env.clock.tick(1);
    expect(fired).toHaveBeenCalledWith(device);
  });

  it('sends listen again with the new token', () => {
    const env = fakeEnvironment();
    const { device } = connectedDevice(env);
    device.updateToken('token-2');
    expect(env.socket().last('listen')).toMatchObject({ token: 'token-2' });
    expect(device.token).toBe('token-2');
  });

  it('reports a refused token as a coded error and drops the registration', async () => {
    const env = fakeEnvironment();
    const { device } = connectedDevice(env);
    env.socket().deliver('ready', {});
    await flush();
    const errors: Array<{ code: number; name: string; message: string }> = [];
    device.on('error', (e) => errors.push(e));
    env.socket().deliver('error', { error: { code: 31205, message: 'JWT Token Expired' } });
    expect(errors[0]).toMatchObject({
      code: 31205,
      name: 'JWTTokenExpiredError',
      message: 'JWTTokenExpiredError (31205): JWT Token Expired',
    });
    expect(device.state).toBe('unregistered');
  });
});

describe('incoming calls', () => {
  async function registered(env: FakeEnvironment) {
    const { device, registering } = connectedDevice(env);
    env.socket().deliver('ready', {});
    await registering;
    return device;
  }

  it('emits incoming with a pending call carrying CallSid and From', async () => {
    const env = fakeEnvironment();
    const device = await registered(env);
    let call: Call | undefined;
    device.on('incoming', (c) => (call = c));
    env.socket().deliver('invite', {
      callsid: 'CA1',
      sdp: 'v=0',
      parameters: { From: 'client:12', To: '+15550100042' },
    });
    expect(call!.status()).toBe('pending');
    expect(call!.direction).toBe('INCOMING');
    expect(call!.parameters).toMatchObject({ CallSid: 'CA1', From: 'client:12' });
    expect(device.isBusy).toBe(true);
  });

  it("refuses a malformed invite with 'Malformed invite from gateway'", async () => {
    const env = fakeEnvironment();
    const device = await registered(env);
    const errors: Array<{ code: number; message: string }> = [];
    device.on('error', (e) => errors.push(e));
    env.socket().deliver('invite', { callsid: 'CA1', parameters: {} });
    expect(errors[0]).toMatchObject({ code: 31100 });
    expect(errors[0]!.message).toContain('Malformed invite from gateway');
  });

  it('reject sends reject and closes; the device is free again', async () => {
    const env = fakeEnvironment();
    const device = await registered(env);
    let call: Call | undefined;
    device.on('incoming', (c) => (call = c));
    env.socket().deliver('invite', { callsid: 'CA2', sdp: 'v=0', parameters: {} });
    const rejected = vi.fn();
    call!.on('reject', rejected);
    call!.reject();
    expect(env.socket().last('reject')).toEqual({ callsid: 'CA2' });
    expect(call!.status()).toBe('closed');
    expect(rejected).toHaveBeenCalledOnce();
    expect(device.isBusy).toBe(false);
  });

  it('cancel from the gateway closes a pending call', async () => {
    const env = fakeEnvironment();
    const device = await registered(env);
    let call: Call | undefined;
    device.on('incoming', (c) => (call = c));
    env.socket().deliver('invite', { callsid: 'CA3', sdp: 'v=0', parameters: {} });
    const cancelled = vi.fn();
    call!.on('cancel', cancelled);
    env.socket().deliver('cancel', { callsid: 'CA3' });
    expect(cancelled).toHaveBeenCalledOnce();
    expect(call!.status()).toBe('closed');
    expect(device.isBusy).toBe(false);
  });

  it('accept answers with an SDP and opens when media connects', async () => {
    const env = fakeEnvironment();
    const device = await registered(env);
    let call: Call | undefined;
    device.on('incoming', (c) => (call = c));
    env.socket().deliver('invite', { callsid: 'CA4', sdp: 'v=0', parameters: {} });
    const accepted = vi.fn();
    call!.on('accept', accepted);
    call!.accept();
    expect(call!.status()).toBe('connecting');
    await flush();
    expect(env.socket().last('answer')).toEqual({ callsid: 'CA4', sdp: 'v=0 fake-answer' });
    // The microphone rides on the offer's own transceiver (no second, unnegotiated one).
    expect(env.peerConnections[0]!.transceivers).toHaveLength(1);
    env.peerConnections[0]!.setConnectionState('connected');
    expect(call!.status()).toBe('open');
    expect(accepted).toHaveBeenCalledOnce();
    call!.accept(); // a no-op unless pending
    expect(accepted).toHaveBeenCalledOnce();
    call!.disconnect();
    expect(env.socket().last('hangup')).toEqual({ callsid: 'CA4' });
    expect(call!.status()).toBe('closed');
  });

  it('a denied microphone is a 31401 PermissionDeniedError and the call hangs up', async () => {
    const env = fakeEnvironment();
    const device = await registered(env);
    env.microphone = () =>
      Promise.reject(Object.assign(new Error('denied'), { name: 'NotAllowedError' }));
    let call: Call | undefined;
    device.on('incoming', (c) => (call = c));
    env.socket().deliver('invite', { callsid: 'CA5', sdp: 'v=0', parameters: {} });
    const errors: Array<{ code: number; name: string }> = [];
    call!.on('error', (e) => errors.push(e));
    call!.accept();
    await flush();
    expect(errors[0]).toMatchObject({ code: 31401, name: 'PermissionDeniedError' });
    expect(env.socket().last('hangup')).toEqual({ callsid: 'CA5' });
    expect(call!.status()).toBe('closed');
  });
});

describe('outgoing calls', () => {
  it('invites with the connect params and opens on answer + media', async () => {
    const env = fakeEnvironment();
    const device = new Device(TOKEN, { platform: env.platform });
    const call = await device.connect({ params: { To: '+15550100042', call_user_id: '9' } });
    env.socket().open();
    await flush();
    const invite = env.socket().last('invite')!;
    expect(invite).toMatchObject({
      sdp: 'v=0 fake-offer',
      twilio: { params: 'To=%2B15550100042&call_user_id=9' },
    });
    expect(String(invite.callsid)).toMatch(/^TJS/);
    await expect(device.connect()).rejects.toThrow('A Call is already active');
    const ringing = vi.fn();
    call.on('ringing', ringing);
    env.socket().deliver('ringing', { callsid: 'CA9', sdp: 'v=0 answer' });
    await flush();
    expect(ringing).toHaveBeenCalledWith(true);
    expect(call.status()).toBe('ringing');
    expect(call.parameters.CallSid).toBe('CA9');
    env.peerConnections[0]!.setConnectionState('connected');
    expect(call.status()).toBe('ringing'); // early media, not yet answered
    env.socket().deliver('answer', { callsid: 'CA9', sdp: 'v=0 answer' });
    await flush();
    expect(call.status()).toBe('open');
    env.socket().deliver('hangup', {
      callsid: 'CA9',
      error: { code: 31486, message: 'The number is busy.' },
    });
    expect(call.status()).toBe('closed');
    expect(device.isBusy).toBe(false);
  });
});

describe('signalling socket', () => {
  it('answers heartbeats and reconnects after 15 s of silence, re-sending listen and register', async () => {
    const env = fakeEnvironment();
    const { registering } = connectedDevice(env);
    env.socket().deliver('ready', {});
    await registering;
    env.socket().deliver('\n');
    expect(env.socket().sent.filter((s) => s === '\n')).toHaveLength(1);
    const first = env.socket();
    env.clock.tick(15_000);
    expect(first.readyState).toBe(3);
    env.clock.tick(200); // back-off: 100 ms ± jitter
    expect(env.sockets).toHaveLength(2);
    env.socket().open();
    expect(
      env
        .socket()
        .frames()
        .map((f) => f.type),
    ).toEqual(['listen', 'register']);
  });
});
