import { open, type FileHandle } from 'node:fs/promises';
import { endianness } from 'node:os';
import { encodeWav } from './wav';

/** Samples buffered before they are written out (one second at 8 kHz). */
const FLUSH_SAMPLES = 8000;
/** Size of the canonical WAV header `encodeWav` writes. */
const HEADER_BYTES = 44;
/** WAV samples are little-endian; on such a machine they are copied as they lie in memory. */
const LITTLE_ENDIAN = endianness() === 'LE';

/**
 * Writes a mono 16-bit PCM WAV file as audio arrives, so hour-long calls never sit in memory:
 * the header goes first (sizes 0), samples are appended a second at a time, and `close` writes
 * the rest and fills in the sizes. Writes run one after another in the background; `append`
 * never blocks the caller (the 20 ms mixer loop). A failed write is reported by `close`.
 */
export class WavFileWriter {
  private readonly handle: Promise<FileHandle>;
  private queue: Promise<void>;
  private pending = Buffer.alloc(FLUSH_SAMPLES * 2);
  private pendingSamples = 0;
  private written = 0;
  private samples = 0;
  private failure: Error | undefined;
  private closed = false;

  /** Creates (or truncates) the file at `path`. */
  constructor(
    readonly path: string,
    private readonly sampleRateHz: number,
  ) {
    this.handle = open(path, 'w');
    this.queue = this.handle.then(
      (file) => this.write(file, encodeWav(new Int16Array(0), sampleRateHz), 0),
      (error: unknown) => {
        this.failure = asError(error);
      },
    );
  }

  /** Samples appended so far. */
  get sampleCount(): number {
    return this.samples;
  }

  /** Seconds of audio appended so far. */
  get seconds(): number {
    return this.samples / this.sampleRateHz;
  }

  /** Appends a copy of `frame`. Ignored after `close`. */
  append(frame: Int16Array): void {
    if (this.closed) return;
    const needed = (this.pendingSamples + frame.length) * 2;
    if (needed > this.pending.length) {
      const bigger = Buffer.alloc(Math.max(needed, this.pending.length * 2));
      this.pending.copy(bigger, 0, 0, this.pendingSamples * 2);
      this.pending = bigger;
    }
    const offset = this.pendingSamples * 2;
    if (LITTLE_ENDIAN) {
      this.pending.set(new Uint8Array(frame.buffer, frame.byteOffset, frame.byteLength), offset);
    } else {
      for (let i = 0; i < frame.length; i++)
        this.pending.writeInt16LE(frame[i] ?? 0, offset + 2 * i);
    }
    this.pendingSamples += frame.length;
    this.samples += frame.length;
    if (this.pendingSamples >= FLUSH_SAMPLES) this.flush();
  }

  /**
   * Writes what is left, fills in the header's sizes and closes the file. Resolves with the
   * seconds of audio written; rejects if any write failed.
   */
  async close(): Promise<number> {
    if (!this.closed) {
      this.closed = true;
      this.flush();
      const dataBytes = this.samples * 2;
      this.queue = this.queue.then(async () => {
        if (this.failure !== undefined) return;
        const file = await this.handle;
        const sizes = Buffer.alloc(4);
        sizes.writeUInt32LE(HEADER_BYTES - 8 + dataBytes, 0);
        await file.write(sizes, 0, 4, 4);
        sizes.writeUInt32LE(dataBytes, 0);
        await file.write(sizes, 0, 4, 40);
      });
      this.queue = this.queue.finally(async () => {
        await this.handle.then(
          (file) => file.close(),
          () => undefined,
        );
      });
    }
    await this.queue;
    if (this.failure !== undefined) throw this.failure;
    return this.seconds;
  }

  private flush(): void {
    if (this.pendingSamples === 0) return;
    const bytes = this.pending.subarray(0, this.pendingSamples * 2);
    this.pending = Buffer.alloc(FLUSH_SAMPLES * 2);
    this.pendingSamples = 0;
    const position = HEADER_BYTES + this.written;
    this.written += bytes.length;
    this.queue = this.queue.then(async () => {
      if (this.failure !== undefined) return;
      await this.write(await this.handle, bytes, position);
    });
  }

  private async write(file: FileHandle, bytes: Uint8Array, position: number): Promise<void> {
    try {
      await file.write(bytes, 0, bytes.length, position);
    } catch (error) {
      this.failure ??= asError(error);
    }
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
