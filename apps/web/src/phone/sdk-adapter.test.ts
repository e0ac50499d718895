import { EventEmitter } from 'node:events';
import {
  Device as LeadlineDevice,
  type CallSample,
  type CallWarningName,
  type Platform,
  type QualityWarning,
} from '@leadline/softphone';
import type { AudioHelper, OutputDeviceCollection, RTCSample, RTCWarning } from '@twilio/voice-sdk';
import { describe, expect, it, vi } from 'vitest';
import type {
  PhoneAudioDevice,
  PhoneCallSample,
  PhoneCallWarningData,
  PhoneCallWarningName,
} from './phone-port';
import { InviteTap } from './invite-tap';
import { adaptDevice } from './sdk-adapter';

/** An SDK call shaped like both SDKs' (Node-style emitter, as the official SDK's). */
class SdkCall extends EventEmitter {
  muted = false;
  state = 'pending';
  constructor(readonly parameters: Record<string, string | undefined>) {
    super();
  }
  accept = vi.fn(() => (this.state = 'open'));
  reject = vi.fn();
  ignore = vi.fn();
  disconnect = vi.fn();
  mute(shouldMute = true) {
    this.muted = shouldMute;
    this.emit('mute', shouldMute, this);
  }
  isMuted() {
    return this.muted;
  }
  status() {
    return this.state;
  }
}

class SdkDevice extends EventEmitter {
  constructor(public audio: TwilioAudioStandIn | null = new TwilioAudioStandIn()) {
    super();
  }
  register = vi.fn(() => Promise.resolve());
  updateToken = vi.fn();
  destroy = vi.fn();
  connect = vi.fn(({ params }: { params: Record<string, string> }) =>
    Promise.resolve(new SdkCall({ CallSid: 'CA1', From: 'client:9', To: params.To })),
  );
}

