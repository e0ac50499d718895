/**
 * Entry module of the media worker thread: runs a `MediaCore` and connects it to the main thread
 * through the protocol of `worker-protocol.ts`. All media (WebRTC, the mixer loop, virtual
 * parties, WAV writing) lives here, away from HTTP and database work.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { z } from 'zod';
import { MediaCore } from './media-core';
import { MediaError } from './media-errors';
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
  iceAddresses: z.array(z.string()),
  sandboxDir: z.string().min(1),
  recordingsDir: z.string().min(1),
  assetsDir: z.string().min(1),
  answerDelayMs: z.number().nonnegative(),
}) satisfies z.ZodType<WorkerInit>;

function post(port: MessagePort, message: WorkerMessage): void {
  port.postMessage(message);
}

/** Frame start lateness since the last `stats` request, for the bench. */
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

async function execute(
  core: MediaCore,
  command: EngineCommand,
  shard: number,
  lateness: LatenessLog,
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
      core.dial(command.roomId, command.participantId, command.number);
      return undefined;
    case 'addCaller':
      core.addCaller(command.roomId, command.participantId, command.from, command.to);
      return undefined;
    case 'remove':
      core.remove(command.participantId);
      return undefined;
    case 'closeRoom':
      core.closeRoom(command.roomId);
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
      return { shard, ...core.size, ...core.loopStats, frameLateness: lateness.take() };
    case 'shutdown':
      await core.shutdown();
      return undefined;
  }
}

function roleOption(role: ParticipantRole | undefined): LegOptions {
  return role ? { role } : {};
}

async function main(port: MessagePort, init: WorkerInit): Promise<void> {
  const lateness = new LatenessLog();
  const core = new MediaCore({
    iceAddresses: init.iceAddresses,
    sandboxDir: init.sandboxDir,
    recordingsDir: init.recordingsDir,
    assetsDir: init.assetsDir,
    answerDelayMs: init.answerDelayMs,
    onFrameMixed: (latenessMs) => lateness.add(latenessMs),
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
    const outcome = execute(core, message.command, init.shard, lateness);
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
