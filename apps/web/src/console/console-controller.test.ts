import type { AccountSettings, CallUserResponse } from '@leadline/contracts';
import { describe, expect, it, vi } from 'vitest';
import { ApiClient } from '../api/api-client';
import { FakeApi, demoCallUser, demoUser } from '../test-support/fake-api';
import {
  AUTO_RESET_AFTER_CALL_MS,
  CONNECTION_ERROR_ALERT,
  MICROPHONE_ERROR_ALERT,
} from '../constants';
import { FakePhone, type FakeCall } from '../test-support/fake-phone';
import { createFakePlatform } from '../test-support/fake-platform';
import { ConsoleController } from './console-controller';
import type { PlaceCallRequest } from './outbound-call';

const LEAD_CALL_USER = 42;
const INBOUND_CALL_USER = 43;

async function setup(
  options: {
    settings?: AccountSettings;
    callUsers?: Record<number, CallUserResponse>;
    permissions?: string[];
    desktop?: boolean;
  } = {},
) {
  const user = demoUser({
    settings: options.settings ?? {},
    permissions: options.permissions ?? [],
  });
  const server = new FakeApi([{ user, password: 'pw' }]).signIn();
  const callUsers = options.callUsers ?? {
    [LEAD_CALL_USER]: demoCallUser(),
    [INBOUND_CALL_USER]: demoCallUser({ call: { id: 9002, direction: 'inbound' } }),
  };
  for (const [id, callUser] of Object.entries(callUsers)) server.addCallUser(Number(id), callUser);
  const platform = createFakePlatform(server.fetch);
  const phone = new FakePhone();
  const api = new ApiClient({
    fetch: server.fetch,
    reload: () => platform.reload(),
    now: () => platform.clock.now(),
  });
  const controller = new ConsoleController({
    api,
    writes: api,
    phoneFactory: phone.factory,
    timers: platform.timers,
    clock: platform.clock,
    log: platform.log,
    alert: (message) => platform.alert(message),
    desktop: options.desktop ?? false,
  });
  const loaded = await api.getUser();
  if (!loaded) throw new Error('no user');
  controller.startPhone(loaded);
  await vi.waitFor(() => expect(controller.getSnapshot().phone).toBe('ready'));
  const view = () => controller.state.view;

  /** Rings `callUserId` and waits until the console shows it. */
  async function ring(callUserId = LEAD_CALL_USER): Promise<FakeCall> {
    const call = phone.device.ring(callUserId);
    await vi.waitFor(() => expect(view()).toBe('ringing'));
    return call;
  }

  return { server, platform, phone, controller, view, ring };
}

