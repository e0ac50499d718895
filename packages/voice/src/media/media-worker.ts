/**
 * Entry module of the media worker thread: runs a `MediaCore` and connects it to the main thread
 * through the protocol of `worker-protocol.ts`. All media (WebRTC, the mixer loop, virtual
 * parties, WAV writing) lives here, away from HTTP and database work.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { z } from 'zod';
import { FRAME_DURATION_MS } from '../constants';
import { MediaCore } from './media-core';
import { MediaError } from './media-errors';
import { setCurrentThreadNice } from './thread-priority';
import type { LegOptions, ParticipantRole } from './media-engine';
import type {
  CommandResults,
  EngineCommand,
  HostMessage,
  WorkerInit,
  WorkerMessage,
  WorkerStats,
} from './worker-protocol';

/** `workerData` arrives untyped; it is checked once here. */
const workerInitSchema = z.object({
  shard: z.number().int().nonnegative(),
  frameOffsetMs: z.number().nonnegative(),
  threadNice: z.number().int().min(-20).max(19).optional(),
  iceAddresses: z.array(z.string()),
  sandboxDir: z.string().min(1),
  recordingsDir: z.string().min(1),
  assetsDir: z.string().min(1),
  answerDelayMs: z.number().nonnegative(),
}) satisfies z.ZodType<WorkerInit>;

function post(port: MessagePort, message: WorkerMessage): void {
  port.postMessage(message);
}

/** Lateness samples (ms) since the last `stats` request, for the bench. */
class LatenessLog {
  private samples: number[] = [];

  add(latenessMs: number): void {
    // Bounded: a minute of frames between two reads is plenty.
    if (this.samples.length < 3000) this.samples.push(latenessMs);
  }

  take(): WorkerStats['frameLateness'] {
    const sorted = this.samples.sort((a, b) => a - b);
    this.samples = [];
    const at = (q: number): number =>
      sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1) ?? 0 };
  }
}

/** The worker's garbage collection pauses since the last `stats` request, for the bench. */
class GcLog {
  private count = 0;
  private totalMs = 0;
  private maxMs = 0;

  /** Starts observing this thread's GC. */
  constructor() {
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        this.count++;
        this.totalMs += entry.duration;
        this.maxMs = Math.max(this.maxMs, entry.duration);
      }
    }).observe({ entryTypes: ['gc'] });
  }

  take(): WorkerStats['gc'] {
    const taken = { count: this.count, totalMs: this.totalMs, maxMs: this.maxMs };
    this.count = 0;
    this.totalMs = 0;
    this.maxMs = 0;
    return taken;
  }
}

/** What the worker measures of its own loop (bench instrumentation). */
interface LoopLogs {
  start: LatenessLog;
  end: LatenessLog;
  gc: GcLog;
}

async function execute(
  core: MediaCore,
  command: EngineCommand,
  shard: number,
  logs: LoopLogs,
): Promise<CommandResults[EngineCommand['kind']]> {
  switch (command.kind) {
    case 'createOfferLeg':
      return core.createOfferLeg(command.roomId, command.participantId, roleOption(command.role));
    case 'acceptAnswer':
      await core.acceptAnswer(command.participantId, command.sdp);
      return undefined;
    case 'createAnswerLeg':
      return core.createAnswerLeg(
        command.roomId,
        command.participantId,
        command.sdp,
        roleOption(command.role),
      );
    case 'renegotiate':
      return core.renegotiate(command.participantId, command.sdp);
    case 'dial':
      core.dial(
        command.roomId,
        command.participantId,
        command.number,
        command.from === undefined ? {} : { from: command.from },
      );
      return undefined;
    case 'addCaller':
      core.addCaller(command.roomId, command.participantId, command.from, command.to);
      return undefined;
    case 'remove':
      core.remove(command.participantId);
      return undefined;
    case 'partyHangsUp':
      core.partyHangsUp(command.participantId);
      return undefined;
    case 'closeRoom':
      core.closeRoom(command.roomId);
      return undefined;
    case 'prepareOffers':
      core.prepareOffers();
      return undefined;
    case 'setMuted':
      core.setMuted(command.participantId, command.muted);
      return undefined;
    case 'setRole':
      core.setRole(command.participantId, command.role);
      return undefined;
    case 'setHold':
      core.setHold(command.roomId, command.held);
      return undefined;
    case 'sendDigits':
      core.sendDigits(command.roomId, command.digits);
      return undefined;
    case 'interruptMedia':
      core.interruptMedia(command.participantId, command.durationMs);
      return undefined;
    case 'stats':
      return {
        shard,
        ...core.size,
        ...core.loopStats,
        readyOffers: core.readyOfferCount,
        frameLateness: logs.start.take(),
        frameEndLateness: logs.end.take(),
        gc: logs.gc.take(),
      };
    case 'shutdown':
      await core.shutdown();
      return undefined;
  }
}

