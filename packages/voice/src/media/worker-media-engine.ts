import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import {
  DEFAULT_ANSWER_DELAY_MS,
  FRAME_DURATION_MS,
  MEDIA_THREAD_NICE,
  WORKER_SHUTDOWN_TIMEOUT_MS,
} from '../constants';
import { defaultAssetsDir } from '../pstn/clips';
import { ENGINE_TRANSITIONS, type EngineEvent, type EngineState } from './engine-state';
import { MediaError } from './media-errors';
import {
  defaultMediaWorkers,
  type DialOptions,
  type LegOptions,
  type MediaEngine,
  type MediaEngineLogger,
  type MediaEngineOptions,
  type MediaEvent,
  type ParticipantId,
  type ParticipantRole,
  type RoomId,
} from './media-engine';
import { defaultMediaWorkerUrl } from './media-worker-url';
import { nodeScheduler, type Scheduler } from './platform';
import { MediaStateMachine } from './state-machine';
import { MediaWorkerClient } from './worker-client';
import type { WorkerStats } from './worker-protocol';

/** What the main thread remembers of a participant: where it lives, to route commands and to end it on a crash. */
interface ParticipantRoute {
  roomId: RoomId;
  worker: MediaWorkerClient;
  kind: 'leg' | 'party';
  answered: boolean;
}

/** The default logger: the console. */
const consoleLogger: MediaEngineLogger = {
  warn: (message) => console.warn(`[media] ${message}`),
  error: (message) => console.error(`[media] ${message}`),
};

/**
 * The media engine of the server: relays `MediaEngine` commands to a media worker thread (where
 * all media runs) and its events back to subscribers.
 *
 * If the worker dies, every request under way and every later one rejects (`WorkerCrashed`,
 * `EngineNotRunning`), each participant it carried gets its ending event (`leg.failed`;
 * `party.hangup` or `party.unanswered` for virtual parties), and the logger gets an error.
 */
export class WorkerMediaEngine implements MediaEngine {
  private readonly lifecycle = new MediaStateMachine<EngineState, EngineEvent>(
    'media engine',
    ENGINE_TRANSITIONS,
    'idle',
  );
  private readonly listeners = new Set<(event: MediaEvent) => void>();
  private readonly workers: MediaWorkerClient[] = [];
  /** Whether the workers were asked to keep offers ready (`prepareOffers`). */
  private offersPrepared = false;
  private readonly roomWorkers = new Map<RoomId, MediaWorkerClient>();
  private readonly routes = new Map<ParticipantId, ParticipantRoute>();
  private readonly logger: MediaEngineLogger;
  private readonly scheduler: Scheduler;
  private starting: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  /** Creates a stopped engine; `start` starts its worker. */
  constructor(
    private readonly options: MediaEngineOptions,
    scheduler: Scheduler = nodeScheduler,
  ) {
    this.logger = options.logger ?? consoleLogger;
    this.scheduler = scheduler;
  }

  /** The engine's lifecycle state. */
  get state(): EngineState {
    return this.lifecycle.state;
  }

  async start(): Promise<void> {
    this.lifecycle.send('start');
    this.starting = this.startWorkers();
    await this.starting;
  }

  close(): Promise<void> {
    this.closing ??= this.closeWorkers();
    return this.closing;
  }

  async createOfferLeg(
    roomId: RoomId,
    participantId: ParticipantId,
    options: LegOptions = {},
  ): Promise<string> {
    const route = this.addRoute(roomId, participantId, 'leg');
    this.prepareOffers();
    try {
      return await route.worker.request({
        kind: 'createOfferLeg',
        roomId,
        participantId,
        ...(options.role ? { role: options.role } : {}),
      });
    } catch (error) {
      this.dropRoute(participantId, route);
      throw error;
    }
  }

  async acceptAnswer(participantId: ParticipantId, answerSdp: string): Promise<void> {
    this.assertRunning();
    const route = this.routes.get(participantId);
    if (!route) return;
    try {
      await route.worker.request({ kind: 'acceptAnswer', participantId, sdp: answerSdp });
    } catch (error) {
      // A failed negotiation took the leg out of its room; a refused one (wrong state) did not.
      if (!(error instanceof MediaError && error.name === 'IllegalTransition'))
        this.dropRoute(participantId, route);
      throw error;
    }
  }

