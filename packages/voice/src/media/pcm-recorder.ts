/**
 * Collects 16-bit PCM frames in memory (16 kB per second at 8 kHz) and hands them out as one
 * array. Frames are copied, so callers may reuse theirs.
 */
export class PcmRecorder {
  private readonly chunks: Int16Array[] = [];
  private samples = 0;

  /** Samples recorded so far. */
  get sampleCount(): number {
    return this.samples;
  }

  /** Appends a copy of `frame`. */
  append(frame: Int16Array): void {
    this.chunks.push(frame.slice());
    this.samples += frame.length;
  }

  /** Everything recorded so far, as one array. */
  toSamples(): Int16Array {
    const all = new Int16Array(this.samples);
    let offset = 0;
    for (const chunk of this.chunks) {
      all.set(chunk, offset);
      offset += chunk.length;
    }
    return all;
  }
}
