/**
 * `device.audio`, as in the official SDK: the input and output device lists (refreshed on
 * `devicechange`), the microphone (`setInputDevice`, which swaps the track of a call in
 * progress), the speaker and ringtone devices (`setSinkId`), and whether the incoming, outgoing
 * and disconnect sounds play.
 */
import { TypedEmitter } from '@leadline/contracts/lib';
import { InvalidArgumentError } from '../errors/errors';
import { stopTracks, type Platform } from '../platform/platform';
import { OutputDeviceCollection } from './output-device-collection';

/** Events of the audio helper. */
export type AudioHelperEvents = {
  /** The device lists changed; `lostActiveDevices` were in use and are gone. */
  deviceChange: [lostActiveDevices: MediaDeviceInfo[]];
};

/** What the audio helper asks of its device. */
export interface AudioHelperHost {
  /** The microphone changed (null: unset); a call in progress takes the new track, or refuses. */
  inputChanged(stream: MediaStream | null): Promise<void>;
  /** Output devices changed for the ringtone, or for the speaker (sounds and call audio). */
  outputsChanged(kind: 'speaker' | 'ringtone', sinkIds: string[]): Promise<void>;
}

type SoundSwitch = 'incoming' | 'outgoing' | 'disconnect';

/** The audio helper of a device. */
export class AudioHelper extends TypedEmitter<AudioHelperEvents> {
  /** Microphones by id. */
  readonly availableInputDevices = new Map<string, MediaDeviceInfo>();
  /** Speakers by id. */
  readonly availableOutputDevices = new Map<string, MediaDeviceInfo>();
  /** Where the call's audio and the sounds other than the ringtone play. */
  readonly speakerDevices: OutputDeviceCollection;
  /** Where the incoming ringtone plays. */
  readonly ringtoneDevices: OutputDeviceCollection;
  /** Whether output devices can be chosen (`setSinkId`). */
  readonly isOutputSelectionSupported: boolean;
  #inputDevice: MediaDeviceInfo | null = null;
  #inputStream: MediaStream | null = null;
  readonly #enabled: Record<SoundSwitch, boolean> = {
    incoming: true,
    outgoing: true,
    disconnect: true,
  };
  readonly #onDeviceChange = () => void this.refreshDevices().catch(() => undefined);

  /** @internal Made by the Device. */
  constructor(
    private readonly platform: Platform,
    private readonly host: AudioHelperHost,
  ) {
    super();
    this.isOutputSelectionSupported = !!platform.mediaDevices && platform.canSetSinkId;
    const supported = () => this.isOutputSelectionSupported;
    const change = (kind: 'speaker' | 'ringtone', ids: string[]) => host.outputsChanged(kind, ids);
    const outputs = this.availableOutputDevices;
    this.speakerDevices = new OutputDeviceCollection('speaker', outputs, change, supported);
    this.ringtoneDevices = new OutputDeviceCollection('ringtone', outputs, change, supported);
    platform.mediaDevices?.addEventListener('devicechange', this.#onDeviceChange);
    this.#onDeviceChange();
  }

  /** The microphone chosen with `setInputDevice`, if any. */
  get inputDevice(): MediaDeviceInfo | null {
    return this.#inputDevice;
  }

  /** The stream of the chosen microphone (calls use it instead of the default one). */
  get inputStream(): MediaStream | null {
    return this.#inputStream;
  }

  /** Whether the incoming ringtone plays (and sets it when `enable` is given). */
  incoming(enable?: boolean): boolean {
    return this.#switch('incoming', enable);
  }

  /** Whether the outgoing sound plays when an outgoing call is answered. */
  outgoing(enable?: boolean): boolean {
    return this.#switch('outgoing', enable);
  }

  /** Whether the disconnect sound plays when a call ends. */
  disconnect(enable?: boolean): boolean {
    return this.#switch('disconnect', enable);
  }

  /**
   * Uses this microphone from now on, for the call in progress too (its track is replaced and
   * the call stays up). Rejects with `InvalidArgumentError` for an unknown device.
   */
  async setInputDevice(deviceId: string): Promise<void> {
    if (typeof deviceId !== 'string') {
      throw new InvalidArgumentError('Must specify the device to set');
    }
    const device = this.availableInputDevices.get(deviceId);
    if (!device) throw new InvalidArgumentError(`Device not found: ${deviceId}`);
    if (this.#inputDevice?.deviceId === deviceId && this.#inputStream) return;
    const stream = await this.platform.getUserMedia({ audio: { deviceId: { exact: deviceId } } });
    try {
      await this.host.inputChanged(stream);
    } catch (error) {
      stopTracks(stream);
      throw error;
    }
    stopTracks(this.#inputStream);
    this.#inputStream = stream;
    this.#inputDevice = device;
  }

  /** Goes back to the default microphone (refused during a call). */
  async unsetInputDevice(): Promise<void> {
    if (!this.#inputDevice) return;
    await this.host.inputChanged(null);
    stopTracks(this.#inputStream);
    this.#inputStream = null;
    this.#inputDevice = null;
  }

  /** Re-reads the device lists (done on `devicechange` and after the microphone opens). */
  async refreshDevices(): Promise<void> {
    const devices = (await this.platform.mediaDevices?.enumerateDevices()) ?? [];
    const inputs = this.availableInputDevices;
    const outputs = this.availableOutputDevices;
    const before = [...inputs.keys(), '|', ...outputs.keys()].join();
    const lostInputs = update(devices, 'audioinput', inputs);
    const lostOutputs = update(devices, 'audiooutput', outputs);
    const lostActive: MediaDeviceInfo[] = [];
    for (const device of lostInputs) {
      if (this.#inputDevice?.deviceId !== device.deviceId) continue;
      lostActive.push(device);
      this.#inputDevice = null;
      const fallback = inputs.get('default') ?? [...inputs.values()][0];
      if (fallback) void this.setInputDevice(fallback.deviceId).catch(() => undefined);
    }
    for (const device of lostOutputs) {
      const collections = [this.speakerDevices, this.ringtoneDevices];
      if (collections.map((c) => c.delete(device)).includes(true)) lostActive.push(device);
    }
    const fallback = outputs.has('default') ? 'default' : [...outputs.keys()][0];
    for (const collection of [this.speakerDevices, this.ringtoneDevices]) {
      if (!collection.get().size && fallback && this.isOutputSelectionSupported) {
        await collection.set(fallback).catch(() => undefined);
      }
    }
    if (before !== [...inputs.keys(), '|', ...outputs.keys()].join()) {
      this.emit('deviceChange', lostActive);
    }
  }

  /** @internal Stops listening and releases the chosen microphone. */
  destroy(): void {
    this.platform.mediaDevices?.removeEventListener('devicechange', this.#onDeviceChange);
    stopTracks(this.#inputStream);
    this.#inputStream = null;
    this.removeAllListeners();
  }

  #switch(name: SoundSwitch, enable: boolean | undefined): boolean {
    if (enable !== undefined) this.#enabled[name] = enable;
    return this.#enabled[name];
  }
}

/** Replaces a device list with the devices of `kind`; returns the devices that are gone. */
function update(
  devices: MediaDeviceInfo[],
  kind: MediaDeviceKind,
  list: Map<string, MediaDeviceInfo>,
): MediaDeviceInfo[] {
  const now = devices.filter((d) => d.kind === kind);
  const ids = new Set(now.map((d) => d.deviceId));
  const lost = [...list.values()].filter((d) => !ids.has(d.deviceId));
  list.clear();
  for (const device of now) list.set(device.deviceId, device);
  return lost;
}
