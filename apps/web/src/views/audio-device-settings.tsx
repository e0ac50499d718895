/**
 * The Settings panel's audio device selectors (spec section 2): Microphone, Speaker and Ringer,
 * filled from the phone's device lists and kept current as devices are plugged in and out. A
 * choice is applied at once (for a call in progress too) and remembered in this browser; a
 * refused one says why and the selector goes back to the device really in use. Speaker and
 * Ringer are disabled where the browser cannot route sound. Until the phone is ready there are
 * no lists, and a line says so.
 */
import { useId, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import {
  AUDIO_DEVICES_NOT_READY_TEXT,
  DEFAULT_AUDIO_DEVICE_ID,
  DEFAULT_AUDIO_DEVICE_LABEL,
  OUTPUT_SELECTION_UNSUPPORTED_TEXT,
} from '../constants';
import { errorMessage } from '../errors';
import {
  chooseAudioDevice,
  createAudioDevicesStore,
  rememberAudioDevice,
  type AudioDeviceKind,
} from '../phone/audio-devices';
import type { KeyValueStorage } from '../platform/key-value-storage';
import type { PhoneAudio, PhoneAudioDevice } from '../phone/phone-port';
import { ErrorBanner } from '../ui/error-banner';

export { applyRememberedAudioDevices } from '../phone/audio-devices';

/** Props of {@link AudioDeviceSettings}. */
export interface AudioDeviceSettingsProps {
  /** The phone's audio helper (`device.audio`); null while the phone is not ready. */
  readonly audio: PhoneAudio | null;
  /** Where this browser remembers the choices. */
  readonly storage: KeyValueStorage;
}

/** See the module comment. */
export function AudioDeviceSettings({ audio, storage }: AudioDeviceSettingsProps) {
  if (!audio) return <p className="muted">{AUDIO_DEVICES_NOT_READY_TEXT}</p>;
  return <AudioDeviceSelectors audio={audio} storage={storage} />;
}

/** The selector labels, by kind (spec section 2). */
const LABELS: Readonly<Record<AudioDeviceKind, string>> = {
  input: 'Microphone',
  speaker: 'Speaker',
  ringer: 'Ringer',
};

function AudioDeviceSelectors({
  audio,
  storage,
}: {
  readonly audio: PhoneAudio;
  readonly storage: KeyValueStorage;
}) {
  const store = useMemo(() => createAudioDevicesStore(audio), [audio]);
  const devices = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const unsupportedId = useId();
  const output = {
    audio,
    storage,
    onSettled: store.refresh,
    devices: devices.outputs,
    disabled: !devices.outputSelectable,
    describedBy: devices.outputSelectable ? undefined : unsupportedId,
  };
  return (
    <div className="form" role="group" aria-label="Audio devices">
      <DeviceSelect
        audio={audio}
        storage={storage}
        onSettled={store.refresh}
        kind="input"
        devices={devices.inputs}
        inUse={devices.inUse.input}
      />
      <DeviceSelect {...output} kind="speaker" inUse={devices.inUse.speaker} />
      <DeviceSelect {...output} kind="ringer" inUse={devices.inUse.ringer} />
      {!devices.outputSelectable && (
        <p id={unsupportedId} className="muted">
          {OUTPUT_SELECTION_UNSUPPORTED_TEXT}
        </p>
      )}
    </div>
  );
}

interface DeviceSelectProps {
  readonly audio: PhoneAudio;
  readonly storage: KeyValueStorage;
  readonly kind: AudioDeviceKind;
  /** Called once the SDK has answered a choice (the device in use is read again). */
  readonly onSettled: () => void;
  /** The devices to offer besides Default. */
  readonly devices: readonly PhoneAudioDevice[];
  /** The id of the device in use ({@link DEFAULT_AUDIO_DEVICE_ID} for the default). */
  readonly inUse: string;
  readonly disabled?: boolean;
  readonly describedBy?: string | undefined;
}

/**
 * One selector. While a choice is being applied it shows that choice (busy); once the SDK has
 * answered it shows the device in use again, which is the chosen one unless the SDK refused.
 * Answers to a choice superseded by a newer one are dropped.
 */
function DeviceSelect({
  audio,
  storage,
  kind,
  onSettled,
  devices,
  inUse,
  disabled = false,
  describedBy,
}: DeviceSelectProps) {
  const [pending, setPending] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const attempt = useRef(0);
  const label = LABELS[kind];

  const choose = (deviceId: string) => {
    const current = ++attempt.current;
    setPending(deviceId);
    setError(null);
    chooseAudioDevice(audio, kind, deviceId).then(
      () => {
        if (current !== attempt.current) return;
        rememberAudioDevice(storage, kind, deviceId);
        setPending(null);
        onSettled();
      },
      (refusal: unknown) => {
        if (current !== attempt.current) return;
        setError(`${label} could not be changed: ${errorMessage(refusal)}`);
        setPending(null);
        onSettled();
      },
    );
  };

  return (
    <>
      <label className="field">
        <span className="field-label">{label}</span>
        <select
          className="input select"
          name={kind}
          value={pending ?? inUse}
          disabled={disabled}
          aria-describedby={describedBy}
          aria-busy={pending !== null || undefined}
          onChange={(event) => choose(event.target.value)}
        >
          <option value={DEFAULT_AUDIO_DEVICE_ID}>{DEFAULT_AUDIO_DEVICE_LABEL}</option>
          {devices.map((device) => (
            <option key={device.deviceId} value={device.deviceId}>
              {device.label}
            </option>
          ))}
        </select>
      </label>
      <ErrorBanner message={error} />
    </>
  );
}
