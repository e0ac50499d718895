/**
 * The Settings panel's Microphone, Speaker and Ringer selectors over the fake phone's audio:
 * the lists with their names, a choice applied and remembered, devices plugged in and out while
 * the selectors are open, a refused choice, a browser that cannot route sound, no phone yet.
 */
import { act, render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SOFTPHONE } from '../api/api-client';
import { FakeAudio, FakePhone } from '../test-support/fake-phone';
import { MemoryKeyValueStorage } from '../platform/key-value-storage';
import { AudioDeviceSettings, applyRememberedAudioDevices } from './audio-device-settings';

const HEADSET = {
  inputs: [{ deviceId: 'usb-mic', label: 'USB Headset Microphone' }],
  outputs: [{ deviceId: 'usb-out', label: 'USB Headset Earphones' }],
};

function show(audio: FakeAudio | null = new FakeAudio()) {
  const storage = new MemoryKeyValueStorage();
  const user = userEvent.setup();
  render(<AudioDeviceSettings audio={audio} storage={storage} />);
  const select = (name: 'Microphone' | 'Speaker' | 'Ringer') =>
    screen.getByRole('combobox', { name });
  const options = (name: 'Microphone' | 'Speaker' | 'Ringer') =>
    within(select(name))
      .getAllByRole('option')
      .map((option) => option.textContent);
  return { audio: audio!, storage, user, select, options };
}

