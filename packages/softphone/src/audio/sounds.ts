/**
 * The device's sounds (spec sections 7 and 9): the incoming ringtone (loops until stopped, on
 * the ringtone devices), and the outgoing, disconnect and DTMF feedback sounds (on the speaker
 * devices, cut at 3,000, 3,000 and 1,000 ms). They play from URLs the application passes in
 * `DeviceOptions.sounds`; a sound without a URL is silent (nothing is fetched from a CDN).
 */
import { SOUND_MAX_DURATION_MS } from '../constants';
import type { Platform, SoundElement } from '../platform/platform';

/** The sounds, by the official SDK's names (`dtmfs` is `*`, `dtmfh` is `#`). */
export type SoundName =
  | 'incoming'
  | 'outgoing'
  | 'disconnect'
  | `dtmf${0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9}`
  | 'dtmfs'
  | 'dtmfh';

/** The sound of a DTMF digit. */
export const dtmfSound = (digit: string): SoundName =>
  digit === '*' ? 'dtmfs' : digit === '#' ? 'dtmfh' : (`dtmf${digit}` as SoundName);

const maxDurationOf = (name: SoundName): number =>
  name === 'incoming'
    ? 0
    : name.startsWith('dtmf')
      ? SOUND_MAX_DURATION_MS.dtmf
      : SOUND_MAX_DURATION_MS[name as 'outgoing' | 'disconnect'];

/** Plays the device's sounds. */
export class Sounds {
  readonly #elements = new Map<SoundName, SoundElement>();
  readonly #timers = new Map<SoundName, unknown>();
  /** Output devices: the ringtone's, and every other sound's. */
  readonly #sinks = { ringtone: ['default'], speaker: ['default'] };

  constructor(
    private readonly platform: Platform,
    private urls: Partial<Record<SoundName, string>> = {},
  ) {}

  /** Replaces the URLs (sounds already made are kept when their URL did not change). */
  setUrls(urls: Partial<Record<SoundName, string>>): void {
    for (const [name, element] of this.#elements) {
      if (urls[name] !== this.urls[name]) {
        element.stop();
        this.#elements.delete(name);
      }
    }
    this.urls = urls;
  }

  /** Starts a sound; resolves once it plays (at once for a sound without a URL). */
  play(name: SoundName): Promise<void> {
    const element = this.#element(name);
    if (!element) return Promise.resolve();
    this.stop(name);
    const maxMs = maxDurationOf(name);
    if (maxMs) {
      this.#timers.set(
        name,
        this.platform.clock.setTimeout(() => this.stop(name), maxMs),
      );
    }
    return element.play(name === 'incoming');
  }

  /** Stops a sound (rewinds it). */
  stop(name: SoundName): void {
    this.platform.clock.clearTimeout(this.#timers.get(name));
    this.#timers.delete(name);
    this.#elements.get(name)?.stop();
  }

  /** Routes the ringtone, or every other sound, to output devices (the first is used). */
  async setSinkIds(kind: 'ringtone' | 'speaker', sinkIds: string[]): Promise<void> {
    this.#sinks[kind] = sinkIds;
    await Promise.all(
      [...this.#elements]
        .filter(([name]) => this.#kindOf(name) === kind)
        .map(([, e]) => e.setSinkId(sinkIds[0]!)),
    );
  }

  #kindOf(name: SoundName): 'ringtone' | 'speaker' {
    return name === 'incoming' ? 'ringtone' : 'speaker';
  }

  #element(name: SoundName): SoundElement | null {
    const url = this.urls[name];
    if (!url) return null;
    let element = this.#elements.get(name);
    if (!element) {
      element = this.platform.createSound(url);
      const sink = this.#sinks[this.#kindOf(name)][0]!;
      if (sink !== 'default') void element.setSinkId(sink).catch(() => undefined);
      this.#elements.set(name, element);
    }
    return element;
  }
}
