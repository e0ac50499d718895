/**
 * The cluster's sweep of what a dead instance left half done with Twilio: a party's move it took
 * from a callback but never handed to its flows, and a removal it marked but never sent (each
 * leased in {@link TwilioLegs}; see `claimAbandoned`, `claimUnsentRemovals`). Every instance
 * sweeps every {@link ABANDONED_SWEEP_MS}; a lease passed is taken by one of them only.
 */
import type { TwilioCallQueues } from './twilio-call-queues';
import type { TwilioCallbacks } from './twilio-callbacks';
import type { TwilioCommands } from './twilio-commands';
import type { TwilioLegs } from './twilio-legs';

/** How often each instance looks for moves a dead instance left unreacted (ms). */
export const ABANDONED_SWEEP_MS = 2_000;
/** How many such moves one sweep takes. */
const ABANDONED_BATCH = 20;

/** What the sweeper needs. */
export interface AbandonedMoveSweeperOptions {
  legs: TwilioLegs;
  queues: TwilioCallQueues;
  /** Who hands a move on to this instance's flows. */
  callbacks: TwilioCallbacks;
  /** Who sends a removal to Twilio. */
  commands: TwilioCommands;
  log: { warn(details: object, message: string): void };
  now: () => number;
}

/** See the module comment. */
export class AbandonedMoveSweeper {
  readonly #options: AbandonedMoveSweeperOptions;
  #sweeper: NodeJS.Timeout | undefined;

  constructor(options: AbandonedMoveSweeperOptions) {
    this.#options = options;
  }

  /**
   * Takes over what another instance left half done when it died, a few at a time: hands this
   * instance's flows the moves it left unreacted, and sends Twilio the removals it left unsent
   * (each lease passed). Resolves with how many.
   */
  async sweep(limit = ABANDONED_BATCH): Promise<number> {
    const { legs, queues, callbacks, commands, log } = this.#options;
    // Nobody to tell yet: a move told to nobody would be marked done and lost.
    if (!callbacks.listening) return 0;
    const parties = await legs.claimAbandoned(this.#date(), limit);
    for (const party of parties) {
      await callbacks
        .react(party)
        .catch((error: unknown) =>
          log.warn({ err: error, callSid: party.callSid }, 'Twilio move not handed on'),
        );
    }
    const removals = await legs.claimUnsentRemovals(this.#date(), limit);
    for (const party of removals) {
      await queues.run(party.callSid, () => commands.remove(party.callSid, party.label));
    }
    return parties.length + removals.length;
  }

  /** Sweeps every `everyMs` until {@link stop}. */
  start(everyMs = ABANDONED_SWEEP_MS): void {
    if (this.#sweeper) return;
    let running = false;
    this.#sweeper = setInterval(() => {
      if (running) return;
      running = true;
      void this.sweep()
        .catch((error: unknown) =>
          this.#options.log.warn({ err: error }, 'sweeping abandoned Twilio moves failed'),
        )
        .finally(() => (running = false));
    }, everyMs);
    this.#sweeper.unref?.();
  }

  stop(): void {
    if (this.#sweeper) clearInterval(this.#sweeper);
    this.#sweeper = undefined;
  }

  #date(): Date {
    return new Date(this.#options.now());
  }
}