  async createAnswerLeg(
    roomId: RoomId,
    participantId: ParticipantId,
    offerSdp: string,
    options: LegOptions = {},
  ): Promise<string> {
    const route = this.addRoute(roomId, participantId, 'leg');
    try {
      return await route.worker.request({
        kind: 'createAnswerLeg',
        roomId,
        participantId,
        sdp: offerSdp,
        ...(options.role ? { role: options.role } : {}),
      });
    } catch (error) {
      this.dropRoute(participantId, route);
      throw error;
    }
  }

  async renegotiate(participantId: ParticipantId, offerSdp: string): Promise<string> {
    this.assertRunning();
    const route = this.routes.get(participantId);
    if (!route) return '';
    return route.worker.request({ kind: 'renegotiate', participantId, sdp: offerSdp });
  }

  /**
   * At the first offer asked of any worker, every worker starts keeping offers ready
   * (`MediaCore.prepareOffers`): rooms are spread over the workers, so a worker's first ring
   * may come long after the first ring of the engine.
   */
  private prepareOffers(): void {
    if (this.offersPrepared) return;
    this.offersPrepared = true;
    for (const worker of this.workers) worker.notify({ kind: 'prepareOffers' });
  }

  addCaller(roomId: RoomId, participantId: ParticipantId, from: string, to: string): void {
    if (this.lifecycle.state !== 'running') return;
    if (this.routes.has(participantId)) {
      this.logger.warn(
        `caller ${from}: ${new MediaError('ParticipantExists', participantId).message}`,
      );
      return;
    }
    const route = this.addRoute(roomId, participantId, 'party');
    route.worker.notify({ kind: 'addCaller', roomId, participantId, from, to });
  }

  setRole(participantId: ParticipantId, role: ParticipantRole): void {
    this.routes.get(participantId)?.worker.notify({ kind: 'setRole', participantId, role });
  }

  setHold(roomId: RoomId, held: boolean): void {
    this.roomWorkers.get(roomId)?.notify({ kind: 'setHold', roomId, held });
  }

  sendDigits(roomId: RoomId, digits: string): void {
    this.roomWorkers.get(roomId)?.notify({ kind: 'sendDigits', roomId, digits });
  }

  interruptMedia(participantId: ParticipantId, durationMs: number): void {
    this.routes
      .get(participantId)
      ?.worker.notify({ kind: 'interruptMedia', participantId, durationMs });
  }

  /**
   * What each worker reports about its mixer loop (frame start lateness since the previous call,
   * rooms, participants); for the bench and diagnostics.
   */
  async stats(): Promise<WorkerStats[]> {
    this.assertRunning();
    return Promise.all(this.workers.map((worker) => worker.request({ kind: 'stats' })));
  }

  dial(
    roomId: RoomId,
    participantId: ParticipantId,
    number: string,
    options: DialOptions = {},
  ): void {
    if (this.lifecycle.state !== 'running') return;
    if (this.routes.has(participantId)) {
      this.logger.warn(
        `dial ${number}: ${new MediaError('ParticipantExists', participantId).message}`,
      );
      return;
    }
    const route = this.addRoute(roomId, participantId, 'party');
    route.worker.notify({
      kind: 'dial',
      roomId,
      participantId,
      number,
      ...(options.from === undefined ? {} : { from: options.from }),
    });
  }

  partyHangsUp(participantId: ParticipantId): void {
    this.routes.get(participantId)?.worker.notify({ kind: 'partyHangsUp', participantId });
  }

  remove(participantId: ParticipantId): void {
    const route = this.routes.get(participantId);
    if (!route) return;
    this.routes.delete(participantId);
    route.worker.notify({ kind: 'remove', participantId });
  }

  closeRoom(roomId: RoomId): void {
    const worker = this.roomWorkers.get(roomId);
    if (!worker) return;
    this.roomWorkers.delete(roomId);
    for (const [participantId, route] of this.routes)
      if (route.roomId === roomId) this.routes.delete(participantId);
    worker.notify({ kind: 'closeRoom', roomId });
  }

  setMuted(participantId: ParticipantId, muted: boolean): void {
    this.routes.get(participantId)?.worker.notify({ kind: 'setMuted', participantId, muted });
  }