describe('ConsoleController: the softphone', () => {
  it('fetches a token (with the time query), creates the device with it and registers', async () => {
    const { server, phone, platform } = await setup();
    const [first] = server.requestsTo('GET', '/api/v1/twilio/token2');
    expect(first?.query.get('time')).toBe(String(platform.clock.now()));
    expect(phone.devices).toHaveLength(1);
    expect(phone.device.tokens).toEqual(['fake-token-1']);
    expect(phone.device.state).toBe('registered');
  });

  it('refreshes the token when it will expire', async () => {
    const { phone, server } = await setup();
    phone.device.warnTokenExpiry();
    await vi.waitFor(() => expect(phone.device.tokens).toEqual(['fake-token-1', 'fake-token-2']));
    expect(server.requestsTo('GET', '/api/v1/twilio/token2')[1]?.query.get('time')).toBeNull();
  });

  it.each([31205, 20101, 20104])('fetches a new token on error %i', async (code) => {
    const { phone, view } = await setup();
    phone.device.fail(code, 'token expired');
    await vi.waitFor(() => expect(phone.device.tokens).toEqual(['fake-token-1', 'fake-token-2']));
    expect(view()).toBe('waiting');
  });

  it('does not fetch a new token on those errors when the account opts out', async () => {
    const { phone, server, platform } = await setup({ settings: { no_token_refetch: true } });
    phone.device.fail(31205, 'token expired');
    await Promise.resolve();
    expect(server.requestsTo('GET', '/api/v1/twilio/token2')).toHaveLength(1);
    expect(platform.logs.at(-1)?.message).toContain('(31205)');
  });

  it('an account exempt from token re-fetch keeps its token on unregistered and tokenWillExpire', async () => {
    const { phone, server, controller } = await setup({ settings: { no_token_refetch: true } });
    phone.device.warnTokenExpiry();
    phone.device.dropRegistration();
    // Registers again with the token it has.
    await vi.waitFor(() => expect(controller.getSnapshot().phone).toBe('ready'));
    expect(server.requestsTo('GET', '/api/v1/twilio/token2')).toHaveLength(1);
    expect(phone.device.tokens).toEqual(['fake-token-1']);
  });

  it('a hung-up connection that does not close is reported to the server', async () => {
    const { controller, server, ring } = await setup();
    const call = await ring();
    controller.accept();
    call.disconnectFails = true;
    controller.hangUp();
    await vi.waitFor(() =>
      expect(server.requestsTo('POST', '/twilio/debug/webrtc').map((r) => r.body)).toEqual([
        { user: 7, conn_status: 'open' },
      ]),
    );
  });

  it('a connection that closes on hang-up is not reported', async () => {
    const { controller, server, ring } = await setup();
    await ring();
    controller.accept();
    controller.hangUp();
    await controller.dispose('contacted');
    expect(server.requestsTo('POST', '/twilio/debug/webrtc')).toEqual([]);
  });

  it.each([31009, 31005])('ignores error %i entirely', async (code) => {
    const { phone, platform, controller, ring } = await setup();
    const call = await ring();
    controller.accept();
    phone.device.fail(code);
    call.fail(code);
    expect(controller.state.view).toBe('oncall');
    expect(platform.logs.filter((l) => l.level === 'error')).toEqual([]);
    expect(platform.alerts).toEqual([]);
  });

  it('logs other device errors with a timestamp; with no live call nothing else changes', async () => {
    const { phone, platform, controller } = await setup();
    phone.device.fail(31000, 'Cannot establish connection. Client is disconnected');
    expect(controller.errorLog).toEqual([
      '[2025-01-06T09:00:00.000Z] softphone device error DeviceError (31000): Cannot establish connection. Client is disconnected',
    ]);
    expect(platform.logs.at(-1)).toEqual({ level: 'error', message: controller.errorLog[0] });
    expect(controller.state.view).toBe('waiting');
    expect(platform.alerts).toEqual([]);
  });

  it('a device error resets a live call', async () => {
    const { phone, controller, ring } = await setup();
    const call = await ring();
    controller.accept();
    phone.device.fail(31003, 'media connection interrupted');
    expect(controller.state.view).toBe('waiting');
    expect(call.status()).toBe('closed');
  });

  it('re-fetches a token and registers again after losing registration', async () => {
    const { phone, controller } = await setup();
    phone.device.dropRegistration();
    expect(controller.getSnapshot().phone).toBe('offline');
    await vi.waitFor(() => expect(controller.getSnapshot().phone).toBe('ready'));
    expect(phone.device.tokens).toEqual(['fake-token-1', 'fake-token-2']);
  });

  it('drops a device that arrives after the phone was stopped', async () => {
    const { server, platform } = await setup();
    const phone = new FakePhone();
    const api = new ApiClient({
      fetch: server.fetch,
      reload: () => platform.reload(),
      now: () => 0,
    });
    const controller = new ConsoleController({
      api,
      writes: api,
      phoneFactory: phone.factory,
      timers: platform.timers,
      clock: platform.clock,
      log: platform.log,
      alert: () => {},
    });
    const release = server.hold();
    controller.startPhone(demoUser());
    controller.stopPhone();
    release();
    await vi.waitFor(() =>
      expect(server.requestsTo('GET', '/api/v1/twilio/token2')).toHaveLength(2),
    );
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(phone.devices).toEqual([]);
    expect(controller.getSnapshot().phone).toBe('idle');
  });

  it('destroys the device on logout and goes to the login view', async () => {
    const { phone, controller, server } = await setup();
    await controller.logout();
    expect(phone.device.state).toBe('destroyed');
    expect(controller.state.view).toBe('login');
    expect(server.requestsTo('POST', '/api/v1/user/logout')).toHaveLength(1);
  });
});