describe('the audio device selectors', () => {
  it('list the devices by name, Default first and chosen, and Device N where names are hidden', () => {
    const { options, select } = show(
      new FakeAudio({
        inputs: [
          { deviceId: 'default', label: 'Default - Built-in Microphone' },
          { deviceId: 'built-in-mic', label: 'Built-in Microphone' },
          { deviceId: 'usb-mic', label: '' },
        ],
        outputs: [
          { deviceId: 'default', label: 'Default - Built-in Speakers' },
          { deviceId: 'built-in-speakers', label: 'Built-in Speakers' },
        ],
      }),
    );
    expect(options('Microphone')).toEqual(['Default', 'Built-in Microphone', 'Device 2']);
    expect(options('Speaker')).toEqual(['Default', 'Built-in Speakers']);
    expect(options('Ringer')).toEqual(['Default', 'Built-in Speakers']);
    for (const name of ['Microphone', 'Speaker', 'Ringer'] as const) {
      expect(select(name)).toHaveDisplayValue('Default');
      expect(select(name)).toBeEnabled();
    }
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('apply a choice at once and remember it in this browser', async () => {
    const { audio, storage, user, select } = show(new FakeAudio());
    act(() => audio.plug(HEADSET));
    await user.selectOptions(select('Microphone'), 'USB Headset Microphone');
    await user.selectOptions(select('Speaker'), 'USB Headset Earphones');
    await user.selectOptions(select('Ringer'), 'Built-in Speakers');
    await waitFor(() => expect(storage.entries.size).toBe(3));
    expect(audio.invocations).toEqual([
      'setInputDevice(usb-mic)',
      'speakerDevices.set(usb-out)',
      'ringtoneDevices.set(built-in-speakers)',
    ]);
    expect(audio.inputDevice?.deviceId).toBe('usb-mic');
    expect(Object.fromEntries(storage.entries)).toEqual({
      'leadline.audio.input': 'usb-mic',
      'leadline.audio.speaker': 'usb-out',
      'leadline.audio.ringer': 'built-in-speakers',
    });
    expect(select('Microphone')).toHaveDisplayValue('USB Headset Microphone');
    expect(select('Speaker')).toHaveDisplayValue('USB Headset Earphones');
    expect(select('Ringer')).toHaveDisplayValue('Built-in Speakers');

    // Back to Default: the system default device, remembered as such.
    await user.selectOptions(select('Microphone'), 'Default');
    await waitFor(() => expect(storage.get('leadline.audio.input')).toBe('default'));
    expect(audio.inputDevice?.deviceId).toBe('default');
    expect(select('Microphone')).toHaveDisplayValue('Default');
  });

  it('show a headset plugged in while they are open, and fall back to Default when it is unplugged', async () => {
    const { audio, user, select, options } = show(new FakeAudio());
    expect(options('Microphone')).toEqual(['Default', 'Built-in Microphone']);
    act(() => audio.plug(HEADSET));
    expect(options('Microphone')).toEqual([
      'Default',
      'Built-in Microphone',
      'USB Headset Microphone',
    ]);
    expect(options('Speaker')).toContain('USB Headset Earphones');
    await user.selectOptions(select('Microphone'), 'USB Headset Microphone');
    await user.selectOptions(select('Speaker'), 'USB Headset Earphones');
    await waitFor(() => expect(select('Speaker')).toHaveDisplayValue('USB Headset Earphones'));
    expect(select('Microphone')).toHaveDisplayValue('USB Headset Microphone');

    act(() => audio.unplug('usb-mic', 'usb-out'));
    expect(options('Microphone')).toEqual(['Default', 'Built-in Microphone']);
    expect(select('Microphone')).toHaveDisplayValue('Default');
    expect(select('Speaker')).toHaveDisplayValue('Default');
    expect(audio.inputDevice?.deviceId).toBe('default');
  });

  it('say why a refused choice failed and show the device really in use', async () => {
    const { audio, storage, user, select } = show(new FakeAudio());
    act(() => audio.plug(HEADSET));
    audio.refuseNext(new Error('Could not start audio source'));
    await user.selectOptions(select('Microphone'), 'USB Headset Microphone');
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Microphone could not be changed: Could not start audio source',
    );
    expect(select('Microphone')).toHaveDisplayValue('Default');
    expect(audio.inputDevice).toBeNull();
    expect(storage.entries.size).toBe(0);

    // The next choice clears the error.
    await user.selectOptions(select('Microphone'), 'USB Headset Microphone');
    await waitFor(() => expect(select('Microphone')).toHaveDisplayValue('USB Headset Microphone'));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('show a choice as busy until the SDK answers, and drop the answer to a superseded one', async () => {
    const { audio, storage, user, select } = show(new FakeAudio());
    act(() => audio.plug(HEADSET));
    const release = audio.pauseChoices();
    audio.refuseNext(new Error('Could not start audio source'));
    await user.selectOptions(select('Microphone'), 'USB Headset Microphone');
    expect(select('Microphone')).toHaveDisplayValue('USB Headset Microphone');
    expect(select('Microphone')).toHaveAttribute('aria-busy', 'true');
    await user.selectOptions(select('Microphone'), 'Built-in Microphone');
    act(release);
    await waitFor(() => expect(select('Microphone')).not.toHaveAttribute('aria-busy'));
    expect(audio.invocations).toEqual(['setInputDevice(usb-mic)', 'setInputDevice(built-in-mic)']);
    expect(select('Microphone')).toHaveDisplayValue('Built-in Microphone');
    // The first choice's refusal came after the second choice: it is not shown.
    expect(screen.queryByRole('alert')).toBeNull();
    expect(storage.get('leadline.audio.input')).toBe('built-in-mic');
  });

  it('disable Speaker and Ringer, saying why, where the browser cannot route sound', () => {
    const { select } = show(new FakeAudio(undefined, { outputSelection: false }));
    expect(select('Microphone')).toBeEnabled();
    for (const name of ['Speaker', 'Ringer'] as const) {
      expect(select(name)).toBeDisabled();
      expect(select(name)).toHaveAccessibleDescription(
        'This browser cannot choose where sound plays: the system default is used.',
      );
    }
  });

  it('say the lists come once the phone is ready, while there is no phone', () => {
    show(null);
    expect(screen.getByText('Audio devices are listed once the phone is ready.')).toBeVisible();
    expect(screen.queryByRole('combobox')).toBeNull();
  });

  it('show the devices of the phone device, with remembered choices applied on registration', async () => {
    const phone = new FakePhone({ audio: () => new FakeAudio(HEADSET) });
    const device = await phone.factory('token', DEFAULT_SOFTPHONE);
    await device.register();
    const storage = new MemoryKeyValueStorage({ 'leadline.audio.speaker': 'usb-out' });
    await applyRememberedAudioDevices(device.audio, storage);
    render(<AudioDeviceSettings audio={device.audio} storage={storage} />);
    expect(screen.getByRole('combobox', { name: 'Speaker' })).toHaveDisplayValue(
      'USB Headset Earphones',
    );
  });
});