function roleOption(role: ParticipantRole | undefined): LegOptions {
  return role ? { role } : {};
}

/**
 * The worker's frame grid on its own `performance.now()` clock: `frameOffsetMs` after the shared
 * grid of whole frames since the Unix epoch. Each thread has its own time origin, so the grid is
 * placed through `performance.timeOrigin` (the same wall clock in every thread).
 */
function framePhaseMs(frameOffsetMs: number): number {
  const phase = (frameOffsetMs - performance.timeOrigin) % FRAME_DURATION_MS;
  return phase < 0 ? phase + FRAME_DURATION_MS : phase;
}

async function main(port: MessagePort, init: WorkerInit): Promise<void> {
  if (init.threadNice !== undefined) {
    const problem = setCurrentThreadNice(init.threadNice);
    if (problem) post(port, { type: 'warning', message: `media worker ${init.shard}: ${problem}` });
  }
  const logs: LoopLogs = { start: new LatenessLog(), end: new LatenessLog(), gc: new GcLog() };
  const core = new MediaCore({
    iceAddresses: init.iceAddresses,
    sandboxDir: init.sandboxDir,
    recordingsDir: init.recordingsDir,
    assetsDir: init.assetsDir,
    answerDelayMs: init.answerDelayMs,
    framePhaseMs: framePhaseMs(init.frameOffsetMs),
    onFrameMixed: (latenessMs, endLatenessMs) => {
      logs.start.add(latenessMs);
      logs.end.add(endLatenessMs);
    },
    emit: (event) => post(port, { type: 'event', event }),
    warn: (message) =>
      post(port, { type: 'warning', message: `media worker ${init.shard}: ${message}` }),
  });
  // werift occasionally rejects promises nobody awaits (late packets on closing sockets); one
  // such rejection must not take every call of the worker down with it.
  process.on('unhandledRejection', (reason) =>
    post(port, {
      type: 'warning',
      message: `media worker ${init.shard}: unhandled rejection: ${String(reason)}`,
    }),
  );
  port.on('message', (message: HostMessage) => {
    const outcome = execute(core, message.command, init.shard, logs);
    if (message.type === 'request') {
      outcome.then(
        (value) => post(port, { type: 'result', requestId: message.requestId, value }),
        (error: unknown) =>
          post(port, {
            type: 'failure',
            requestId: message.requestId,
            error: MediaError.wrap('InternalError', error).serialize(),
          }),
      );
    } else {
      outcome.catch((error: unknown) =>
        post(port, {
          type: 'warning',
          message: `media worker ${init.shard}: ${message.command.kind}: ${String(error)}`,
        }),
      );
    }
  });
  try {
    await core.start();
  } catch (error) {
    post(port, {
      type: 'start-failed',
      error: MediaError.wrap('WorkerStartFailed', error).serialize(),
    });
    return;
  }
  post(port, { type: 'ready' });
}

if (!parentPort)
  throw new Error('media-worker.ts is the entry of a worker thread, not a module to import');
await main(parentPort, workerInitSchema.parse(workerData));