describe('ConsoleController: incoming calls', () => {
  it('loads the call user named in From and rings with its banner', async () => {
    const { controller, server, ring } = await setup();
    const call = await ring();
    expect(server.requestsTo('GET', '/api/v1/callusers/42')).toHaveLength(1);
    expect(controller.state).toMatchObject({ view: 'ringing', banner: 'Incoming Lead!' });
    expect(controller.state.call).toMatchObject({
      callSid: call.parameters.CallSid,
      callUserId: 42,
    });
  });

  it('starts loading the call user when the ring reaches the socket, before the SDK hands the call over, and loads it once', async () => {
    const { controller, phone, server, view } = await setup();
    const release = server.hold();
    const { CallSid } = phone.device.invite(LEAD_CALL_USER);
    // Loading while the SDK's ringtone starts: the call itself has not come yet.
    expect(server.requestsTo('GET', '/api/v1/callusers/42')).toHaveLength(1);
    expect(view()).toBe('waiting');
    const call = phone.device.ring(LEAD_CALL_USER, { callSid: CallSid });
    expect(view()).toBe('waiting');
    release();
    await vi.waitFor(() => expect(view()).toBe('ringing'));
    expect(server.requestsTo('GET', '/api/v1/callusers/42')).toHaveLength(1);
    expect(controller.state.call).toMatchObject({
      callSid: call.parameters.CallSid,
      callUserId: 42,
    });
  });

  it('a call other than the one announced at the socket loads its own call user', async () => {
    const { controller, phone, server, view } = await setup();
    phone.device.invite(INBOUND_CALL_USER);
    const call = phone.device.ring(LEAD_CALL_USER);
    await vi.waitFor(() => expect(view()).toBe('ringing'));
    expect(server.requestsTo('GET', '/api/v1/callusers/43')).toHaveLength(1);
    expect(server.requestsTo('GET', '/api/v1/callusers/42')).toHaveLength(1);
    expect(controller.state.call?.callSid).toBe(call.parameters.CallSid);
  });

  it('a ring at the socket while busy loads nothing; a call user that fails to load at the ring declines the call', async () => {
    const { controller, phone, server, ring } = await setup();
    await ring();
    phone.device.invite(INBOUND_CALL_USER);
    expect(server.requestsTo('GET', '/api/v1/callusers/43')).toHaveLength(0);
    controller.ignore();
    await vi.waitFor(() => expect(controller.state.view).toBe('waiting'));
    const { CallSid } = phone.device.invite(77);
    const unknown = phone.device.ring(77, { callSid: CallSid });
    await vi.waitFor(() => expect(unknown.invocations).toEqual(['reject']));
    expect(server.requestsTo('GET', '/api/v1/callusers/77')).toHaveLength(1);
    expect(controller.errorLog.at(-1)).toContain('Call not found.');
  });

  it('answers by itself when the server says autoaccept', async () => {
    const { controller, phone, platform } = await setup({
      callUsers: { 42: demoCallUser({ autoaccept: true }) },
    });
    const call = phone.device.ring(42);
    await vi.waitFor(() => expect(controller.state.view).toBe('oncall'));
    expect(call.invocations).toEqual(['accept']);
    expect(controller.state.connectedAtMs).toBe(platform.clock.now());
  });

  it('does not auto-answer when the profile turns it off', async () => {
    const profile = { id: 7703, is_deal_whispertext: false, auto_answer: false, tags: [] };
    const { ring } = await setup({
      callUsers: { 42: demoCallUser({ autoaccept: true, call: { profile } }) },
    });
    const call = await ring();
    expect(call.invocations).toEqual([]);
  });

  it('drops a call whose caller gives up while its call user loads', async () => {
    const { controller, phone, server } = await setup();
    const release = server.hold();
    const call = phone.device.ring(42);
    call.cancelByCaller();
    release();
    await vi.waitFor(() =>
      expect(server.requestsTo('GET', '/api/v1/callusers/42')).toHaveLength(1),
    );
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(controller.state.view).toBe('waiting');
  });

  it('resets when the caller gives up while ringing', async () => {
    const { controller, ring } = await setup();
    const call = await ring();
    call.cancelByCaller();
    expect(controller.state.view).toBe('waiting');
    expect(call.listenerCount('cancel')).toBe(0);
  });

  it('declines a second call while one is ringing', async () => {
    const { controller, phone, ring } = await setup();
    const first = await ring();
    const second = phone.device.ring(42);
    expect(second.invocations).toEqual(['reject']);
    expect(controller.state.call?.callSid).toBe(first.parameters.CallSid);
  });

  it('declines a call whose From is not client:<id>', async () => {
    const { controller, phone } = await setup();
    const call = phone.device.ring(0, { from: '+15550100142' });
    expect(call.invocations).toEqual(['reject']);
    expect(controller.errorLog.at(-1)).toContain('MalformedIncomingCallError (9201)');
  });

  it('declines a call whose call user cannot be loaded', async () => {
    const { controller, phone } = await setup();
    const call = phone.device.ring(77);
    await vi.waitFor(() => expect(call.invocations).toEqual(['reject']));
    expect(controller.state.view).toBe('waiting');
    expect(controller.errorLog.at(-1)).toContain('Call not found.');
  });

  it('Ignore rejects the call and tells the server', async () => {
    const { controller, server, ring } = await setup();
    const call = await ring();
    controller.ignore();
    expect(controller.state.view).toBe('waiting');
    expect(call.invocations).toEqual(['reject']);
    await vi.waitFor(() =>
      expect(server.requestsTo('POST', '/apps/webrtc/9001/reject')).toHaveLength(1),
    );
  });
});

