import { describe, expect, it, vi } from 'vitest';
import { Device, isLegacyEdge } from './device';
import type { Call } from '../call/call';
import { fakeEnvironment } from '../testing/fake-platform';
import {
  advance,
  connectedDevice,
  flush,
  openCall,
  registeredDevice,
  ring,
} from '../testing/scenarios';
import { InvalidArgumentError, InvalidStateError, NotSupportedError } from '../errors/errors';
import { encodeConnectToken } from '../signalling/connect-token';

const TOKEN = 'token-1';

describe('Device registration', () => {
  it('opens the signalling socket at the page host and sends listen, then register', async () => {
    const env = fakeEnvironment();
    const events: string[] = [];
    const device = new Device(TOKEN, { platform: env.platform });
    for (const name of ['registering', 'registered', 'unregistered'] as const) {
      device.on(name, () => events.push(name));
    }
    const registering = device.register();
    env.socket().open();
    env.socket().deliver('connected', {
      region: 'local',
      edge: 'ashburn',
      home: 'us1',
      token: { identity: '7', ttl: 3600 },
    });
    expect(env.socket().url).toBe('ws://localhost:3000/signal');
    expect(device.state).toBe('registering');
    const [listen, register] = env.socket().frames();
    expect(listen).toMatchObject({
      type: 'listen',
      version: '1.6',
      payload: { token: TOKEN, reconnectTimeout: 30 },
    });
    expect(register).toMatchObject({ type: 'register', payload: { media: { audio: true } } });
    env.socket().deliver('ready', {});
    await registering;
    expect(device.state).toBe('registered');
    expect([device.identity, device.edge, device.home]).toEqual(['7', 'ashburn', 'us1']);
    expect(events).toEqual(['registering', 'registered']);
  });

  it('re-sends presence every 30,000 ms while registered', async () => {
    const env = fakeEnvironment();
    await registeredDevice(env);
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
    advance(30_000);
    expect(count()).toBe(3);
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
    await expect(device.unregister()).rejects.toThrow(
      'Attempt to unregister when device is in state "registering". Must be "registered".',
    );
    env.socket().deliver('ready', {});
    await registering;
    await expect(device.register()).rejects.toThrow(
      'Attempt to register when device is in state "registered". Must be "unregistered".',
    );
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
    device.destroy();
    expect(device.state).toBe('destroyed');
    expect(destroyed).toHaveBeenCalledOnce();
    await expect(device.register()).rejects.toThrow('Device has been destroyed.');
    await expect(device.unregister()).rejects.toThrow('Device has been destroyed.');
    await expect(device.connect()).rejects.toThrow('Device has been destroyed.');
    expect(() => device.updateToken('x')).toThrow(
      new InvalidStateError('Attempt to "updateToken" when device is in state "destroyed".'),
    );
    expect(() => device.updateOptions({})).toThrow(
      new InvalidStateError('Attempt to "updateOptions" when device is in state "destroyed".'),
    );
  });

  it('destroy ends calls and closes the socket', async () => {
    const env = fakeEnvironment();
    const { device, call } = await openCall(env);
    device.destroy();
    expect(call.status()).toBe('closed');
    expect(env.socket().readyState).toBe(3);
    expect(env.pc().closed).toBe(true);
  });

  it('loses the registration with the socket and registers again when it is back', async () => {
    const env = fakeEnvironment();
    const device = await registeredDevice(env);
    const events: string[] = [];
    for (const name of ['registering', 'registered', 'unregistered'] as const) {
      device.on(name, () => events.push(name));
    }
    env.socket().close();
    expect(device.state).toBe('registering');
    env.clock.tick(100);
    env.socket().open();
    expect(
      env
        .socket()
        .frames()
        .map((f) => f.type),
    ).toEqual(['listen', 'register']);
    env.socket().deliver('ready', {});
    expect(events).toEqual(['unregistered', 'registering', 'registered']);
  });
});