describe('the phone port over an SDK', () => {
  it('hands listeners one wrapper per SDK call, in every event', () => {
    const sdk = new SdkDevice();
    const device = adaptDevice(sdk);
    const seen: unknown[] = [];
    device.on('incoming', (call) => seen.push(call));
    device.on('error', (error, call) => seen.push(error, call));
    const call = new SdkCall({ CallSid: 'CA7', From: 'client:12' });
    sdk.emit('incoming', call);
    sdk.emit('error', { code: 31005, name: 'ConnectionError', message: 'x' }, call);
    expect(seen[0]).toBe(seen[2]);
    expect(seen[1]).toMatchObject({ code: 31005 });
    const wrapped = seen[0] as ReturnType<typeof adaptDevice> & {
      parameters: unknown;
      accept(): void;
      status(): string;
      on(event: 'mute', l: (muted: boolean, c: unknown) => void): void;
      mute(m?: boolean): void;
    };
    expect(wrapped.parameters).toEqual({ CallSid: 'CA7', From: 'client:12' });
    wrapped.accept();
    expect(call.accept).toHaveBeenCalled();
    expect(wrapped.status()).toBe('open');
    const mutes: unknown[] = [];
    wrapped.on('mute', (muted, c) => mutes.push(muted, c));
    wrapped.mute();
    expect(mutes).toEqual([true, wrapped]);
  });

  it('off removes exactly the listener it was given', () => {
    const sdk = new SdkDevice();
    const device = adaptDevice(sdk);
    const a = vi.fn();
    const b = vi.fn();
    device.on('registered', a);
    device.on('registered', b);
    device.off('registered', a);
    sdk.emit('registered');
    expect(a).not.toHaveBeenCalled();
    expect(b).toHaveBeenCalledOnce();
    device.off('registered', b);
    expect(sdk.listenerCount('registered')).toBe(0);
  });

  it("passes the quality monitor's samples through as the SDKs emit them (RTCSample, CallSample)", async () => {
    const sdk = new SdkDevice();
    const call = await adaptDevice(sdk).connect({ network_test: 'NT1' });
    const samples: PhoneCallSample[] = [];
    const listener = (sample: PhoneCallSample) => samples.push(sample);
    call.on('sample', listener);
    // Both SDKs' sample types are the port's (checked by the compiler here).
    const official: RTCSample = {
      audioInputLevel: 1200,
      audioOutputLevel: 900,
      bytesReceived: 8600,
      bytesSent: 8600,
      codecName: 'pcmu',
      jitter: 3,
      mos: 4.38,
      packetsLost: 1,
      packetsLostFraction: 2,
      packetsReceived: 49,
      packetsSent: 50,
      rtt: 24,
      timestamp: 1000,
      totals: {
        bytesReceived: 86_000,
        bytesSent: 86_000,
        packetsLost: 1,
        packetsLostFraction: 0.2,
        packetsReceived: 499,
        packetsSent: 500,
      },
    };
    const ours: CallSample = {
      ...official,
      rtt: null,
      mos: null,
      audioInputLevel: 0.1,
      audioOutputLevel: 0.1,
      totals: {
        bytesReceived: 1,
        bytesSent: 1,
        packetsLost: 0,
        packetsReceived: 1,
        packetsSent: 1,
      },
    };
    const sdkCall = (await sdk.connect.mock.results[0]!.value) as SdkCall;
    sdkCall.emit('sample', official);
    sdkCall.emit('sample', ours);
    expect(samples).toEqual([official, ours]);
    call.off('sample', listener);
    expect(sdkCall.listenerCount('sample')).toBe(0);
  });

  it('passes the call quality warnings through as the SDKs emit them, raised and cleared', async () => {
    const sdk = new SdkDevice();
    const call = await adaptDevice(sdk).connect({ To: '+15550100042' });
    const seen: unknown[][] = [];
    const onWarning = (name: PhoneCallWarningName, data?: PhoneCallWarningData | null) =>
      seen.push(['warning', name, data]);
    const onCleared = (name: PhoneCallWarningName) => seen.push(['warning-cleared', name]);
    call.on('warning', onWarning);
    call.on('warning-cleared', onCleared);
    // Both SDKs' names and data are the port's (checked by the compiler here).
    const ours: { name: CallWarningName; data: QualityWarning } = {
      name: 'high-jitter',
      data: { name: 'high-jitter', threshold: { name: 'max', value: 30 }, values: [31, 40, 35] },
    };
    // Every name our SDK raises is one of the port's.
    const portName = (name: CallWarningName): PhoneCallWarningName => name;
    const official: RTCWarning = {
      name: 'audioInputLevel',
      threshold: { name: 'minStandardDeviation', value: 327.67 },
      value: 12,
    };
    const sdkCall = (await sdk.connect.mock.results[0]!.value) as SdkCall;
    sdkCall.emit('warning', portName(ours.name), ours.data satisfies PhoneCallWarningData);
    sdkCall.emit('warning', 'constant-audio-input-level', official satisfies PhoneCallWarningData);
    // The official SDK emits `ice-connectivity-lost` with no data at all.
    sdkCall.emit('warning', 'ice-connectivity-lost');
    sdkCall.emit('warning-cleared', 'high-jitter');
    expect(seen).toEqual([
      ['warning', 'high-jitter', ours.data],
      ['warning', 'constant-audio-input-level', official],
      ['warning', 'ice-connectivity-lost', undefined],
      ['warning-cleared', 'high-jitter'],
    ]);
    call.off('warning', onWarning);
    call.off('warning-cleared', onCleared);
    expect(sdkCall.listenerCount('warning')).toBe(0);
    expect(sdkCall.listenerCount('warning-cleared')).toBe(0);
  });

  it('emits `invite` from the adapter’s watch on the sockets, never from the SDK device', () => {
    const sdk = new SdkDevice();
    const invites = new InviteTap();
    let socket: { onmessage: ((event: MessageEvent) => void) | null } | null = null;
    const watched = invites.watching(() => {
      const created = {
        readyState: 1,
        onopen: null,
        onclose: null,
        onerror: null,
        onmessage: null as ((event: MessageEvent) => void) | null,
        send: () => undefined,
        close: () => undefined,
      };
      socket = created;
      return created;
    })('ws://console.test/signal');
    watched.onmessage = () => undefined;
    const device = adaptDevice(sdk, { invites });
    const heard: string[] = [];
    const listener = (parameters: { From: string }) => heard.push(parameters.From);
    device.on('invite', listener);
    expect(sdk.listenerCount('invite')).toBe(0);
    const frame = JSON.stringify({
      type: 'invite',
      payload: { callsid: 'CA1', sdp: 'v=0', parameters: { From: 'client:9' } },
    });
    socket!.onmessage!({ data: frame } as MessageEvent);
    device.off('invite', listener);
    socket!.onmessage!({ data: frame } as MessageEvent);
    expect(heard).toEqual(['client:9']);
    // Without a watch (the official SDK) nothing emits it.
    const official = adaptDevice(new SdkDevice());
    official.on('invite', listener);
    expect(heard).toEqual(['client:9']);
  });

  it('connects with the params and wraps the new call', async () => {
    const sdk = new SdkDevice();
    const device = adaptDevice(sdk);
    const call = await device.connect({ To: '+15550100042', call_user_id: '5' });
    expect(sdk.connect).toHaveBeenCalledWith({ params: { To: '+15550100042', call_user_id: '5' } });
    expect(call.parameters).toEqual({ CallSid: 'CA1', From: 'client:9', To: '+15550100042' });
    await device.register();
    device.updateToken('t2');
    device.destroy();
    expect(sdk.updateToken).toHaveBeenCalledWith('t2');
    expect(sdk.destroy).toHaveBeenCalled();
  });

  it("passes a call's errors as the SDK raised them, unless the adapter restates them", async () => {
    // Our SDK raises spec section 8's codes itself: its adapter restates nothing.
    const sdk = new SdkDevice();
    const call = await adaptDevice(sdk).connect({ To: '+15550100042' });
    const seen: unknown[] = [];
    call.on('error', (error) => seen.push(error));
    const failedOffer = {
      code: 31000,
      name: 'UnknownError',
      message: 'UnknownError (31000): Error creating the offer: no codec in common',
    };
    const sdkCall = (await sdk.connect.mock.results[0]!.value) as SdkCall;
    sdkCall.emit('error', failedOffer);
    expect(seen).toEqual([failedOffer]);

    // An adapter's `callError` gets the error and the SDK's call, for the call's `error` only.
    const restating = new SdkDevice();
    const restated = { code: 31003, name: 'ConnectionTimeoutError', message: 'restated' };
    const callError = vi.fn(() => restated);
    const other = await adaptDevice(restating, { callError }).connect({ To: '+15550100042' });
    const otherSeen: unknown[] = [];
    other.on('error', (error) => otherSeen.push(error));
    other.on('reconnecting', (error) => otherSeen.push(error));
    const otherSdkCall = (await restating.connect.mock.results[0]!.value) as SdkCall;
    const original = { code: 53405, name: 'ConnectionError', message: 'x' };
    otherSdkCall.emit('error', original);
    otherSdkCall.emit('reconnecting', original);
    expect(otherSeen).toEqual([restated, original]);
    expect(callError).toHaveBeenCalledExactlyOnceWith(original, otherSdkCall);
  });
});

