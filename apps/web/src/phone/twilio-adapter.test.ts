import { EventEmitter } from 'node:events';
import { Call, TwilioError, type Device } from '@twilio/voice-sdk';
import { describe, expect, it } from 'vitest';
import type { PhoneError } from './phone-port';
import { phoneErrorPolicy } from './phone-errors';
import { adaptTwilioDevice, edgeOptions, specCallError } from './twilio-adapter';

const { GeneralErrors, MediaErrors, SignalingErrors, ClientErrors } = TwilioError;

const sounds = {} as Parameters<typeof edgeOptions>[0]['sounds'];

describe('where the official SDK connects', () => {
  it('the embedded engine on the page host, with no insights upload', () => {
    expect(edgeOptions({ sdk: 'twilio', sounds }, 'calls.example.com:3443')).toEqual({
      chunderw: 'calls.example.com:3443',
      publishEvents: false,
    });
  });

  it("Twilio's own edge with TELEPHONY_PROVIDER=twilio: none of the overrides", () => {
    expect(edgeOptions({ sdk: 'twilio', sounds, edge: 'twilio' }, 'calls.example.com')).toEqual({});
  });
});

const outgoing = { direction: Call.CallDirection.Outgoing };
const incoming = { direction: Call.CallDirection.Incoming };

describe("the official SDK's call errors in spec section 8's codes", () => {
  // Spec section 8: "31000 media errors ('Error creating the offer', 'Error processing answer',
  // 'Cannot establish connection. Client is disconnected'); 31003 media connection interrupted."
  it.each([
    [
      'a failed offer (ClientLocalDescFailed)',
      new MediaErrors.ClientLocalDescFailed(),
      outgoing,
      'UnknownError (31000): Error creating the offer',
    ],
    [
      'an answer that cannot be applied (ClientRemoteDescFailed)',
      new MediaErrors.ClientRemoteDescFailed(),
      outgoing,
      'UnknownError (31000): Error processing answer',
    ],
    [
      'an incoming offer that cannot be answered (ClientRemoteDescFailed)',
      new MediaErrors.ClientRemoteDescFailed(),
      incoming,
      'UnknownError (31000): Error creating the answer',
    ],
    [
      'signalling gone as the call starts (ConnectionDisconnected)',
      new SignalingErrors.ConnectionDisconnected(),
      outgoing,
      'UnknownError (31000): Cannot establish connection. Client is disconnected',
    ],
    [
      'the media connection lost for good (MediaErrors.ConnectionError)',
      new MediaErrors.ConnectionError(),
      incoming,
      'ConnectionTimeoutError (31003): Media connection was interrupted.',
    ],
  ])('%s', (_event, official, call, message) => {
    expect(official.code).toBeGreaterThanOrEqual(53000);
    const seen = specCallError(official, call);
    const code = Number(/\((\d+)\)/.exec(message)![1]);
    expect(seen).toMatchObject({ code, name: message.split(' ')[0], message });
    expect(seen).toBeInstanceOf(Error);
    expect((seen as Error).cause).toBe(official);
    // Spec section 8: other errors are logged and reset the call state.
    expect(phoneErrorPolicy(seen.code)).toBe('reset');
  });

  it('passes every other error as the SDK raised it', () => {
    for (const official of [
      new ClientErrors.BusyHere(),
      new GeneralErrors.ConnectionError(),
      new GeneralErrors.UnknownError('Error creating the offer'),
      new SignalingErrors.ConnectionError(),
      new TwilioError.UserMediaErrors.PermissionDeniedError(),
    ]) {
      expect(specCallError(official, outgoing)).toBe(official);
    }
  });
});

/** An official SDK call as the port uses it (the SDK's emitters are Node-style). */
class OfficialCallStandIn extends EventEmitter {
  readonly parameters = { CallSid: 'CA1', From: 'client:9', To: '+15550100042' };
  readonly direction = Call.CallDirection.Outgoing;
  accept() {}
  reject() {}
  ignore() {}
  disconnect() {}
  mute() {}
  isMuted() {
    return false;
  }
  sendDigits() {}
  status() {
    return 'connecting';
  }
}

class OfficialDeviceStandIn extends EventEmitter {
  readonly audio = null;
  readonly call = new OfficialCallStandIn();
  connect() {
    return Promise.resolve(this.call);
  }
}

describe("the official SDK's port", () => {
  it("restates a call's errors, on the call and on the device, and nothing else", async () => {
    const sdk = new OfficialDeviceStandIn();
    const device = adaptTwilioDevice(sdk as unknown as Device);
    const call = await device.connect({ To: '+15550100042' });
    const seen: Array<[string, PhoneError]> = [];
    call.on('error', (error) => seen.push(['call error', error]));
    call.on('reconnecting', (error) => seen.push(['reconnecting', error]));
    device.on('error', (error, withCall) => {
      seen.push([withCall === call ? 'device error, the call' : 'device error', error]);
    });

    const failedAnswer = new MediaErrors.ClientRemoteDescFailed();
    sdk.call.emit('error', failedAnswer);
    sdk.emit('error', failedAnswer, sdk.call);
    // What the SDK emits while it retries is the official code, as with our SDK.
    sdk.call.emit('reconnecting', new MediaErrors.ConnectionError('Media connection failed.'));
    sdk.call.emit('reconnecting', new SignalingErrors.ConnectionDisconnected());
    // The device's own socket errors are not a call's.
    sdk.emit('error', new SignalingErrors.ConnectionDisconnected());

    expect(seen.map(([where, e]) => `${where}: ${e.code} ${e.message}`)).toEqual([
      'call error: 31000 UnknownError (31000): Error processing answer',
      'device error, the call: 31000 UnknownError (31000): Error processing answer',
      'reconnecting: 53405 ConnectionError (53405): Media connection failed.',
      expect.stringMatching(/^reconnecting: 53001 ConnectionDisconnected \(53001\)/),
      expect.stringMatching(/^device error: 53001 ConnectionDisconnected \(53001\)/),
    ]);
  });
});
