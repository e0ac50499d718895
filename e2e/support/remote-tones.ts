/**
 * Listening to what a party hears, tone by tone: the PCM of a page's remote WebRTC stream
 * (captured in the page with a ScriptProcessorNode) or of a WAV file (a virtual party's recording, the
 * call's recording), measured at chosen frequencies with a windowed Goertzel filter
 * (`toneLevelsDb`). "Hears 440 and 1000" needs more than the dominant frequency: each tone's own
 * level, compared with the noise floor between the tones.
 */
import type { Page } from 'playwright-core';
import { toneLevelsDb } from '@leadline/voice/dsp';

/** Audio as 16-bit PCM. */
export interface Pcm {
  sampleRateHz: number;
  samples: Int16Array;
}

/** Levels of the probed tones and of the floor between them, in dB relative to full scale. */
export interface ToneLevels {
  /** Level of each probed frequency (Hz → dB). */
  db: Record<number, number>;
  /** Median level at frequencies where no test tone, hold-music note or harmonic of one lies. */
  floorDb: number;
}

/**
 * Frequencies (Hz) clear of the test tones (440, 700, 1000, 1500), the hold music's notes
 * (523, 659, 784) and their low harmonics: where the noise floor is read.
 */
export const FLOOR_PROBES_HZ = [300, 850, 1150, 1750, 1900, 2450, 2750, 3400] as const;

/**
 * The last `ms` of what the page hears on its latest remote stream (see `captureRemoteAudio`),
 * captured from the moment of the call; rejects when the page has no remote stream.
 */
export async function recordRemoteAudio(page: Page, ms: number): Promise<Pcm> {
  const { sampleRateHz, base64 } = await page.evaluate(async (durationMs) => {
    const streams = (window as unknown as { __remoteStreams?: MediaStream[] }).__remoteStreams;
    const stream = streams?.at(-1);
    if (!stream) throw new Error('the page has no remote stream');
    const context = new AudioContext();
    await context.resume();
    // A ScriptProcessorNode, not an AudioWorklet: a worklet's module must be loaded as a script,
    // which the console's Content-Security-Policy allows only from the product itself.
    const source = context.createMediaStreamSource(stream);
    const node = context.createScriptProcessor(4096, 1, 1);
    const chunks: Float32Array[] = [];
    node.onaudioprocess = (event) => chunks.push(event.inputBuffer.getChannelData(0).slice(0));
    source.connect(node);
    // The tap must be pulled by the graph to run; it outputs silence.
    node.connect(context.destination);
    await new Promise((resolve) => setTimeout(resolve, durationMs));
    source.disconnect();
    node.disconnect();
    node.onaudioprocess = null;
    await context.close();
    const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    const pcm = new Int16Array(length);
    let at = 0;
    for (const chunk of chunks) {
      for (const value of chunk) pcm[at++] = Math.max(-32_768, Math.min(32_767, value * 32_767));
    }
    const bytes = new Uint8Array(pcm.buffer);
    let binary = '';
    for (let i = 0; i < bytes.length; i += 0x8000)
      binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
    return { sampleRateHz: context.sampleRate, base64: btoa(binary) };
  }, ms);
  const buffer = Buffer.from(base64, 'base64');
  const samples = new Int16Array(buffer.byteLength / 2);
  for (let i = 0; i < samples.length; i++) samples[i] = buffer.readInt16LE(i * 2);
  return { sampleRateHz, samples };
}

/** Levels of `frequenciesHz` and the floor in `pcm` (see {@link ToneLevels}). */
export function toneLevels(pcm: Pcm, frequenciesHz: readonly number[]): ToneLevels {
  const levels = toneLevelsDb(pcm.samples, pcm.sampleRateHz, frequenciesHz);
  const floor = toneLevelsDb(pcm.samples, pcm.sampleRateHz, FLOOR_PROBES_HZ).sort((a, b) => a - b);
  const db: Record<number, number> = {};
  frequenciesHz.forEach((frequencyHz, i) => (db[frequencyHz] = round(levels[i]!)));
  return { db, floorDb: round(floor[Math.floor(floor.length / 2)]!) };
}

/** What the page hears over the next `ms`, tone by tone. */
export async function remoteToneLevels(
  page: Page,
  frequenciesHz: readonly number[],
  ms = 1500,
): Promise<ToneLevels> {
  return toneLevels(await recordRemoteAudio(page, ms), frequenciesHz);
}

/** Thresholds for {@link heardTones}: a tone is heard when loud enough and clear of the floor. */
export interface HearingThresholds {
  /** Lowest level of a heard tone (dBFS; default −45). */
  minDb?: number;
  /** Least margin above the floor (dB; default 20). */
  aboveFloorDb?: number;
}

/** The probed tones that are heard in `levels`, lowest first. */
export function heardTones(levels: ToneLevels, thresholds: HearingThresholds = {}): number[] {
  const minDb = thresholds.minDb ?? -45;
  const aboveFloorDb = thresholds.aboveFloorDb ?? 20;
  return Object.entries(levels.db)
    .filter(([, db]) => db >= minDb && db >= levels.floorDb + aboveFloorDb)
    .map(([hz]) => Number(hz));
}

function round(db: number): number {
  return Math.round(db * 10) / 10;
}