describe('unsupported browsers', () => {
  it('refuses a browser without WebRTC', () => {
    const env = fakeEnvironment();
    env.platform.webRtc = false;
    expect(() => new Device(TOKEN, { platform: env.platform })).toThrow(
      new NotSupportedError(
        'The softphone requires WebRTC browser support (RTCPeerConnection and getUserMedia).',
      ),
    );
  });

  it('refuses Microsoft Edge Legacy by its user agent', () => {
    const env = fakeEnvironment();
    env.platform.userAgent =
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/70.0.3538.102 Safari/537.36 Edge/18.19041';
    expect(() => new Device(TOKEN, { platform: env.platform })).toThrow(NotSupportedError);
    expect(() => new Device(TOKEN, { platform: env.platform })).toThrow(/Microsoft Edge Legacy/);
    expect(isLegacyEdge('Mozilla/5.0 … Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91')).toBe(
      false,
    );
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
      new InvalidArgumentError('Parameter "token" must be of type "string".'),
    );
  });

  it('fires tokenWillExpire at the lifetime minus 10,000 ms', () => {
    const env = fakeEnvironment();
    const { device } = connectedDevice(env, {}, 60);
    const fired = vi.fn();
    device.on('tokenWillExpire', fired);
    env.clock.tick(45_000);
    env.socket().deliver('\n');
    env.clock.tick(4_990);
    expect(fired).not.toHaveBeenCalled();
    env.clock.tick(10);
    expect(fired).toHaveBeenCalledWith(device);
  });

  it('honours tokenRefreshMs and re-arms the timer on every connected', () => {
    const env = fakeEnvironment();
    const { device } = connectedDevice(env, { tokenRefreshMs: 20_000 }, 30);
    const fired = vi.fn();
    device.on('tokenWillExpire', fired);
    env.clock.tick(5_000);
    env.socket().deliver('connected', { region: 'local', token: { identity: '7', ttl: 30 } });
    env.clock.tick(9_990);
    expect(fired).not.toHaveBeenCalled();
    env.clock.tick(10);
    expect(fired).toHaveBeenCalledOnce();
  });

  it('sends listen again with the new token', () => {
    const env = fakeEnvironment();
    const { device } = connectedDevice(env);
    device.updateToken('token-2');
    expect(env.socket().last('listen')).toMatchObject({ token: 'token-2' });
    expect(device.token).toBe('token-2');
  });

  it.each([
    [31205, 20104, 'AccessTokenExpired', 'JWT Token Expired'],
    [31204, 20101, 'AccessTokenInvalid', 'Invalid Access Token'],
    [31201, 20151, 'AuthenticationFailed', 'Authentication failed'],
  ])(
    'reports wire %i as %i %s (as the official SDK) and stops registering',
    async (wire, code, name, message) => {
      const env = fakeEnvironment();
      const device = await registeredDevice(env);
      const errors: Array<{ code: number; name: string; message: string }> = [];
      device.on('error', (e) => errors.push(e));
      env.socket().deliver('error', { error: { code: wire, message } });
      expect(errors).toEqual([
        expect.objectContaining({ code, name, message: `${name} (${code}): ${message}` }),
      ]);
      expect(device.state).toBe('unregistered');
      const socket = env.socket();
      const registers = () => socket.frames().filter((f) => f.type === 'register').length;
      const before = registers();
      await advance(env, 60_000, {}, 5_000);
      expect(env.sockets).toHaveLength(1);
      expect(registers()).toBe(before);
    },
  );

  it('reports other gateway errors with their class', async () => {
    const env = fakeEnvironment();
    const device = await registeredDevice(env);
    const errors: Array<{ code: number; name: string }> = [];
    device.on('error', (e) => errors.push(e));
    env.socket().deliver('error', { error: { code: 31009, message: 'No transport' } });
    env.socket().deliver('error', { error: { code: 39999, message: 'Strange' } });
    expect(errors).toEqual([
      expect.objectContaining({ code: 31009, name: 'TransportError' }),
      expect.objectContaining({ code: 31005, name: 'ConnectionError' }),
    ]);
  });
});

