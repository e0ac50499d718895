/**
 * The softphone's sounds, made by the product and served by it (`/sounds/<name>.wav`), so that
 * neither SDK fetches anything from a CDN: the incoming ringtone (a ring cadence that loops),
 * the outgoing and disconnect cues, and one dual tone per keypad key (spec sections 7 and 9).
 * They are synthesised once at start: small WAV files, no assets to ship.
 */
import { SOFTPHONE_SOUND_NAMES, type SoftphoneSoundName } from '@leadline/contracts';
import { encodeWav, generateTone } from '@leadline/voice/dsp';

/** Every sound, by the official Voice SDK's names (`dtmfs` is `*`, `dtmfh` is `#`). */
export const SOUND_NAMES = SOFTPHONE_SOUND_NAMES;

/** The name of a sound. */
export type SoundName = SoftphoneSoundName;

/** Where the sounds are served. */
export const SOUNDS_PATH = '/sounds';

const SAMPLE_RATE_HZ = 16_000;

/** The DTMF frequency pairs (ITU-T Q.23), row and column, by key. */
const DTMF_HZ: Record<string, [number, number]> = {
  '1': [697, 1209],
  '2': [697, 1336],
  '3': [697, 1477],
  '4': [770, 1209],
  '5': [770, 1336],
  '6': [770, 1477],
  '7': [852, 1209],
  '8': [852, 1336],
  '9': [852, 1477],
  '*': [941, 1209],
  '0': [941, 1336],
  '#': [941, 1477],
};

/** One segment of a sound: tones summed (none: silence) for `ms`. */
type Segment = { hz: number[]; ms: number };

function render(segments: Segment[], dbfs = -16): Uint8Array {
  const total = segments.reduce((sum, s) => sum + Math.round((s.ms * SAMPLE_RATE_HZ) / 1000), 0);
  const out = new Int16Array(total);
  let at = 0;
  for (const { hz, ms } of segments) {
    const count = Math.round((ms * SAMPLE_RATE_HZ) / 1000);
    // 5 ms fades so the cues do not click.
    const fade = Math.min(count / 2, (5 * SAMPLE_RATE_HZ) / 1000);
    const tones = hz.map((f) =>
      generateTone({ frequencyHz: f, sampleRateHz: SAMPLE_RATE_HZ, dbfs }, count),
    );
    for (let i = 0; i < count; i++) {
      const gain = Math.min(1, i / fade, (count - 1 - i) / fade);
      let sum = 0;
      for (const tone of tones) sum += tone[i]!;
      out[at + i] = Math.round(sum * gain);
    }
    at += count;
  }
  return encodeWav(out, SAMPLE_RATE_HZ);
}

function dtmfKey(name: SoundName): string | null {
  if (name === 'dtmfs') return '*';
  if (name === 'dtmfh') return '#';
  return name.startsWith('dtmf') ? name.slice(4) : null;
}

/** Synthesises every sound as a WAV file. */
export function makeSounds(): Map<SoundName, Uint8Array> {
  const sounds = new Map<SoundName, Uint8Array>();
  for (const name of SOUND_NAMES) {
    const key = dtmfKey(name);
    if (key !== null) {
      sounds.set(name, render([{ hz: DTMF_HZ[key]!, ms: 150 }], -12));
      continue;
    }
    switch (name) {
      case 'incoming':
        // The North American ring: 440 + 480 Hz, 2 s on, 4 s off (one cycle; the SDK loops it).
        sounds.set(
          name,
          render([
            { hz: [440, 480], ms: 2000 },
            { hz: [], ms: 4000 },
          ]),
        );
        break;
      case 'outgoing':
        // A short rising cue as the call is placed.
        sounds.set(
          name,
          render([
            { hz: [660], ms: 120 },
            { hz: [], ms: 40 },
            { hz: [880], ms: 160 },
          ]),
        );
        break;
      case 'disconnect':
        // A short falling cue as the call ends.
        sounds.set(
          name,
          render([
            { hz: [880], ms: 120 },
            { hz: [], ms: 40 },
            { hz: [520], ms: 220 },
          ]),
        );
        break;
    }
  }
  return sounds;
}

/** The sounds' URLs, by name, under `base` (e.g. '' for the page's own origin). */
export function soundUrls(base = ''): Record<SoundName, string> {
  return Object.fromEntries(
    SOUND_NAMES.map((name) => [name, `${base}${SOUNDS_PATH}/${name}.wav`]),
  ) as Record<SoundName, string>;
}