  subscribe(listener: (event: MediaEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  private async startWorkers(): Promise<void> {
    const entry = this.options.workerUrl ?? defaultMediaWorkerUrl();
    const workerCount = Math.max(
      1,
      Math.floor(this.options.workers ?? defaultMediaWorkers(availableParallelism())),
    );
    const { sandboxDir } = this.options;
    const threadNice =
      this.options.threadNice === undefined ? MEDIA_THREAD_NICE : this.options.threadNice;
    for (let shard = 0; shard < workerCount; shard++) {
      const worker: MediaWorkerClient = new MediaWorkerClient({
        entry,
        init: {
          shard,
          // The workers' ticks are spread evenly over the frame: on a shared core they take
          // turns instead of queueing behind each other (docs/benchmarks.md).
          frameOffsetMs: (shard * FRAME_DURATION_MS) / workerCount,
          ...(threadNice === null ? {} : { threadNice }),
          iceAddresses: [...this.options.iceAddresses],
          sandboxDir,
          recordingsDir: this.options.recordingsDir ?? join(dirname(sandboxDir), 'recordings'),
          assetsDir: this.options.assetsDir ?? defaultAssetsDir(),
          answerDelayMs: this.options.answerDelayMs ?? DEFAULT_ANSWER_DELAY_MS,
        },
        scheduler: this.scheduler,
        shutdownTimeoutMs: WORKER_SHUTDOWN_TIMEOUT_MS,
        observer: {
          event: (event) => this.onWorkerEvent(event),
          warning: (message) => this.logger.warn(message),
          crashed: (error) => this.onWorkerCrash(worker, error),
        },
      });
      this.workers.push(worker);
    }
    try {
      await Promise.all(this.workers.map((worker) => worker.start()));
    } catch (error) {
      this.lifecycle.send('fail');
      await Promise.allSettled(this.workers.map((worker) => worker.stop()));
      throw error;
    }
    // A worker may have died between its start and the others'.
    if (!this.lifecycle.trySend('started'))
      throw new MediaError('WorkerStartFailed', 'a media worker stopped while starting');
  }

  private async closeWorkers(): Promise<void> {
    if (this.starting) await this.starting.catch(() => undefined);
    if (this.lifecycle.state === 'running') this.lifecycle.send('close');
    await Promise.allSettled(this.workers.map((worker) => worker.stop()));
    this.routes.clear();
    this.roomWorkers.clear();
    this.lifecycle.trySend(this.lifecycle.state === 'closing' ? 'closed' : 'close');
  }

  private assertRunning(): void {
    if (this.lifecycle.state !== 'running') {
      throw new MediaError('EngineNotRunning', `the media engine is ${this.lifecycle.state}`);
    }
  }

  private addRoute(
    roomId: RoomId,
    participantId: ParticipantId,
    kind: ParticipantRoute['kind'],
  ): ParticipantRoute {
    this.assertRunning();
    if (this.routes.has(participantId)) throw new MediaError('ParticipantExists', participantId);
    const route: ParticipantRoute = {
      roomId,
      worker: this.workerForRoom(roomId),
      kind,
      answered: false,
    };
    this.routes.set(participantId, route);
    return route;
  }

  private dropRoute(participantId: ParticipantId, route: ParticipantRoute): void {
    if (this.routes.get(participantId) === route) this.routes.delete(participantId);
  }

  private workerForRoom(roomId: RoomId): MediaWorkerClient {
    let worker = this.roomWorkers.get(roomId);
    if (!worker) {
      const load = (candidate: MediaWorkerClient): number =>
        [...this.roomWorkers.values()].filter((assigned) => assigned === candidate).length;
      worker = this.workers.reduce((best, candidate) =>
        load(candidate) < load(best) ? candidate : best,
      );
      this.roomWorkers.set(roomId, worker);
    }
    return worker;
  }

  private onWorkerEvent(event: MediaEvent): void {
    switch (event.type) {
      case 'party.answered': {
        const route = this.routes.get(event.participantId);
        if (route) route.answered = true;
        break;
      }
      case 'leg.failed':
      case 'party.unanswered':
      case 'party.hangup':
        this.routes.delete(event.participantId);
        break;
      default:
        break;
    }
    this.emit(event);
  }

  private onWorkerCrash(worker: MediaWorkerClient, error: MediaError): void {
    this.logger.error(error.toString());
    this.lifecycle.trySend('fail');
    const reason = error.message;
    for (const [participantId, route] of [...this.routes]) {
      if (route.worker !== worker) continue;
      this.routes.delete(participantId);
      const { roomId } = route;
      if (route.kind === 'leg') this.emit({ type: 'leg.failed', participantId, roomId, reason });
      else if (route.answered) this.emit({ type: 'party.hangup', participantId, roomId });
      else this.emit({ type: 'party.unanswered', participantId, roomId, reason: 'failed' });
    }
    for (const [roomId, assigned] of [...this.roomWorkers])
      if (assigned === worker) this.roomWorkers.delete(roomId);
  }

  private emit(event: MediaEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch (error) {
        this.logger.error(`a media event listener failed on ${event.type}: ${String(error)}`);
      }
    }
  }
}
