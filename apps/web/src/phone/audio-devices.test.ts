import { describe, expect, it, vi } from 'vitest';
import {
  applyRememberedAudioDevices,
  chooseAudioDevice,
  createAudioDevicesStore,
  readAudioDevices,
} from './audio-devices';
import { FakeAudio } from '../test-support/fake-phone';
import { MemoryKeyValueStorage, browserKeyValueStorage } from '../platform/key-value-storage';

/** A laptop with a USB headset plugged in. */
const withHeadset = () =>
  new FakeAudio({
    inputs: [
      { deviceId: 'default', label: 'Default - Built-in Microphone' },
      { deviceId: 'built-in-mic', label: 'Built-in Microphone' },
      { deviceId: 'usb-mic', label: 'USB Headset' },
    ],
    outputs: [
      { deviceId: 'default', label: 'Default - Built-in Speakers' },
      { deviceId: 'built-in-speakers', label: 'Built-in Speakers' },
      { deviceId: 'usb-out', label: 'USB Headset' },
    ],
  });

describe('the audio devices as the selectors show them', () => {
  it('offers the listed devices, the system default as Default, and names hidden ones Device N', () => {
    const audio = new FakeAudio({
      inputs: [
        { deviceId: 'default', label: '' },
        { deviceId: 'a1', label: '' },
        { deviceId: 'a2', label: ' ' },
      ],
      outputs: [{ deviceId: 'o1', label: 'Speakers' }],
    });
    expect(readAudioDevices(audio)).toEqual({
      inputs: [
        { deviceId: 'a1', label: 'Device 1' },
        { deviceId: 'a2', label: 'Device 2' },
      ],
      outputs: [{ deviceId: 'o1', label: 'Speakers' }],
      // Without a 'default' entry the SDKs route to the first output: it is shown as itself.
      inUse: { input: 'default', speaker: 'o1', ringer: 'o1' },
      outputSelectable: true,
    });
  });

  it('leaves out the id-less entries a browser lists before microphone permission', () => {
    const audio = new FakeAudio({
      inputs: [{ deviceId: '', label: '' }],
      outputs: [{ deviceId: '', label: '' }],
    });
    expect(readAudioDevices(audio)).toMatchObject({ inputs: [], outputs: [] });
  });

  it('the store keeps one snapshot until something changes, and tells on deviceChange', async () => {
    const audio = withHeadset();
    const store = createAudioDevicesStore(audio);
    const first = store.getSnapshot();
    expect(store.getSnapshot()).toBe(first);
    const listener = vi.fn();
    const unsubscribe = store.subscribe(listener);
    audio.unplug('usb-mic', 'usb-out');
    expect(listener).toHaveBeenCalledOnce();
    const second = store.getSnapshot();
    expect(second).not.toBe(first);
    expect(second.inputs.map((d) => d.deviceId)).toEqual(['built-in-mic']);
    expect(store.getSnapshot()).toBe(second);
    // A choice emits nothing; the next read shows it, and refresh tells the subscribers.
    await chooseAudioDevice(audio, 'input', 'built-in-mic');
    expect(store.getSnapshot().inUse.input).toBe('built-in-mic');
    store.refresh();
    expect(listener).toHaveBeenCalledTimes(2);
    unsubscribe();
    store.refresh();
    expect(listener).toHaveBeenCalledTimes(2);
    expect(audio.listenerCount('deviceChange')).toBe(0);
  });
});

describe('choosing a device', () => {
  it('applies each kind through the SDK, Default as the system default entry', async () => {
    const audio = withHeadset();
    await chooseAudioDevice(audio, 'input', 'usb-mic');
    await chooseAudioDevice(audio, 'speaker', 'usb-out');
    await chooseAudioDevice(audio, 'ringer', 'built-in-speakers');
    await chooseAudioDevice(audio, 'input', 'default');
    expect(audio.invocations).toEqual([
      'setInputDevice(usb-mic)',
      'speakerDevices.set(usb-out)',
      'ringtoneDevices.set(built-in-speakers)',
      'setInputDevice(default)',
    ]);
    expect(readAudioDevices(audio).inUse).toEqual({
      input: 'default',
      speaker: 'usb-out',
      ringer: 'built-in-speakers',
    });
  });

  it('Default is the first device where the browser lists no default entry', async () => {
    const audio = new FakeAudio({
      inputs: [
        { deviceId: 'm1', label: 'Mic 1' },
        { deviceId: 'm2', label: 'Mic 2' },
      ],
      outputs: [],
    });
    await chooseAudioDevice(audio, 'input', 'm2');
    await chooseAudioDevice(audio, 'input', 'default');
    expect(audio.invocations).toEqual(['setInputDevice(m2)', 'setInputDevice(m1)']);
    // And with nothing listed there is nothing to choose.
    await chooseAudioDevice(audio, 'speaker', 'default');
    expect(audio.invocations).toHaveLength(2);
  });

  it("rejects with the SDK's refusal and changes nothing", async () => {
    const audio = withHeadset();
    const refusal = new Error('Could not start audio source');
    audio.refuseNext(refusal);
    await expect(chooseAudioDevice(audio, 'input', 'usb-mic')).rejects.toBe(refusal);
    expect(audio.inputDevice).toBeNull();
  });
});

