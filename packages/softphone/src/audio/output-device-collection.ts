/**
 * A set of active audio output devices (`device.audio.speakerDevices`, `ringtoneDevices`), as in
 * the official SDK: `set(ids)` routes the sounds (and, for speakers, the call's audio) there with
 * `setSinkId`, `get()` returns the active devices, `delete(device)` falls back to the default.
 */
import { InvalidArgumentError, NotSupportedError } from '../errors/errors';

/** A collection of active output devices. */
export class OutputDeviceCollection {
  readonly #active = new Set<MediaDeviceInfo>();

  /** @internal Made by the AudioHelper. */
  constructor(
    readonly kind: 'speaker' | 'ringtone',
    private readonly available: Map<string, MediaDeviceInfo>,
    private readonly onChange: (kind: 'speaker' | 'ringtone', ids: string[]) => Promise<void>,
    private readonly supported: () => boolean,
  ) {}

  /** The active devices. */
  get(): Set<MediaDeviceInfo> {
    return this.#active;
  }

  /** Makes these devices (by id) the active ones. */
  async set(deviceIdOrIds: string | string[]): Promise<void> {
    if (!this.supported()) {
      throw new NotSupportedError('This browser does not support audio output selection');
    }
    const ids = Array.isArray(deviceIdOrIds) ? deviceIdOrIds : [deviceIdOrIds];
    if (!ids.length) throw new InvalidArgumentError('Must specify at least one device to set');
    const missing = ids.filter((id) => !this.available.has(id));
    if (missing.length) throw new InvalidArgumentError(`Devices not found: ${missing.join(', ')}`);
    await this.onChange(this.kind, ids);
    this.#active.clear();
    for (const id of ids) this.#active.add(this.available.get(id)!);
  }

  /** Removes a device (lost, or on purpose); the default device takes over if none is left. */
  delete(device: MediaDeviceInfo): boolean {
    const match = [...this.#active].find((d) => d.deviceId === device.deviceId);
    if (!match) return false;
    this.#active.delete(match);
    if (this.supported()) {
      const fallback = this.available.get('default') ?? [...this.available.values()][0];
      if (!this.#active.size && fallback) this.#active.add(fallback);
      void this.onChange(
        this.kind,
        [...this.#active].map((d) => d.deviceId),
      ).catch(() => undefined);
    }
    return true;
  }
}