describe('incoming calls', () => {
  it('emits incoming with a pending call carrying CallSid, From and the reconnect token', async () => {
    const env = fakeEnvironment();
    const device = await registeredDevice(env);
    const call = await ring(env, device, {
      callsid: 'CA1',
      reconnect: 'RT1',
      parameters: { From: 'client:12', To: '+15550100042', Params: 'lead=5' },
    });
    expect(call.status()).toBe('pending');
    expect(call.direction).toBe('INCOMING');
    expect(call.parameters).toMatchObject({ CallSid: 'CA1', From: 'client:12' });
    expect(call.customParameters.get('lead')).toBe('5');
    expect(call.connectToken).toBeDefined();
    expect(device.calls).toEqual([call]);
    expect(device.isBusy).toBe(false);
  });

  it("refuses a malformed invite as a 31400 BadRequest 'Malformed invite from gateway'", async () => {
    const env = fakeEnvironment();
    const device = await registeredDevice(env);
    const errors: Array<{ code: number; name: string; message: string }> = [];
    device.on('error', (e) => errors.push(e));
    const incoming = vi.fn();
    device.on('incoming', incoming);
    env.socket().deliver('invite', { callsid: 'CA1', parameters: {} });
    env.socket().deliver('invite', { sdp: 'v=0', parameters: {} });
    await flush();
    expect(errors).toEqual([
      expect.objectContaining({
        code: 31400,
        name: 'BadRequest',
        message: 'BadRequest (31400): Malformed invite from gateway',
      }),
      expect.objectContaining({ code: 31400 }),
    ]);
    expect(incoming).not.toHaveBeenCalled();
  });

  it('reject sends reject and closes; the device is free again', async () => {
    const env = fakeEnvironment();
    const device = await registeredDevice(env);
    const call = await ring(env, device, { callsid: 'CA2' });
    const rejected = vi.fn();
    call.on('reject', rejected);
    call.reject();
    expect(env.socket().last('reject')).toEqual({ callsid: 'CA2' });
    expect(call.status()).toBe('closed');
    expect(rejected).toHaveBeenCalledOnce();
    expect(device.calls).toEqual([]);
  });

  it('cancel from the gateway closes a pending call', async () => {
    const env = fakeEnvironment();
    const device = await registeredDevice(env);
    const call = await ring(env, device, { callsid: 'CA3' });
    const cancelled = vi.fn();
    call.on('cancel', cancelled);
    env.socket().deliver('cancel', { callsid: 'CA3' });
    expect(cancelled).toHaveBeenCalledOnce();
    expect(call.status()).toBe('closed');
    expect(device.calls).toEqual([]);
  });

  it('accept answers with an SDP and opens when media connects', async () => {
    const env = fakeEnvironment();
    const device = await registeredDevice(env);
    const call = await ring(env, device, { callsid: 'CA4' });
    const accepted = vi.fn();
    call.on('accept', accepted);
    call.accept();
    expect(call.status()).toBe('connecting');
    expect(device.isBusy).toBe(true);
    await flush();
    expect(env.socket().last('answer')).toEqual({ callsid: 'CA4', sdp: 'v=0 fake-answer' });
    // The microphone rides on the offer's own transceiver (no second, unnegotiated one).
    expect(env.pc().transceivers).toHaveLength(1);
    env.pc().setConnectionState('connected');
    expect(call.status()).toBe('open');
    expect(accepted).toHaveBeenCalledWith(call);
    call.accept(); // a no-op unless pending
    expect(accepted).toHaveBeenCalledOnce();
    call.disconnect();
    expect(env.socket().last('hangup')).toEqual({ callsid: 'CA4' });
    expect(call.status()).toBe('closed');
    expect(device.isBusy).toBe(false);
  });

  it('a denied microphone is a 31401 PermissionDeniedError and the call hangs up', async () => {
    const env = fakeEnvironment();
    const device = await registeredDevice(env);
    env.microphone = () =>
      Promise.reject(Object.assign(new Error('denied'), { name: 'NotAllowedError' }));
    const call = await ring(env, device, { callsid: 'CA5' });
    const errors: Array<{ code: number; name: string }> = [];
    call.on('error', (e) => errors.push(e));
    const deviceErrors = vi.fn();
    device.on('error', deviceErrors);
    call.accept();
    await flush();
    expect(errors).toEqual([
      expect.objectContaining({ code: 31401, name: 'PermissionDeniedError' }),
    ]);
    expect(deviceErrors).toHaveBeenCalledWith(errors[0], call);
    expect(env.socket().last('hangup')).toEqual({ callsid: 'CA5' });
    expect(call.status()).toBe('closed');
  });

  it.each([
    ['code 31208', 31401, { code: 31208 }],
    ['PermissionDeniedError', 31401, { name: 'PermissionDeniedError' }],
    ['NotFoundError', 31402, { name: 'NotFoundError' }],
  ])('a microphone failure with %s is %i', async (_label, code, failure) => {
    const env = fakeEnvironment();
    const device = await registeredDevice(env);
    env.microphone = () => Promise.reject(Object.assign(new Error('mic'), failure));
    const call = await ring(env, device);
    const errors: Array<{ code: number }> = [];
    call.on('error', (e) => errors.push(e));
    call.accept();
    await flush();
    expect(errors.map((e) => e.code)).toEqual([code]);
    expect(call.status()).toBe('closed');
  });

  it('refuses a second incoming call while busy', async () => {
    const env = fakeEnvironment();
    const { device } = await openCall(env);
    const incoming = vi.fn();
    device.on('incoming', incoming);
    env.socket().deliver('invite', { callsid: 'CA9', sdp: 'v=0', parameters: {} });
    await flush();
    expect(incoming).not.toHaveBeenCalled();
    expect(env.socket().last('reject')).toEqual({ callsid: 'CA9' });
  });
});