describe('ConsoleController: on a call', () => {
  it('accept answers; mute follows the call; hang up disconnects and asks for the result', async () => {
    const { controller, ring } = await setup();
    const call = await ring();
    controller.accept();
    expect(call.status()).toBe('open');
    controller.toggleMute();
    expect(call.isMuted()).toBe(true);
    expect(controller.state.muted).toBe(true);
    call.mute(false);
    expect(controller.state.muted).toBe(false);
    controller.hangUp();
    expect(call.invocations).toEqual(['accept', 'mute(true)', 'mute(false)', 'disconnect']);
    expect(controller.state).toMatchObject({ view: 'disposition', banner: 'Call Ended' });
  });

  it('a keypad digit the softphone fails to send is logged without the digit', async () => {
    const { controller, ring, platform } = await setup();
    const call = await ring();
    controller.accept();
    call.sendDigitsFailure = new Error('the SDK failed');
    controller.sendDigit('7');
    expect(controller.errorLog.at(-1)).toContain('sending a keypad digit failed: the SDK failed');
    // The lines' text after their time stamp: no digit 7 anywhere.
    const lines = [...controller.errorLog, ...platform.logs.map((l) => l.message)].map((line) =>
      line.replace(/^\[[^\]]*\] /, ''),
    );
    expect(lines.filter((line) => line.includes('7'))).toEqual([]);
  });

  it('the far end hanging up ends the call too', async () => {
    const { controller, ring } = await setup();
    const call = await ring();
    controller.accept();
    call.hangUpRemotely();
    expect(controller.state.view).toBe('disposition');
  });

  it('records the volume while on the call and clears it after', async () => {
    const { controller, ring } = await setup();
    const call = await ring();
    call.reportVolume(0.9, 0.9);
    expect(controller.getVolume()).toEqual({ input: 0, output: 0 });
    controller.accept();
    call.reportVolume(0.2, 0.1);
    expect(controller.getVolume()).toEqual({ input: 0.2, output: 0.1 });
    controller.hangUp();
    expect(controller.getVolume()).toEqual({ input: 0, output: 0 });
  });

  it('a call the server declined (31603) is logged and reset, its sentence the waiting notice; no alert', async () => {
    const { controller, platform, ring } = await setup();
    const call = await ring();
    controller.accept();
    const sentence = 'Calls to the United Kingdom are not allowed for this account.';
    call.fail(31603, sentence, 'Decline');
    expect(controller.state).toMatchObject({ view: 'waiting', notice: sentence, call: null });
    expect(call.status()).toBe('closed');
    expect(platform.alerts).toEqual([]);
    expect(controller.errorLog.at(-1)).toBe(
      `[2025-01-06T09:00:00.000Z] softphone call error Decline (31603): ${sentence}`,
    );
  });

  it("a call error alerts 'Connection error code 8', logs it and resets", async () => {
    const { controller, platform, ring } = await setup();
    const call = await ring();
    controller.accept();
    call.fail(31000, 'Error processing answer');
    expect(platform.alerts).toEqual([CONNECTION_ERROR_ALERT]);
    expect(controller.state.view).toBe('waiting');
    expect(call.status()).toBe('closed');
    expect(controller.errorLog.at(-1)).toMatch(
      /^\[2025-01-06T09:00:00\.000Z\] softphone call error CallError \(31000\)/,
    );
  });

  it('a call quality warning stands while raised and goes into the error log, raised and cleared', async () => {
    const { controller, ring } = await setup();
    const call = await ring();
    controller.accept();
    call.raiseWarning('high-jitter', {
      threshold: { name: 'max', value: 30 },
      values: [12, 35.456, 41, 52],
    });
    expect(controller.state.qualityWarnings).toEqual(['high-jitter']);
    call.clearWarning('high-jitter');
    expect(controller.state.qualityWarnings).toEqual([]);
    expect(controller.state.view).toBe('oncall');
    expect(controller.errors.getSnapshot()).toEqual([
      '[2025-01-06T09:00:00.000Z] call quality warning raised: high-jitter, "Poor connection: audio may break up" (max 30; values 12, 35.46, 41, 52)',
      '[2025-01-06T09:00:00.000Z] call quality warning cleared: high-jitter',
    ]);
  });

  it('a warning without data (ours for the microphone) is logged by name and words', async () => {
    const { controller, ring } = await setup();
    const call = await ring();
    controller.accept();
    call.raiseWarning('constant-audio-input-level');
    expect(controller.errorLog).toEqual([
      '[2025-01-06T09:00:00.000Z] call quality warning raised: constant-audio-input-level, "No sound from your microphone"',
    ]);
  });

  it('warnings left standing end with the call; a late one of that call changes nothing', async () => {
    const { controller, ring } = await setup();
    const call = await ring();
    controller.accept();
    call.raiseWarning('low-bytes-sent');
    call.raiseWarning('high-rtt');
    expect(controller.state.qualityWarnings).toEqual(['low-bytes-sent', 'high-rtt']);
    controller.hangUp();
    expect(controller.state).toMatchObject({ view: 'disposition', qualityWarnings: [] });
    // The call is released: nothing it still says reaches the console or its log.
    call.clearWarning('high-rtt');
    expect(call.listenerCount('warning')).toBe(0);
    expect(call.listenerCount('warning-cleared')).toBe(0);
    expect(controller.errorLog).toHaveLength(2);
  });

  it.each([31401, 31402])(
    'microphone error %i alerts that the microphone cannot be accessed',
    async (code) => {
      const { controller, platform, phone, ring } = await setup();
      const call = await ring();
      controller.accept();
      call.fail(code, 'Permission denied');
      // The device's copy of a call error is left to the call's listener.
      phone.device.fail(code, 'Permission denied', call);
      expect(platform.alerts).toEqual([MICROPHONE_ERROR_ALERT]);
      expect(controller.state.view).toBe('waiting');
    },
  );
});

