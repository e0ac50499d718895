/**
 * What the virtual lead heard: every sandbox party records what reaches it from its answer until
 * it leaves (`docs/sandbox-numbers.md`), and the engine reports the file as `phone.recorded`
 * when the party is gone. Tests check the lead heard the agent by listening to that file.
 */
import { readWavFile } from '@leadline/voice/dsp';
import type { RealLeadline } from './real-engine';
import { REAL_WAIT_MS } from './wait-until';

/** A lead's recording: 8 kHz mono samples, its length and where it is. */
export interface LeadRecording {
  samples: Int16Array;
  sampleRateHz: number;
  seconds: number;
  path: string;
}

/**
 * Waits for the `phone.recorded` event of the call `callSid` (the lead's side has ended: hang up
 * first) and reads its WAV file.
 */
export async function leadHeard(
  product: RealLeadline,
  callSid: string,
  timeoutMs = REAL_WAIT_MS,
): Promise<LeadRecording> {
  const recorded = await product.waitForEvent('phone.recorded', { callSid }, timeoutMs);
  const wav = await readWavFile(recorded.path);
  return {
    samples: wav.samples,
    sampleRateHz: wav.sampleRateHz,
    seconds: recorded.seconds,
    path: recorded.path,
  };
}
