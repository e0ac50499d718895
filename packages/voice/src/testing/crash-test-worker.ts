/**
 * Test fixture: the real media worker, made to crash (an uncaught exception) when it is asked to
 * create an offer leg in the room `crash-room`, so tests can check how a dying worker surfaces.
 */
import { parentPort } from 'node:worker_threads';
import type { HostMessage } from '../media/worker-protocol';

/** The room whose first offer leg kills the worker. */
export const CRASH_ROOM = 'crash-room';

parentPort?.on('message', (message: HostMessage) => {
  if (message.command.kind === 'createOfferLeg' && message.command.roomId === CRASH_ROOM) {
    throw new Error('simulated media worker crash');
  }
});
await import('../media/media-worker');