describe('ConsoleController: after the call', () => {
  it('an inbound call goes to thank-you and resets after 2000 ms', async () => {
    const { controller, platform, ring } = await setup();
    await ring(INBOUND_CALL_USER);
    expect(controller.state.banner).toBe('Sales line');
    controller.accept();
    controller.hangUp();
    expect(controller.state).toMatchObject({
      view: 'thankyou',
      banner: 'Call Ended',
      autoReset: true,
    });
    platform.clock.tick(AUTO_RESET_AFTER_CALL_MS - 1);
    expect(controller.state.view).toBe('thankyou');
    platform.clock.tick(1);
    expect(controller.state.view).toBe('waiting');
    expect(platform.clock.pendingCount).toBe(0);
  });

  it('Add Note before the auto-reset keeps the note view', async () => {
    const { controller, platform, ring } = await setup();
    await ring(INBOUND_CALL_USER);
    controller.accept();
    controller.hangUp();
    platform.clock.tick(1_000);
    controller.addNote();
    expect(platform.clock.pendingCount).toBe(0);
    platform.clock.tick(5_000);
    expect(controller.state.view).toBe('note');
  });

  it('posts the disposition, then thanks; a note is posted with the call id', async () => {
    const { controller, server, ring } = await setup();
    await ring();
    controller.accept();
    controller.hangUp();
    await controller.dispose('voicemail');
    expect(server.requestsTo('POST', '/apps/webrtc/9001/disposition')[0]?.body).toEqual({
      status: 'voicemail',
    });
    expect(controller.state).toMatchObject({ view: 'thankyou', autoReset: false });
    controller.addNote();
    await controller.saveNote('Left a voicemail about the quote');
    expect(server.requestsTo('POST', '/api/v1/notes')[0]?.body).toEqual({
      content: 'Left a voicemail about the quote',
      call_id: 9001,
    });
    expect(controller.state.view).toBe('waiting');
  });

  it('ends the wrap-up on the server when the agent is done: Done, the note, or the auto-reset', async () => {
    const { controller, server, platform, ring } = await setup();
    const wrapUpsDone = () => server.requestsTo('POST', '/api/v1/user/wrap-up/done').length;
    await ring();
    controller.accept();
    controller.hangUp();
    await controller.dispose('contacted');
    // Still wrapping up while the Thank you view shows.
    expect(wrapUpsDone()).toBe(0);
    controller.done();
    await vi.waitFor(() => expect(wrapUpsDone()).toBe(1));
    await ring();
    controller.accept();
    controller.hangUp();
    await controller.dispose('missed');
    controller.addNote();
    expect(wrapUpsDone()).toBe(1);
    controller.skipNote();
    await vi.waitFor(() => expect(wrapUpsDone()).toBe(2));
    await ring(INBOUND_CALL_USER);
    controller.accept();
    controller.hangUp();
    platform.clock.tick(AUTO_RESET_AFTER_CALL_MS);
    await vi.waitFor(() => expect(wrapUpsDone()).toBe(3));
  });

  it('stays on the Call Result view when the server refuses the disposition', async () => {
    const { controller, server, ring } = await setup();
    await ring();
    controller.accept();
    controller.hangUp();
    server.expireSession();
    await expect(controller.dispose('contacted')).rejects.toThrow('Your session has ended');
    expect(controller.state.view).toBe('disposition');
  });

  it('drops a late server answer from an earlier call', async () => {
    const { controller, server, ring, platform } = await setup();
    await ring();
    controller.accept();
    controller.hangUp();
    const release = server.hold();
    const saving = controller.dispose('contacted');
    controller.send({ type: 'phoneError' });
    release();
    await saving;
    expect(controller.state.view).toBe('waiting');
    expect(platform.logs.at(-1)?.message).toContain('Dropped stale "dispose"');
  });
});

