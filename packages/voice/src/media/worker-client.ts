import type { Worker } from 'node:worker_threads';
import { MediaError } from './media-errors';
import type { MediaEvent } from './media-engine';
import { spawnMediaWorker } from './media-worker-url';
import type { Scheduler } from './platform';
import { MediaStateMachine, type TransitionTable } from './state-machine';
import type {
  CommandKind,
  CommandOf,
  CommandResults,
  EngineCommand,
  HostMessage,
  WorkerInit,
  WorkerMessage,
  WorkerStats,
} from './worker-protocol';

/** What a worker connection reports to its owner. */
export interface WorkerClientObserver {
  /** An engine event from the worker. */
  event(event: MediaEvent): void;
  /** A problem in the worker that ended no call. */
  warning(message: string): void;
  /** The worker stopped while running; every request under way has been rejected with `error`. */
  crashed(error: MediaError): void;
}

/** Options of a {@link MediaWorkerClient}. */
export interface MediaWorkerClientOptions {
  /** Entry module of the worker. */
  entry: URL;
  /** `workerData` of the worker. */
  init: WorkerInit;
  observer: WorkerClientObserver;
  scheduler: Scheduler;
  /** How long `stop` waits for the worker to end its rooms before terminating it. */
  shutdownTimeoutMs: number;
}

type WorkerEvent = 'spawn' | 'ready' | 'stop' | 'exit';

/**
 * Lifecycle of one worker thread.
 *
 * ```text
 *   idle ──spawn──▶ starting ──ready──▶ running ──stop──▶ stopping ──exit──▶ exited
 *                      └───────exit────────┴──────exit───────────────────────▲
 * ```
 * An exit while starting is a failed start, while running a crash, while stopping the end.
 */
const WORKER_TRANSITIONS = {
  idle: { spawn: 'starting' },
  starting: { ready: 'running', exit: 'exited' },
  running: { stop: 'stopping', exit: 'exited' },
  stopping: { exit: 'exited' },
  exited: {},
} as const satisfies TransitionTable<string, WorkerEvent>;

type WorkerState = keyof typeof WORKER_TRANSITIONS;

type ResultCheck<K extends CommandKind> = (
  value: CommandResults[CommandKind],
) => value is CommandResults[K];

const isString = (value: CommandResults[CommandKind]): value is string => typeof value === 'string';
const isNothing = (value: CommandResults[CommandKind]): value is undefined => value === undefined;
const isStats = (value: CommandResults[CommandKind]): value is WorkerStats =>
  typeof value === 'object' && value !== null && 'framesRun' in value;

/** How to recognise the result of each command. */
const RESULT_CHECKS: { [K in CommandKind]: ResultCheck<K> } = {
  createOfferLeg: isString,
  acceptAnswer: isNothing,
  createAnswerLeg: isString,
  renegotiate: isString,
  dial: isNothing,
  addCaller: isNothing,
  remove: isNothing,
  closeRoom: isNothing,
  setMuted: isNothing,
  setRole: isNothing,
  setHold: isNothing,
  sendDigits: isNothing,
  interruptMedia: isNothing,
  partyHangsUp: isNothing,
  prepareOffers: isNothing,
  stats: isStats,
  shutdown: isNothing,
};

interface PendingRequest {
  settle(value: CommandResults[CommandKind]): void;
  reject(error: MediaError): void;
}

/**
 * One media worker thread seen from the main thread: starts it, sends it commands, matches
 * replies to requests by id, relays its events, and turns its death into rejected requests and a
 * `crashed` report, so no caller is left waiting.
 */
export class MediaWorkerClient {
  private readonly lifecycle = new MediaStateMachine<WorkerState, WorkerEvent>(
    'media worker',
    WORKER_TRANSITIONS,
    'idle',
  );
  private readonly pending = new Map<number, PendingRequest>();
  private worker: Worker | undefined;
  private nextRequestId = 1;
  private lastError: unknown;
  private startOutcome: { resolve(): void; reject(error: MediaError): void } | undefined;
  private readonly exited: Promise<void>;
  private markExited: () => void = () => undefined;

  /** Creates the connection; the thread starts with `start`. */
  constructor(private readonly options: MediaWorkerClientOptions) {
    this.exited = new Promise((resolve) => {
      this.markExited = resolve;
    });
  }