/** A browser's `MediaDeviceInfo`. */
const deviceInfo = (kind: MediaDeviceKind, deviceId: string, label: string): MediaDeviceInfo => ({
  kind,
  deviceId,
  label,
  groupId: 'g',
  toJSON: () => ({}),
});

/** An output device collection shaped like the official SDK's (`OutputDeviceCollection`). */
class TwilioOutputsStandIn implements Pick<OutputDeviceCollection, 'get' | 'set'> {
  readonly active = new Set<MediaDeviceInfo>();
  readonly sets: (string | string[])[] = [];
  refusal: Error | null = null;
  constructor(private readonly available: Map<string, MediaDeviceInfo>) {}
  get(): Set<MediaDeviceInfo> {
    return this.active;
  }
  async set(deviceIdOrIds: string | string[]): Promise<void> {
    this.sets.push(deviceIdOrIds);
    if (this.refusal) throw this.refusal;
    const ids = Array.isArray(deviceIdOrIds) ? deviceIdOrIds : [deviceIdOrIds];
    this.active.clear();
    for (const id of ids) this.active.add(this.available.get(id)!);
  }
}

type TwilioAudioPart =
  | 'availableInputDevices'
  | 'availableOutputDevices'
  | 'inputDevice'
  | 'isOutputSelectionSupported'
  | 'setInputDevice';