describe('ConsoleController: follow-ups after the Call Result', () => {
  const WHISPERTEXT_CALL_USER = 44;
  const tags = [
    { id: 1, key: 'qualified', name: 'Qualified', color: '#1f7a3a' },
    { id: 2, key: 'demo-booked', name: 'Demo booked', color: '#ffd54f' },
  ];
  const callUsers = {
    [LEAD_CALL_USER]: demoCallUser(),
    [WHISPERTEXT_CALL_USER]: demoCallUser({
      call: {
        id: 9003,
        profile: { id: 13, is_deal_whispertext: true, auto_answer: true, tags },
      },
    }),
  };

  async function ended(permissions: string[], callUserId = LEAD_CALL_USER) {
    const context = await setup({ permissions, callUsers });
    await context.ring(callUserId);
    context.controller.accept();
    context.controller.hangUp();
    return context;
  }

  it('voicemail with app-sms offers the SMS with the default text; Send posts it, then thanks', async () => {
    const { controller, server } = await ended(['app-sms']);
    expect(controller.state.followUps.smsText).toBe("Sorry we couldn't reach you!");
    await controller.dispose('voicemail');
    expect(controller.state.view).toBe('sms');
    await controller.sendSms('Sorry we missed you, Maya');
    expect(server.requestsTo('POST', '/apps/webrtc/9001/sms')[0]?.body).toEqual({
      smsbody: 'Sorry we missed you, Maya',
    });
    expect(controller.state.view).toBe('thankyou');
  });

  it('a refused SMS throws the server’s error and stays on the SMS view', async () => {
    const { controller, server } = await ended(['app-sms']);
    await controller.dispose('missed');
    server.refuseNext(
      'POST',
      '/apps/webrtc/9001/sms',
      200,
      '+15550100142 cannot receive text messages.',
    );
    await expect(controller.sendSms('Hello')).rejects.toThrow('cannot receive text messages');
    expect(controller.state.view).toBe('sms');
    controller.cancelSms();
    expect(controller.state.view).toBe('thankyou');
  });

  it('SMS from the Call Result needs app-sms', async () => {
    const allowed = await ended(['app-sms']);
    allowed.controller.chooseSms();
    expect(allowed.controller.state.view).toBe('sms');
    const refused = await ended([]);
    expect(() => refused.controller.chooseSms()).toThrow('cannot handle "smsChosen"');
  });

  it('contacted on a whispertext profile goes to Tags & Stages; a tag is posted by key', async () => {
    const { controller, server } = await ended([], WHISPERTEXT_CALL_USER);
    await controller.dispose('contacted');
    expect(controller.state.view).toBe('disposition2');
    expect(controller.state.call?.call.profile?.tags).toEqual(tags);
    await controller.chooseTag('demo-booked');
    expect(server.requestsTo('POST', '/apps/webrtc/9003/disposition2')[0]?.body).toEqual({
      key: 'demo-booked',
    });
    expect(controller.state.view).toBe('thankyou');
  });

  it('Skip leaves Tags & Stages without a tag', async () => {
    const { controller, server } = await ended([], WHISPERTEXT_CALL_USER);
    await controller.dispose('contacted');
    controller.skipTags();
    expect(controller.state.view).toBe('thankyou');
    expect(server.requestsTo('POST', '/apps/webrtc/9003/disposition2')).toEqual([]);
  });

  it('Retry goes to waiting and asks the server to call the same lead', async () => {
    const { controller, server } = await ended(['app-retry']);
    await controller.retry();
    expect(controller.state.view).toBe('waiting');
    expect(server.requestsTo('POST', '/api/v1/calls/twilio')[0]?.body).toEqual({
      fname: 'Maya',
      lname: 'Okafor',
      phone_number: '+15550100142',
    });
    expect(controller.state.notice).toBeNull();
    // No disposition was recorded for it.
    expect(server.requestsTo('POST', '/apps/webrtc/9001/disposition')).toEqual([]);
  });

  it('Retry shows the server’s error in the waiting view, and the agent is ready again', async () => {
    const { controller, server } = await ended(['app-retry']);
    server.refuseNext('POST', '/api/v1/calls/twilio', 200, 'All agents busy');
    await controller.retry();
    expect(controller.state).toMatchObject({ view: 'waiting', notice: 'All agents busy' });
    await vi.waitFor(() =>
      expect(server.requestsTo('POST', '/api/v1/user/wrap-up/done')).toHaveLength(1),
    );
  });

  it('a lead ringing before the Retry answer arrives is not disturbed by it', async () => {
    const { controller, server, phone } = await ended(['app-retry']);
    server.refuseNext('POST', '/api/v1/calls/twilio', 200, 'All agents busy');
    const release = server.hold();
    const retrying = controller.retry();
    expect(controller.state.view).toBe('waiting');
    // The retried lead rings while both answers (the refusal, the call user) are held.
    phone.device.ring(LEAD_CALL_USER);
    release();
    await retrying;
    await vi.waitFor(() => expect(controller.state.view).toBe('ringing'));
    expect(controller.state.notice).toBeNull();
  });

  it('Check for lead says what the server answered', async () => {
    const { controller, server } = await setup();
    await controller.checkForLead();
    expect(controller.state).toMatchObject({ view: 'waiting', notice: 'No leads waiting.' });
    server.leadWaiting = true;
    await controller.checkForLead();
    expect(controller.state).toMatchObject({
      view: 'waiting',
      notice: 'A waiting lead is ringing you.',
    });
  });

  it('Check for lead whose lead rang before the answer leaves the ringing view alone', async () => {
    const { controller, server, phone } = await setup();
    server.leadWaiting = true;
    const release = server.hold();
    const checking = controller.checkForLead();
    phone.device.ring(LEAD_CALL_USER);
    release();
    await checking;
    await vi.waitFor(() => expect(controller.state.view).toBe('ringing'));
    expect(controller.state.notice).toBeNull();
  });
});