  /** Starts the worker; resolves when it is ready for commands, rejects with `WorkerStartFailed`. */
  start(): Promise<void> {
    this.lifecycle.send('spawn');
    return new Promise<void>((resolve, reject) => {
      this.startOutcome = { resolve, reject };
      let worker: Worker;
      try {
        worker = spawnMediaWorker(this.options.entry, { workerData: this.options.init });
      } catch (error) {
        this.lifecycle.send('exit');
        this.markExited();
        reject(MediaError.wrap('WorkerStartFailed', error));
        return;
      }
      this.worker = worker;
      worker.on('message', (message: WorkerMessage) => this.onMessage(message));
      worker.on('error', (error) => {
        this.lastError = error;
      });
      worker.on('messageerror', (error) =>
        this.options.observer.warning(`media worker message lost: ${error.message}`),
      );
      worker.on('exit', (code) => this.onExit(code));
    });
  }

  /** Sends a command and resolves with its result; rejects with the worker's error or its crash. */
  request<K extends CommandKind>(command: CommandOf<K> & { kind: K }): Promise<CommandResults[K]> {
    if (this.lifecycle.state !== 'running') {
      return Promise.reject(
        new MediaError('EngineNotRunning', `the media worker is ${this.lifecycle.state}`),
      );
    }
    return this.send(command, RESULT_CHECKS[command.kind]);
  }

  /** Sends a command without waiting for it; problems come back as warnings. Ignored unless running. */
  notify(command: EngineCommand): void {
    if (this.lifecycle.state !== 'running') return;
    this.post({ type: 'notify', command });
  }

  /**
   * Asks the worker to end its rooms (virtual parties write their recordings), waits for that up
   * to `shutdownTimeoutMs`, then terminates the thread. Resolves once the thread has exited.
   */
  async stop(): Promise<void> {
    if (this.lifecycle.state === 'running') {
      this.lifecycle.send('stop');
      const shutdown = this.send({ kind: 'shutdown' }, RESULT_CHECKS.shutdown);
      await new Promise<void>((resolve) => {
        const cancel = this.options.scheduler.after(this.options.shutdownTimeoutMs, () => {
          this.options.observer.warning(
            'the media worker did not shut down in time; terminating it',
          );
          resolve();
        });
        shutdown
          .catch((error: unknown) =>
            this.options.observer.warning(`media worker shutdown failed: ${String(error)}`),
          )
          .finally(() => {
            cancel();
            resolve();
          });
      });
    }
    if (this.worker && this.lifecycle.state !== 'exited') await this.worker.terminate();
    if (this.lifecycle.state !== 'idle') await this.exited;
  }

  private send<K extends CommandKind>(
    command: EngineCommand,
    check: ResultCheck<K>,
  ): Promise<CommandResults[K]> {
    return new Promise<CommandResults[K]>((resolve, reject) => {
      const requestId = this.nextRequestId++;
      this.pending.set(requestId, {
        settle: (value) => {
          if (check(value)) resolve(value);
          else reject(new MediaError('ProtocolViolation', `unexpected result of ${command.kind}`));
        },
        reject,
      });
      this.post({ type: 'request', requestId, command });
    });
  }

  private post(message: HostMessage): void {
    this.worker?.postMessage(message);
  }

  private onMessage(message: WorkerMessage): void {
    switch (message.type) {
      case 'ready':
        this.lifecycle.send('ready');
        this.startOutcome?.resolve();
        return;
      case 'start-failed':
        this.lastError = MediaError.deserialize(message.error);
        void this.worker?.terminate();
        return;
      case 'result':
        this.takePending(message.requestId)?.settle(message.value);
        return;
      case 'failure':
        this.takePending(message.requestId)?.reject(MediaError.deserialize(message.error));
        return;
      case 'event':
        this.options.observer.event(message.event);
        return;
      case 'warning':
        this.options.observer.warning(message.message);
        return;
    }
  }

  private takePending(requestId: number): PendingRequest | undefined {
    const pending = this.pending.get(requestId);
    this.pending.delete(requestId);
    if (!pending)
      this.options.observer.warning(`media worker replied to unknown request ${requestId}`);
    return pending;
  }

  private onExit(code: number): void {
    const before = this.lifecycle.state;
    this.lifecycle.send('exit');
    const cause = this.lastError;
    const detail = cause instanceof Error ? cause.message : `exit code ${code}`;
    const error =
      cause instanceof MediaError && before === 'starting'
        ? cause
        : new MediaError(before === 'starting' ? 'WorkerStartFailed' : 'WorkerCrashed', detail, {
            cause,
          });
    for (const pending of this.pending.values()) pending.reject(error);
    this.pending.clear();
    if (before === 'starting') this.startOutcome?.reject(error);
    if (before === 'running') this.options.observer.crashed(error);
    this.markExited();
  }
}