describe('applyRememberedAudioDevices', () => {
  const remembered = (entries: Record<string, string>) => new MemoryKeyValueStorage(entries);

  it('applies the remembered devices that are listed', async () => {
    const audio = withHeadset();
    const storage = remembered({
      'leadline.audio.input': 'usb-mic',
      'leadline.audio.speaker': 'usb-out',
      'leadline.audio.ringer': 'built-in-speakers',
    });
    expect(await applyRememberedAudioDevices(audio, storage)).toEqual({
      applied: ['input', 'speaker', 'ringer'],
      vanished: [],
      refused: [],
    });
    expect(readAudioDevices(audio).inUse).toEqual({
      input: 'usb-mic',
      speaker: 'usb-out',
      ringer: 'built-in-speakers',
    });
  });

  it('ignores devices that vanished (and keeps remembering them), the default, and ones in use', async () => {
    const audio = new FakeAudio(); // no headset plugged in
    const storage = remembered({
      'leadline.audio.input': 'usb-mic',
      'leadline.audio.speaker': 'default',
      'leadline.audio.ringer': 'usb-out',
    });
    expect(await applyRememberedAudioDevices(audio, storage)).toEqual({
      applied: [],
      vanished: ['input', 'ringer'],
      refused: [],
    });
    expect(audio.invocations).toEqual([]);
    expect(storage.get('leadline.audio.input')).toBe('usb-mic');

    const plugged = withHeadset();
    await chooseAudioDevice(plugged, 'input', 'usb-mic');
    const again = await applyRememberedAudioDevices(plugged, storage);
    expect(again.applied).toEqual(['ringer']);
    expect(plugged.invocations).toEqual([
      'setInputDevice(usb-mic)',
      'ringtoneDevices.set(usb-out)',
    ]);
  });

  it('reports a refusal without rejecting, and applies the others', async () => {
    const audio = withHeadset();
    const refusal = new Error('Permission denied');
    audio.refuseNext(refusal);
    const storage = remembered({
      'leadline.audio.input': 'usb-mic',
      'leadline.audio.speaker': 'usb-out',
    });
    const result = await applyRememberedAudioDevices(audio, storage);
    expect(result.refused).toEqual([{ kind: 'input', error: refusal }]);
    expect(result.applied).toEqual(['speaker']);
  });

  it('leaves Speaker and Ringer alone where the browser cannot route sound', async () => {
    const audio = new FakeAudio(undefined, { outputSelection: false });
    const storage = remembered({
      'leadline.audio.speaker': 'built-in-speakers',
      'leadline.audio.ringer': 'built-in-speakers',
    });
    expect(await applyRememberedAudioDevices(audio, storage)).toEqual({
      applied: [],
      vanished: [],
      refused: [],
    });
    expect(audio.invocations).toEqual([]);
  });
});

describe('browserKeyValueStorage', () => {
  it('remembers in localStorage', () => {
    const storage = browserKeyValueStorage(window);
    storage.set('leadline.audio.input', 'usb-mic');
    expect(window.localStorage.getItem('leadline.audio.input')).toBe('usb-mic');
    expect(storage.get('leadline.audio.input')).toBe('usb-mic');
    expect(storage.get('leadline.audio.nothing')).toBeNull();
    window.localStorage.clear();
  });

  it('neither throws nor remembers where the browser refuses storage', () => {
    const blocked = {
      get localStorage(): Storage {
        throw new DOMException('Access is denied for this document.', 'SecurityError');
      },
    } as unknown as Window;
    const storage = browserKeyValueStorage(blocked);
    expect(() => storage.set('leadline.audio.input', 'usb-mic')).not.toThrow();
    expect(storage.get('leadline.audio.input')).toBeNull();
  });
});
