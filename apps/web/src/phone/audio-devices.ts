/**
 * The agent's audio devices (spec section 2, Settings panel: Microphone, Speaker and Ringer;
 * section 3, "Audio settings"; section 4: "registered loads the audio device lists"), over the
 * phone port's {@link PhoneAudio}: what can be chosen and what is in use, as a stable snapshot
 * for `useSyncExternalStore`; a choice applied through the SDK; and the choices this browser
 * remembers, applied again when the device registers.
 */
import {
  AUDIO_DEVICE_STORAGE_KEYS,
  DEFAULT_AUDIO_DEVICE_ID,
  UNNAMED_AUDIO_DEVICE_PREFIX,
} from '../constants';
import type { KeyValueStorage } from '../platform/key-value-storage';
import type { PhoneAudio, PhoneAudioDevice, PhoneOutputDevices } from './phone-port';

/** What a selector chooses: the microphone, the speaker (call audio) or the ringer (ringtone). */
export type AudioDeviceKind = keyof typeof AUDIO_DEVICE_STORAGE_KEYS;

/** The kinds, in the Settings panel's order. */
export const AUDIO_DEVICE_KINDS: readonly AudioDeviceKind[] = ['input', 'speaker', 'ringer'];

/** The devices as the selectors show them. */
export interface AudioDevicesSnapshot {
  /**
   * Microphones that can be chosen, with a name to show ('Device N' where the browser hides
   * names). The system default is not among them: the selectors offer it as 'Default'.
   */
  readonly inputs: readonly PhoneAudioDevice[];
  /** Speakers that can be chosen (for Speaker and Ringer), as above. */
  readonly outputs: readonly PhoneAudioDevice[];
  /**
   * The device in use per kind: the id of a listed device, or {@link DEFAULT_AUDIO_DEVICE_ID}
   * for the system default (also when the SDK uses a device that is not listed).
   */
  readonly inUse: Readonly<Record<AudioDeviceKind, string>>;
  /** Whether Speaker and Ringer can be chosen (the browser can route sound). */
  readonly outputSelectable: boolean;
}

/**
 * Devices a selector can offer: not the system default (offered as 'Default') and not the
 * nameless, id-less entries a browser lists before the page may use the microphone.
 */
function choosable(list: ReadonlyMap<string, PhoneAudioDevice>): PhoneAudioDevice[] {
  const devices = [...list.values()].filter(
    (d) => d.deviceId !== '' && d.deviceId !== DEFAULT_AUDIO_DEVICE_ID,
  );
  return devices.map((d, index) => ({
    deviceId: d.deviceId,
    label: d.label.trim() || `${UNNAMED_AUDIO_DEVICE_PREFIX}${index + 1}`,
  }));
}

/** The listed device among `devices` with this id, else the default. */
const shownId = (devices: readonly PhoneAudioDevice[], id: string | undefined): string =>
  id !== undefined && devices.some((d) => d.deviceId === id) ? id : DEFAULT_AUDIO_DEVICE_ID;

const outputsOf = (audio: PhoneAudio, kind: 'speaker' | 'ringer'): PhoneOutputDevices =>
  kind === 'speaker' ? audio.speakerDevices : audio.ringtoneDevices;

/** The first active device of an output collection (both SDKs route to one). */
const firstActive = (outputs: PhoneOutputDevices): string | undefined =>
  outputs.get().values().next().value?.deviceId;

/** The devices and the ones in use, read from the SDK now. */
export function readAudioDevices(audio: PhoneAudio): AudioDevicesSnapshot {
  const inputs = choosable(audio.availableInputDevices);
  const outputs = choosable(audio.availableOutputDevices);
  return {
    inputs,
    outputs,
    inUse: {
      input: shownId(inputs, audio.inputDevice?.deviceId),
      speaker: shownId(outputs, firstActive(audio.speakerDevices)),
      ringer: shownId(outputs, firstActive(audio.ringtoneDevices)),
    },
    outputSelectable: audio.isOutputSelectionSupported,
  };
}

/** The device lists of a {@link PhoneAudio} as an external store (`useSyncExternalStore`). */
export interface AudioDevicesStore {
  /** Calls `listener` whenever the device lists change; returns the unsubscribe. */
  readonly subscribe: (listener: () => void) => () => void;
  /** The devices now: the same object for as long as nothing in it changes. */
  readonly getSnapshot: () => AudioDevicesSnapshot;
  /**
   * Tells the subscribers to read again: the SDKs emit nothing when a choice takes effect, so
   * whoever made it calls this once it settled.
   */
  readonly refresh: () => void;
}