describe('ringtone and sounds', () => {
  const sounds = {
    incoming: '/sounds/incoming.mp3',
    outgoing: '/sounds/outgoing.mp3',
    disconnect: '/sounds/disconnect.mp3',
    dtmf1: '/sounds/dtmf-1.mp3',
  };

  it('plays the ringtone in a loop and waits at most 2,000 ms for it before incoming', async () => {
    const env = fakeEnvironment();
    env.soundsStart = false; // play() never resolves
    const device = await registeredDevice(env, { sounds });
    const incoming = vi.fn();
    device.on('incoming', incoming);
    env.socket().deliver('invite', { callsid: 'CA1', sdp: 'v=0', parameters: {} });
    await flush();
    const ringtone = env.sounds.get(sounds.incoming)!;
    expect(ringtone.plays).toEqual([{ loop: true, at: 0 }]);
    env.clock.tick(1_990);
    await flush();
    expect(incoming).not.toHaveBeenCalled();
    env.clock.tick(10);
    await flush();
    expect(incoming).toHaveBeenCalledOnce();
    // It loops until the call is answered.
    await advance(env, 60_000, {}, 5_000);
    expect(ringtone.playing).toBe(true);
    const call = incoming.mock.calls[0]![0] as Call;
    call.accept();
    await flush();
    env.pc().setConnectionState('connected');
    expect(ringtone.playing).toBe(false);
  });

  it('emits incoming as soon as the ringtone plays, and stops it on cancel', async () => {
    const env = fakeEnvironment();
    const device = await registeredDevice(env, { sounds });
    const call = await ring(env, device);
    const ringtone = env.sounds.get(sounds.incoming)!;
    expect(env.clock.now()).toBe(0);
    expect(ringtone.playing).toBe(true);
    env.socket().deliver('cancel', { callsid: call.parameters.CallSid });
    expect(ringtone.playing).toBe(false);
  });

  it('plays nothing when the app gave no sound files (nothing fetched)', async () => {
    const env = fakeEnvironment();
    const { device, call } = await openCall(env);
    call.sendDigits('1');
    call.disconnect();
    device.destroy();
    expect(env.sounds.size).toBe(0);
  });

  it('cuts the outgoing and disconnect sounds at 3,000 ms and DTMF at 1,000 ms', async () => {
    const env = fakeEnvironment();
    const device = new Device(TOKEN, { platform: env.platform, sounds });
    const call = await device.connect({ params: { To: '+15550100042' } });
    env.socket().open();
    await flush();
    env.socket().deliver('answer', { callsid: 'CA7', sdp: 'v=0 answer' });
    await flush();
    env.pc().setConnectionState('connected');
    const outgoing = env.sounds.get(sounds.outgoing)!;
    expect(outgoing.plays).toHaveLength(1);
    env.clock.tick(2_999);
    expect(outgoing.playing).toBe(true);
    env.clock.tick(1);
    expect(outgoing.playing).toBe(false);
    call.sendDigits('1');
    // Its sound plays when the browser starts the tone.
    env.clock.tick(0);
    const dtmf = env.sounds.get(sounds.dtmf1)!;
    env.clock.tick(999);
    expect(dtmf.playing).toBe(true);
    env.clock.tick(1);
    expect(dtmf.playing).toBe(false);
    call.disconnect();
    const disconnect = env.sounds.get(sounds.disconnect)!;
    env.clock.tick(2_999);
    expect(disconnect.playing).toBe(true);
    env.clock.tick(1);
    expect(disconnect.playing).toBe(false);
  });

  it('audio.incoming/outgoing/disconnect(false) silence those sounds', async () => {
    const env = fakeEnvironment();
    const device = await registeredDevice(env, { sounds });
    expect(device.audio.incoming(false)).toBe(false);
    expect(device.audio.disconnect(false)).toBe(false);
    expect(device.audio.outgoing()).toBe(true);
    const call = await ring(env, device);
    call.reject();
    expect(env.sounds.has(sounds.incoming)).toBe(false);
    expect(env.sounds.has(sounds.disconnect)).toBe(false);
  });
});