describe('ConsoleController: outbound calls (New Call)', () => {
  const CALLER = { id: 3, name: 'Acme Solar main line', phone_number_formatted: '+1 555 014 2000' };
  const request = (overrides: Partial<PlaceCallRequest> = {}): PlaceCallRequest => ({
    fname: ' Jordan ',
    lname: 'Miles',
    phoneNumber: '+14155550132',
    callerId: null,
    ...overrides,
  });

  it("from the desktop wrapper the call says interface 'desktop'", async () => {
    const { controller, server } = await setup({ desktop: true });
    await controller.placeCall(request());
    const [posted] = server.requestsTo('POST', '/api/v1/calls/twilio/outbound');
    expect(posted?.body).toMatchObject({ phone_number: '+14155550132', interface: 'desktop' });
  });

  it("posts the call, shows 'Dialing...' and connects with call_user_id and To", async () => {
    const { controller, server, phone } = await setup();
    await controller.placeCall(request());
    const [posted] = server.requestsTo('POST', '/api/v1/calls/twilio/outbound');
    expect(posted?.body).toEqual({
      fname: 'Jordan',
      lname: 'Miles',
      phone_number: '+14155550132',
      agent_id: 7,
    });
    expect(posted?.headers.get('X-CSRF-TOKEN')).toBe('csrf-dana');
    expect(controller.state).toMatchObject({ view: 'dialing', banner: 'Dialing...' });
    expect(controller.state.call).toMatchObject({
      callUserId: 700,
      call: { id: 9100, direction: 'outbound', phone_number: '+14155550132' },
    });
    expect(controller.state.call?.call.lead).toMatchObject({ fname: 'Jordan', lname: 'Miles' });
    const call = phone.device.lastOutgoing;
    expect(call.connectParams).toEqual({ call_user_id: '700', To: '+14155550132' });
    expect(call.invocations).toEqual([]);
  });

  it('sends the chosen caller id to the server and to the softphone', async () => {
    const { controller, server, phone } = await setup();
    server.setCallerNumbers([CALLER]);
    await controller.placeCall(request({ callerId: { number: CALLER, e164: '+15550142000' } }));
    expect(server.placedCalls[0]?.body.caller_id).toBe(3);
    expect(phone.device.lastOutgoing.connectParams).toEqual({
      call_user_id: '700',
      To: '+14155550132',
      callerId: '+15550142000',
    });
    expect(controller.state.call?.call.number).toMatchObject({ name: 'Acme Solar main line' });
  });

  it('goes on the call with the timer when the far end answers, then to the result', async () => {
    const { controller, phone, platform, server } = await setup();
    await controller.placeCall(request());
    const call = phone.device.lastOutgoing;
    platform.clock.tick(3_000);
    call.answerRemotely();
    expect(controller.state).toMatchObject({
      view: 'oncall',
      banner: null,
      connectedAtMs: platform.clock.now(),
    });
    // Spec §4: outgoing calls are not accepted again (the console never calls accept()).
    expect(call.invocations).toEqual([]);
    call.reportVolume(0.4, 0.2);
    expect(controller.getVolume()).toEqual({ input: 0.4, output: 0.2 });
    controller.hangUp();
    expect(call.invocations).toEqual(['disconnect']);
    expect(controller.state).toMatchObject({ view: 'disposition', banner: 'Call Ended' });
    await controller.dispose('contacted');
    expect(server.requestsTo('POST', '/apps/webrtc/9100/disposition')[0]?.body).toEqual({
      status: 'contacted',
    });
  });

  it('Hang Up while dialing disconnects the call, has the server withdraw it, and asks for the result', async () => {
    const { controller, phone, server } = await setup();
    await controller.placeCall(request());
    controller.hangUp();
    expect(phone.device.lastOutgoing.status()).toBe('closed');
    expect(controller.state).toMatchObject({ view: 'disposition', banner: 'Call Ended' });
    expect(phone.device.lastOutgoing.listenerCount('accept')).toBe(0);
    await vi.waitFor(() =>
      expect(server.requestsTo('POST', '/apps/webrtc/9100/reject')).toHaveLength(1),
    );
  });

  it('Hang Up on an answered call does not ask the server to withdraw it', async () => {
    const { controller, phone, server } = await setup();
    await controller.placeCall(request());
    phone.device.lastOutgoing.answerRemotely();
    expect(controller.state.view).toBe('oncall');
    controller.hangUp();
    expect(controller.state.view).toBe('disposition');
    expect(server.requestsTo('POST', '/apps/webrtc/9100/reject')).toEqual([]);
  });

  it('the far end hanging up before answering ends the dial the same way', async () => {
    const { controller, phone } = await setup();
    await controller.placeCall(request());
    phone.device.lastOutgoing.hangUpRemotely();
    expect(controller.state).toMatchObject({ view: 'disposition', banner: 'Call Ended' });
  });

  it('a dial the server declined when the softphone connected: waiting, with the sentence', async () => {
    const { controller, phone, platform } = await setup();
    await controller.placeCall(request());
    phone.device.lastOutgoing.fail(31603, 'Calls to Russia are not allowed for this account.');
    expect(controller.state).toMatchObject({
      view: 'waiting',
      notice: 'Calls to Russia are not allowed for this account.',
    });
    expect(platform.alerts).toEqual([]);
  });

  it("a failed dial (call error) alerts 'Connection error code 8' and resets", async () => {
    const { controller, phone, platform } = await setup();
    await controller.placeCall(request());
    phone.device.lastOutgoing.fail(31480, 'The number could not be reached.');
    expect(platform.alerts).toEqual([CONNECTION_ERROR_ALERT]);
    expect(controller.state.view).toBe('waiting');
    expect(controller.errorLog.at(-1)).toContain('(31480): The number could not be reached.');
  });

  it('a softphone that cannot connect alerts, logs and resets', async () => {
    const { controller, phone, platform } = await setup();
    phone.device.connectFailure = new Error('A Call is already active');
    await controller.placeCall(request());
    expect(platform.alerts).toEqual([CONNECTION_ERROR_ALERT]);
    expect(controller.state.view).toBe('waiting');
    expect(controller.errorLog.at(-1)).toContain(
      'placing outbound call 9100 failed: A Call is already active',
    );
  });

  it('throws the server’s refusal for the panel and stays waiting', async () => {
    const { controller, server, phone } = await setup();
    server.refuseNext('POST', '/api/v1/calls/twilio/outbound', 422, 'The lead is on the DNC list.');
    await expect(controller.placeCall(request())).rejects.toThrow('The lead is on the DNC list.');
    await expect(controller.placeCall(request({ phoneNumber: 'call me' }))).rejects.toThrow(
      'The phone number is not a valid phone number.',
    );
    expect(controller.state.view).toBe('waiting');
    expect(phone.device.calls).toEqual([]);
  });

  it('refuses to place a call before the phone is ready, without asking the server', async () => {
    const { server, platform } = await setup();
    const api = new ApiClient({ fetch: server.fetch, reload: () => {}, now: () => 0 });
    const controller = new ConsoleController({
      api,
      writes: api,
      phoneFactory: new FakePhone().factory,
      timers: platform.timers,
      clock: platform.clock,
      log: platform.log,
      alert: () => {},
    });
    await expect(controller.placeCall(request())).rejects.toMatchObject({
      name: 'PhoneNotReadyError',
      code: 9203,
    });
    expect(server.requestsTo('POST', '/api/v1/calls/twilio/outbound')).toEqual([]);
  });

  it('refuses to place a call while another is ringing', async () => {
    const { controller, server, ring } = await setup();
    await ring();
    await expect(controller.placeCall(request())).rejects.toMatchObject({
      name: 'AgentBusyError',
      code: 9204,
    });
    expect(server.requestsTo('POST', '/api/v1/calls/twilio/outbound')).toEqual([]);
  });

  it('declines a lead that rings while dialing', async () => {
    const { controller, phone } = await setup();
    await controller.placeCall(request());
    const lead = phone.device.ring(42);
    expect(lead.invocations).toEqual(['reject']);
    expect(controller.state.view).toBe('dialing');
  });

  it('does not dial when a lead started ringing while the server was placing the call', async () => {
    const { controller, server, phone } = await setup();
    const release = server.hold();
    const placing = controller.placeCall(request());
    await vi.waitFor(() =>
      expect(server.requestsTo('POST', '/api/v1/calls/twilio/outbound')).toHaveLength(1),
    );
    phone.device.ring(42);
    release();
    await expect(placing).rejects.toMatchObject({ name: 'AgentBusyError' });
    await vi.waitFor(() => expect(controller.state.view).toBe('ringing'));
    expect(phone.device.calls.filter((c) => c.direction === 'outgoing')).toEqual([]);
  });

  it('drops the answer when the agent logged out while the server was placing the call', async () => {
    const { controller, server, phone, platform } = await setup();
    const release = server.hold();
    const placing = controller.placeCall(request());
    await vi.waitFor(() =>
      expect(server.requestsTo('POST', '/api/v1/calls/twilio/outbound')).toHaveLength(1),
    );
    const loggingOut = controller.logout();
    release();
    await placing;
    await loggingOut;
    expect(controller.state.view).toBe('login');
    expect(phone.device.calls).toEqual([]);
    expect(platform.logs.some((l) => l.message.startsWith('Dropped outbound call user 700'))).toBe(
      true,
    );
  });

  it('hangs up a call the softphone created after the agent already hung up', async () => {
    const { controller, phone } = await setup();
    let resolveConnect: (call: FakeCall) => void = () => {};
    const device = phone.device;
    const connect = device.connect.bind(device);
    device.connect = (params) =>
      connect(params).then(
        (call) =>
          new Promise<FakeCall>((resolve) => (resolveConnect = () => resolve(call as FakeCall))),
      );
    const placing = controller.placeCall(request());
    await vi.waitFor(() => expect(controller.state.view).toBe('dialing'));
    controller.hangUp();
    expect(controller.state.view).toBe('disposition');
    resolveConnect(device.lastOutgoing);
    await placing;
    expect(device.lastOutgoing.invocations).toEqual(['disconnect']);
    expect(device.lastOutgoing.status()).toBe('closed');
    expect(controller.state.view).toBe('disposition');
  });
});