/** A store over `audio`'s `deviceChange` (create one per audio helper). */
export function createAudioDevicesStore(audio: PhoneAudio): AudioDevicesStore {
  const listeners = new Set<() => void>();
  let snapshot: AudioDevicesSnapshot | null = null;
  let snapshotKey = '';
  return {
    subscribe(listener) {
      const onChange = () => listener();
      listeners.add(onChange);
      audio.on('deviceChange', onChange);
      return () => {
        listeners.delete(onChange);
        audio.off('deviceChange', onChange);
      };
    },
    refresh() {
      for (const listener of [...listeners]) listener();
    },
    getSnapshot() {
      const next = readAudioDevices(audio);
      const key = JSON.stringify(next);
      if (snapshot === null || key !== snapshotKey) {
        snapshot = next;
        snapshotKey = key;
      }
      return snapshot;
    },
  };
}

/**
 * The id to hand the SDK for a choice: the device itself, or for the default the system
 * default entry if the browser lists one, else its first device (what both SDKs fall back to).
 * Null when there is nothing to choose.
 */
function targetId(list: ReadonlyMap<string, PhoneAudioDevice>, deviceId: string): string | null {
  if (deviceId !== DEFAULT_AUDIO_DEVICE_ID || list.has(DEFAULT_AUDIO_DEVICE_ID)) return deviceId;
  return choosable(list)[0]?.deviceId ?? null;
}

/**
 * Uses this device (by id; {@link DEFAULT_AUDIO_DEVICE_ID} for the default) for `kind`, for a
 * call in progress too. Rejects with the SDK's error when it refuses (nothing changes then).
 */
export async function chooseAudioDevice(
  audio: PhoneAudio,
  kind: AudioDeviceKind,
  deviceId: string,
): Promise<void> {
  if (kind === 'input') {
    const target = targetId(audio.availableInputDevices, deviceId);
    if (target !== null) await audio.setInputDevice(target);
    return;
  }
  const target = targetId(audio.availableOutputDevices, deviceId);
  if (target !== null) await outputsOf(audio, kind).set([target]);
}

/** Remembers in this browser the device chosen for `kind`. */
export function rememberAudioDevice(
  storage: KeyValueStorage,
  kind: AudioDeviceKind,
  deviceId: string,
): void {
  storage.set(AUDIO_DEVICE_STORAGE_KEYS[kind], deviceId);
}

/** What {@link applyRememberedAudioDevices} did, by kind. */
export interface RememberedAudioDevicesResult {
  /** Kinds whose remembered device is now in use. */
  readonly applied: readonly AudioDeviceKind[];
  /** Kinds whose remembered device is not listed any more (unplugged): left as they were. */
  readonly vanished: readonly AudioDeviceKind[];
  /** Kinds whose remembered device the SDK refused, with its error. */
  readonly refused: readonly { readonly kind: AudioDeviceKind; readonly error: unknown }[];
}

/**
 * Applies the devices this browser remembers (call it when the device registers: spec section
 * 4, "registered loads the audio device lists"). A remembered device that is no longer listed
 * is ignored (and stays remembered, for when it is plugged in again); one already in use, the
 * default, and Speaker or Ringer where the browser cannot route sound are left alone. Never
 * rejects: refusals are reported in the result.
 */
export async function applyRememberedAudioDevices(
  audio: PhoneAudio,
  storage: KeyValueStorage,
): Promise<RememberedAudioDevicesResult> {
  const now = readAudioDevices(audio);
  const applied: AudioDeviceKind[] = [];
  const vanished: AudioDeviceKind[] = [];
  const refused: { kind: AudioDeviceKind; error: unknown }[] = [];
  await Promise.all(
    AUDIO_DEVICE_KINDS.map(async (kind) => {
      const remembered = storage.get(AUDIO_DEVICE_STORAGE_KEYS[kind]);
      if (!remembered || remembered === DEFAULT_AUDIO_DEVICE_ID) return;
      if (kind !== 'input' && !now.outputSelectable) return;
      const listed = kind === 'input' ? now.inputs : now.outputs;
      if (!listed.some((d) => d.deviceId === remembered)) {
        vanished.push(kind);
        return;
      }
      if (now.inUse[kind] === remembered) return;
      try {
        await chooseAudioDevice(audio, kind, remembered);
        applied.push(kind);
      } catch (error) {
        refused.push({ kind, error });
      }
    }),
  );
  const inOrder = (kinds: AudioDeviceKind[]) => AUDIO_DEVICE_KINDS.filter((k) => kinds.includes(k));
  return {
    applied: inOrder(applied),
    vanished: inOrder(vanished),
    refused: AUDIO_DEVICE_KINDS.flatMap((k) => refused.filter((r) => r.kind === k)),
  };
}