describe('outgoing calls', () => {
  // Spec §4: "Accept is implicit for incoming calls; outgoing calls are not accepted again."
  it('spec §4: accept() on an outgoing call does nothing, while connecting, ringing or open', async () => {
    const env = fakeEnvironment();
    const device = new Device(TOKEN, { platform: env.platform });
    const call = await device.connect({ params: { To: '+15550100042' } });
    const accepted = vi.fn();
    call.on('accept', accepted);
    env.socket().open();
    await flush();
    const sentBefore = () =>
      env
        .socket()
        .frames()
        .map((f) => f.type);
    const tryAccept = async (state: string) => {
      const sent = sentBefore();
      const pcs = env.peerConnections.length;
      const microphones = env.userMedia.length;
      call.accept();
      await flush();
      expect(call.status()).toBe(state);
      expect(
        env
          .socket()
          .frames()
          .map((f) => f.type),
      ).toEqual(sent);
      expect(env.peerConnections).toHaveLength(pcs);
      expect(env.userMedia).toHaveLength(microphones);
    };
    await tryAccept('connecting');
    env.socket().deliver('ringing', { callsid: 'CA9', sdp: 'v=0 answer' });
    await flush();
    await tryAccept('ringing');
    env.socket().deliver('answer', { callsid: 'CA9', sdp: 'v=0 answer', reconnect: 'RT9' });
    await flush();
    env.pc().setConnectionState('connected');
    await flush();
    expect(call.status()).toBe('open');
    expect(accepted).toHaveBeenCalledOnce();
    await tryAccept('open');
    expect(accepted).toHaveBeenCalledOnce();
    expect(
      env
        .socket()
        .frames()
        .filter((f) => f.type === 'answer'),
    ).toEqual([]);
  });

  it('a number answering at once (ringing with early media, then answer, back to back) opens the call', async () => {
    const env = fakeEnvironment();
    const device = new Device(TOKEN, { platform: env.platform });
    const call = await device.connect({ params: { To: '+15550199006' } });
    env.socket().open();
    await flush();
    const errors: Array<{ code: number }> = [];
    call.on('error', (e) => errors.push(e));
    // Both before the first answer is applied: the second waits for it, not a second apply.
    env.socket().deliver('ringing', { callsid: 'CA7', sdp: 'v=0 answer' });
    env.socket().deliver('answer', { callsid: 'CA7', sdp: 'v=0 answer', reconnect: 'RT7' });
    await flush();
    env.pc().setConnectionState('connected');
    await flush();
    expect(errors).toEqual([]);
    expect(call.status()).toBe('open');
  });

  it('invites with the connect params and opens on answer + media', async () => {
    const env = fakeEnvironment();
    const device = new Device(TOKEN, { platform: env.platform });
    const call = await device.connect({ params: { To: '+15550100042', call_user_id: '9' } });
    expect(call.direction).toBe('OUTGOING');
    expect(call.status()).toBe('connecting');
    env.socket().open();
    await flush();
    const invite = env.socket().last('invite')!;
    expect(invite).toMatchObject({
      sdp: 'v=0 fake-offer 1',
      twilio: { params: 'To=%2B15550100042&call_user_id=9' },
    });
    expect(String(invite.callsid)).toMatch(/^TJS/);
    expect(invite.callsid).toBe(call.outboundConnectionId);
    await expect(device.connect()).rejects.toThrow(
      new InvalidStateError('A Call is already active'),
    );
    const ringing = vi.fn();
    call.on('ringing', ringing);
    env.socket().deliver('ringing', { callsid: 'CA9', sdp: 'v=0 answer' });
    await flush();
    expect(ringing).toHaveBeenCalledWith(true);
    expect(call.status()).toBe('ringing');
    expect(call.parameters.CallSid).toBe('CA9');
    env.pc().setConnectionState('connected');
    expect(call.status()).toBe('ringing'); // early media, not yet answered
    env.socket().deliver('answer', { callsid: 'CA9', sdp: 'v=0 answer', reconnect: 'RT9' });
    await flush();
    expect(call.status()).toBe('open');
    expect(call.connectToken).toBeDefined();
    const errors: Array<{ code: number; name: string }> = [];
    call.on('error', (e) => errors.push(e));
    env.socket().deliver('hangup', {
      callsid: 'CA9',
      error: { code: 31486, message: 'The number is busy.' },
    });
    // As the official SDK: a "precise" code is a 31005 unless asked for.
    expect(errors).toEqual([expect.objectContaining({ code: 31005, name: 'ConnectionError' })]);
    expect(call.status()).toBe('closed');
    expect(device.isBusy).toBe(false);
  });

  it('reports precise gateway codes with enableImprovedSignalingErrorPrecision', async () => {
    const env = fakeEnvironment();
    const device = new Device(TOKEN, {
      platform: env.platform,
      enableImprovedSignalingErrorPrecision: true,
    });
    const call = await device.connect({ params: { To: '+15550100099' } });
    env.socket().open();
    await flush();
    const errors: Array<{ code: number; name: string; message: string }> = [];
    call.on('error', (e) => errors.push(e));
    env.socket().deliver('hangup', {
      callsid: call.outboundConnectionId!,
      error: { code: 31486, message: 'The number is busy.' },
    });
    expect(errors).toEqual([
      expect.objectContaining({ code: 31486, message: 'BusyHere (31486): The number is busy.' }),
    ]);
  });

  it('parses a connect token: takes over the live call with its reconnect token', async () => {
    const env = fakeEnvironment();
    const device = new Device(TOKEN, { platform: env.platform });
    const connectToken = encodeConnectToken({
      customParameters: { To: '+15550100042' },
      parameters: { CallSid: 'CA5', From: 'client:3' },
      signalingReconnectToken: 'RT5',
    });
    const call = await device.connect({ connectToken });
    env.socket().open();
    await flush();
    expect(env.socket().last('invite')).toEqual({
      callsid: 'CA5',
      sdp: 'v=0 fake-offer 1',
      reconnect: 'RT5',
      twilio: {},
    });
    expect(call.parameters).toEqual({ CallSid: 'CA5', From: 'client:3' });
    env.socket().deliver('answer', { callsid: 'CA5', sdp: 'v=0 answer', reconnect: 'RT6' });
    await flush();
    env.pc().setConnectionState('connected');
    expect(call.status()).toBe('open');
  });

  it.each([
    ['not base64 at all', 'Cannot parse connectToken'],
    [btoa('not json'), 'Cannot parse connectToken'],
    [btoa(encodeURIComponent('{}')), 'Invalid connectToken'],
    [
      btoa(encodeURIComponent(JSON.stringify({ parameters: { CallSid: 'CA1' } }))),
      'Invalid connectToken',
    ],
    [
      btoa(encodeURIComponent(JSON.stringify({ parameters: {}, signalingReconnectToken: 'x' }))),
      'Invalid connectToken',
    ],
  ])('refuses the connect token %j: %s', async (connectToken, message) => {
    const env = fakeEnvironment();
    const device = new Device(TOKEN, { platform: env.platform });
    await expect(device.connect({ connectToken })).rejects.toThrow(
      new InvalidArgumentError(message),
    );
    expect(device.isBusy).toBe(false);
  });
});

