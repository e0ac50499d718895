import type { CancelTimer, MonotonicClock, Scheduler } from './platform';

/** Options of a {@link FramePacer}. */
export interface FramePacerOptions {
  /** Source of time (monotonic). */
  clock: MonotonicClock;
  /** One-shot timers. */
  scheduler: Scheduler;
  /** Length of one frame, e.g. 20 ms. */
  frameMs: number;
  /**
   * Where the time grid lies on `clock`: frames fall due at the times `phaseMs + k × frameMs`.
   * Pacers of several threads on one core use different phases so that their frames take turns
   * instead of queueing behind each other. Default: the first frame is due one period after
   * `start`.
   */
  phaseMs?: number;
  /** Frames replayed back to back after a stall; beyond that the pacer skips ahead. */
  maxCatchUpFrames: number;
  /** Runs once per frame with how late it runs (ms after its due time); it must not block. */
  onFrame: (latenessMs: number) => void;
  /** Receives what `onFrame` throws; the loop goes on. */
  onError: (error: unknown) => void;
  /** Frames skipped after a stall (their media time passed without them); default nothing. */
  onSkip?: (frames: number) => void;
}

/**
 * Calls `onFrame` once every `frameMs` on a fixed time grid. Each wake-up runs every frame that
 * has come due, then sleeps until the next one, so timer lateness never accumulates into drift
 * (a naive `setInterval` slips by its lateness every period). After a stall longer than
 * `maxCatchUpFrames` frames the missed frames beyond that are skipped rather than burst out.
 */
export class FramePacer {
  private nextFrameAt = 0;
  private cancel: CancelTimer | undefined;
  private framesRun = 0;
  private framesSkipped = 0;

  /** Creates a stopped pacer. */
  constructor(private readonly options: FramePacerOptions) {}

  /** Whether the pacer is running. */
  get running(): boolean {
    return this.cancel !== undefined;
  }

  /** Frames run and frames skipped after stalls, since creation. */
  get stats(): { framesRun: number; framesSkipped: number } {
    return { framesRun: this.framesRun, framesSkipped: this.framesSkipped };
  }

  /**
   * Starts the loop; the first frame runs one frame period from now, or with `phaseMs` at the
   * first grid time after now. Does nothing if running.
   */
  start(): void {
    if (this.running) return;
    const { clock, frameMs, phaseMs } = this.options;
    const now = clock.now();
    this.nextFrameAt =
      phaseMs === undefined
        ? now + frameMs
        : phaseMs + (Math.floor((now - phaseMs) / frameMs) + 1) * frameMs;
    this.schedule();
  }

  /** Stops the loop. Does nothing if stopped. */
  stop(): void {
    this.cancel?.();
    this.cancel = undefined;
  }

  private schedule(): void {
    const delayMs = Math.max(0, this.nextFrameAt - this.options.clock.now());
    this.cancel = this.options.scheduler.after(delayMs, () => this.wake());
  }

  private wake(): void {
    const { clock, frameMs, maxCatchUpFrames } = this.options;
    const now = clock.now();
    let due = now >= this.nextFrameAt ? Math.floor((now - this.nextFrameAt) / frameMs) + 1 : 0;
    if (due > maxCatchUpFrames) {
      const skipped = due - maxCatchUpFrames;
      this.framesSkipped += skipped;
      this.nextFrameAt += skipped * frameMs;
      due = maxCatchUpFrames;
      try {
        this.options.onSkip?.(skipped);
      } catch (error) {
        this.options.onError(error);
      }
    }
    for (let i = 0; i < due && this.running; i++) {
      const dueAt = this.nextFrameAt;
      this.nextFrameAt += frameMs;
      this.framesRun++;
      try {
        this.options.onFrame(clock.now() - dueAt);
      } catch (error) {
        this.options.onError(error);
      }
    }
    if (this.running) this.schedule();
  }
}
