/**
 * Entry module of the media worker thread: runs a `MediaCore` and connects it to the main thread
 * through the protocol of `worker-protocol.ts`. All media (WebRTC, the mixer loop, virtual
 * parties, WAV writing) lives here, away from HTTP and database work.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { z } from 'zod';
import { MediaCore } from './media-core';
import { MediaError } from './media-errors';
import type {
  CommandResults,
  EngineCommand,
  HostMessage,
  WorkerInit,
  WorkerMessage,
} from './worker-protocol';

/** `workerData` arrives untyped; it is checked once here. */
const workerInitSchema = z.object({
  shard: z.number().int().nonnegative(),
  iceAddresses: z.array(z.string()),
  sandboxDir: z.string().min(1),
  answerDelayMs: z.number().nonnegative(),
}) satisfies z.ZodType<WorkerInit>;

function post(port: MessagePort, message: WorkerMessage): void {
  port.postMessage(message);
}

async function execute(
  core: MediaCore,
  command: EngineCommand,
): Promise<CommandResults[EngineCommand['kind']]> {
  switch (command.kind) {
    case 'createOfferLeg':
      return core.createOfferLeg(command.roomId, command.participantId);
    case 'acceptAnswer':
      await core.acceptAnswer(command.participantId, command.sdp);
      return undefined;
    case 'createAnswerLeg':
      return core.createAnswerLeg(command.roomId, command.participantId, command.sdp);
    case 'dial':
      core.dial(command.roomId, command.participantId, command.number);
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
    case 'shutdown':
      await core.shutdown();
      return undefined;
  }
}

async function main(port: MessagePort, init: WorkerInit): Promise<void> {
  const core = new MediaCore({
    iceAddresses: init.iceAddresses,
    sandboxDir: init.sandboxDir,
    answerDelayMs: init.answerDelayMs,
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
    const outcome = execute(core, message.command);
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