describe('updateOptions', () => {
  it("refuses an edge or gateway change during a call: 'Cannot change Edge while on an active Call'", async () => {
    const env = fakeEnvironment();
    const { device } = await openCall(env, { edge: 'ashburn' });
    expect(() => device.updateOptions({ edge: 'dublin' })).toThrow(
      new InvalidStateError('Cannot change Edge while on an active Call'),
    );
    expect(() => device.updateOptions({ chunderw: 'other.example:443' })).toThrow(
      'Cannot change Edge while on an active Call',
    );
    expect(() => device.updateOptions({ edge: 'ashburn', tokenRefreshMs: 5_000 })).not.toThrow();
    expect(env.sockets).toHaveLength(1);
  });

  it('moves the socket to the new gateway when no call is active', async () => {
    const env = fakeEnvironment();
    const device = await registeredDevice(env);
    device.updateOptions({ chunderw: 'wss://gateway.example/signal' });
    expect(env.sockets).toHaveLength(2);
    expect(env.socket().url).toBe('wss://gateway.example/signal');
    expect(env.sockets[0]!.readyState).toBe(3);
    env.socket().open();
    await flush();
    // The new socket registers right away, not at the next 30 s registration tick.
    expect(
      env
        .socket()
        .frames()
        .map((f) => f.type),
    ).toEqual(['listen', 'register']);
    expect(env.socket().last('register')).toEqual({ media: { audio: true } });
  });
});