/** `device.audio` shaped like the official SDK's (`AudioHelper`: a Node emitter with Maps). */
class TwilioAudioStandIn extends EventEmitter implements Pick<AudioHelper, TwilioAudioPart> {
  availableInputDevices = new Map([
    ['default', deviceInfo('audioinput', 'default', 'Default - Built-in')],
    ['usb-mic', deviceInfo('audioinput', 'usb-mic', 'USB Headset')],
  ]);
  availableOutputDevices = new Map([
    ['default', deviceInfo('audiooutput', 'default', 'Default - Speakers')],
    ['usb-out', deviceInfo('audiooutput', 'usb-out', 'USB Headset')],
  ]);
  isOutputSelectionSupported = true;
  speakerDevices = new TwilioOutputsStandIn(this.availableOutputDevices);
  ringtoneDevices = new TwilioOutputsStandIn(this.availableOutputDevices);
  #input: MediaDeviceInfo | null = null;
  get inputDevice(): MediaDeviceInfo | null {
    return this.#input;
  }
  setInputDevice = vi.fn(async (deviceId: string) => {
    const device = this.availableInputDevices.get(deviceId);
    if (!device) throw new Error(`Device not found: ${deviceId}`);
    this.#input = device;
  });
}

/** `navigator.mediaDevices` of a browser whose devices the test changes. */
class MediaDevicesStandIn {
  readonly #listeners = new Set<() => void>();
  constructor(public devices: MediaDeviceInfo[]) {}
  async enumerateDevices(): Promise<MediaDeviceInfo[]> {
    return [...this.devices];
  }
  addEventListener(_type: 'devicechange', listener: () => void): void {
    this.#listeners.add(listener);
  }
  removeEventListener(_type: 'devicechange', listener: () => void): void {
    this.#listeners.delete(listener);
  }
  /** The browser reports a device change. */
  change(devices: MediaDeviceInfo[]): void {
    this.devices = devices;
    for (const listener of this.#listeners) listener();
  }
}

describe('the phone port over an SDK: device.audio', () => {
  it('passes the official SDK-shaped helper through: lists, microphone, outputs, deviceChange', async () => {
    const helper = new TwilioAudioStandIn();
    const { audio } = adaptDevice(new SdkDevice(helper));
    expect([...audio.availableInputDevices.keys()]).toEqual(['default', 'usb-mic']);
    expect(audio.availableOutputDevices.get('usb-out')?.label).toBe('USB Headset');
    expect(audio.isOutputSelectionSupported).toBe(true);
    expect(audio.inputDevice).toBeNull();

    await audio.setInputDevice('usb-mic');
    expect(helper.setInputDevice).toHaveBeenCalledWith('usb-mic');
    expect(audio.inputDevice?.deviceId).toBe('usb-mic');
    await expect(audio.setInputDevice('gone')).rejects.toThrow('Device not found: gone');

    await audio.speakerDevices.set(['usb-out']);
    await audio.ringtoneDevices.set(['default']);
    expect(helper.speakerDevices.sets).toEqual([['usb-out']]);
    expect(helper.ringtoneDevices.sets).toEqual([['default']]);
    expect([...audio.speakerDevices.get()].map((d) => d.deviceId)).toEqual(['usb-out']);
    expect([...audio.ringtoneDevices.get()].map((d) => d.deviceId)).toEqual(['default']);
    const refusal = new Error('setSinkId failed');
    helper.ringtoneDevices.refusal = refusal;
    await expect(audio.ringtoneDevices.set(['usb-out'])).rejects.toBe(refusal);

    const changes: (readonly PhoneAudioDevice[])[] = [];
    const listener = (lost: readonly PhoneAudioDevice[]) => changes.push(lost);
    audio.on('deviceChange', listener);
    const lost = helper.availableInputDevices.get('usb-mic')!;
    helper.emit('deviceChange', [lost]);
    expect(changes).toEqual([[lost]]);
    audio.off('deviceChange', listener);
    expect(helper.listenerCount('deviceChange')).toBe(0);
  });

  it('once the official SDK dropped its helper (destroyed), lists nothing and refuses choices', async () => {
    const { audio } = adaptDevice(new SdkDevice(null));
    expect(audio.availableInputDevices.size).toBe(0);
    expect(audio.availableOutputDevices.size).toBe(0);
    expect(audio.inputDevice).toBeNull();
    expect(audio.isOutputSelectionSupported).toBe(false);
    expect(audio.speakerDevices.get().size).toBe(0);
    await expect(audio.setInputDevice('usb-mic')).rejects.toThrow('no audio helper');
    await expect(audio.speakerDevices.set(['usb-out'])).rejects.toThrow('no audio helper');
    audio.on('deviceChange', () => undefined);
  });

  it("passes our SDK's real helper through (a Device over a minimal browser)", async () => {
    const mediaDevices = new MediaDevicesStandIn([
      deviceInfo('audioinput', 'default', 'Default - Built-in'),
      deviceInfo('audioinput', 'usb-mic', 'USB Headset'),
      deviceInfo('audiooutput', 'default', 'Default - Speakers'),
      deviceInfo('audiooutput', 'usb-out', 'USB Headset'),
    ]);
    const opened: MediaStreamConstraints[] = [];
    const browser: Partial<Platform> = {
      userAgent: 'jsdom',
      webRtc: true,
      canSetSinkId: true,
      mediaDevices,
      getUserMedia: async (constraints) => {
        opened.push(constraints);
        const track = { kind: 'audio', enabled: true, stop: () => undefined };
        return {
          getAudioTracks: () => [track],
          getTracks: () => [track],
        } as unknown as MediaStream;
      },
    };
    const { audio } = adaptDevice(new LeadlineDevice('token', { platform: browser as Platform }));
    const changes: (readonly PhoneAudioDevice[])[] = [];
    audio.on('deviceChange', (lost) => changes.push(lost));
    // The SDK lists the devices as it is made; the first listing is a change.
    await vi.waitFor(() => expect(audio.availableInputDevices.size).toBe(2));
    await vi.waitFor(() => expect(changes).toHaveLength(1));
    expect(audio.availableOutputDevices.get('usb-out')?.label).toBe('USB Headset');
    expect(audio.isOutputSelectionSupported).toBe(true);
    expect([...audio.speakerDevices.get()].map((d) => d.deviceId)).toEqual(['default']);

    await audio.setInputDevice('usb-mic');
    expect(opened).toEqual([{ audio: { deviceId: { exact: 'usb-mic' } } }]);
    expect(audio.inputDevice?.deviceId).toBe('usb-mic');
    await expect(audio.setInputDevice('gone')).rejects.toThrow('Device not found: gone');
    await audio.speakerDevices.set(['usb-out']);
    await audio.ringtoneDevices.set(['usb-out']);
    expect([...audio.speakerDevices.get()].map((d) => d.deviceId)).toEqual(['usb-out']);
    expect([...audio.ringtoneDevices.get()].map((d) => d.deviceId)).toEqual(['usb-out']);
    await expect(audio.speakerDevices.set(['gone'])).rejects.toThrow('Devices not found: gone');

    // The headset is unplugged: the lost devices in use are reported, the SDK falls back.
    mediaDevices.change(mediaDevices.devices.filter((d) => !d.deviceId.startsWith('usb')));
    await vi.waitFor(() => expect(changes).toHaveLength(2));
    expect(changes[1]!.map((d) => d.deviceId)).toEqual(['usb-mic', 'usb-out']);
    expect([...audio.availableInputDevices.keys()]).toEqual(['default']);
    expect([...audio.speakerDevices.get()].map((d) => d.deviceId)).toEqual(['default']);
    await vi.waitFor(() => expect(audio.inputDevice?.deviceId).toBe('default'));
  });
});
