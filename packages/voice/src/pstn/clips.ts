import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SAMPLE_RATE_HZ } from '../constants';
import { readWavFile } from '../dsp/wav';
import { MediaError } from '../media/media-errors';

/** The recorded clips virtual parties play. */
export type ClipName = 'lead-voice' | 'voicemail-greeting';

/**
 * The clips' files in the assets directory: 8 kHz mono G.711 µ-law WAVs made once with
 * espeak-ng and sox (see `assets/README.md`), so a person trying the demo hears a lead talk.
 */
export const CLIP_FILES: Record<ClipName, string> = {
  'lead-voice': 'lead-voice.wav',
  'voicemail-greeting': 'voicemail-greeting.wav',
};

/** The clips, decoded to 8 kHz 16-bit PCM. */
export type ClipLibrary = Record<ClipName, Int16Array>;

/**
 * The engine's assets directory, found next to the module that asks:
 * - from sources (Vitest, tsx), `moduleUrl` is a `.ts` file under `packages/voice/src/<dir>/`:
 *   the directory is `packages/voice/assets/`;
 * - from the server's esbuild bundle, `moduleUrl` is `dist/main.js` or `dist/media-worker.js`:
 *   the directory is `dist/assets/`, where `apps/server/build.mjs` copies the assets.
 */
export function defaultAssetsDir(moduleUrl: string = import.meta.url): string {
  return fileURLToPath(
    new URL(moduleUrl.endsWith('.ts') ? '../../assets/' : './assets/', moduleUrl),
  );
}

/** Loads every clip from `assetsDir`; rejects with `WorkerStartFailed` naming a bad file. */
export async function loadClips(assetsDir: string): Promise<ClipLibrary> {
  const entries = await Promise.all(
    Object.entries(CLIP_FILES).map(async ([name, file]) => {
      const path = join(assetsDir, file);
      let samples: Int16Array;
      try {
        const wav = await readWavFile(path);
        if (wav.sampleRateHz !== SAMPLE_RATE_HZ) {
          throw new Error(`sampled at ${wav.sampleRateHz} Hz, not ${SAMPLE_RATE_HZ} Hz`);
        }
        samples = wav.samples;
      } catch (error) {
        throw new MediaError('WorkerStartFailed', `voice clip ${path}: ${String(error)}`, {
          cause: error,
        });
      }
      return [name, samples] as const;
    }),
  );
  return Object.fromEntries(entries) as ClipLibrary;
}
