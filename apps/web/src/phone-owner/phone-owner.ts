/**
 * One tab owns the phone: of the console tabs an agent has open in one browser, only one runs
 * the softphone (registers, rings, takes the microphone). The tabs elect it with the Web Lock
 * `leadline-phone-<userId>`, which the owning tab holds for as long as it owns the phone; every
 * other tab waits in the lock's queue, so when the owner's tab closes the browser hands the lock
 * (and with it the phone) to the next tab at once. The owner publishes its phone's status and
 * what the agent is doing on the `BroadcastChannel` of the same name, and the other tabs show it;
 * any of them can take the phone with one click (the lock's `steal`: the old owner sees its lock
 * taken, stops its phone and becomes a follower). Where the browser has no Web Locks the tab
 * simply owns the phone.
 *
 * The lifecycle is the table of `phone-owner-lifecycle.ts`; each lock request is tagged with an
 * attempt id, and the answers to a request this tab has since withdrawn or superseded are
 * dropped (a lock granted to one is handed on at once). The browser APIs come in through
 * {@link BrowserTabs}; the console screen starts the softphone while {@link PhoneOwner} says
 * `owner` and stops it otherwise.
 */
import { StateMachine } from '@leadline/contracts/lib';
import { PHONE_OWNER_CHANNEL_PREFIX, PHONE_OWNER_LOCK_PREFIX } from '../constants';
import { errorMessage } from '../errors';
import type { Clock, Logger } from '../platform/platform';
import type { BrowserTabs, TabChannel, TabLockOptions } from '../platform/tabs';
import {
  ELSEWHERE_STATES,
  PHONE_OWNER_TRANSITIONS,
  PhoneOwnerTransitionError,
  type PhoneOwnerEvent,
  type PhoneOwnerState,
} from './phone-owner-lifecycle';
import {
  parsePhoneOwnerMessage,
  type OwnerReport,
  type PhoneOwnerMessage,
} from './phone-owner-messages';

/** The collaborators of a {@link PhoneOwner}. */
export interface PhoneOwnerOptions {
  /** The locks and channels shared with the browser's other tabs. */
  readonly tabs: BrowserTabs;
  /** When this tab got the phone (a report's `term`). */
  readonly clock: Clock;
  /** Where unexpected lock and channel failures are logged. */
  readonly log: Logger;
}

/** What the console shows about the phone's owner (one object per change). */
export interface PhoneOwnerSnapshot {
  readonly state: PhoneOwnerState;
  /**
   * While another tab owns the phone (`follower`, `takingOver`): what it last published, or null
   * before it has. Null in the other states.
   */
  readonly owner: OwnerReport | null;
}

/** How a lock request asks: only if free (the first election), in the queue, or by stealing. */
type LockAsk = 'ifFree' | 'wait' | 'steal';

const LOCK_OPTIONS: Readonly<Record<Exclude<LockAsk, 'wait'>, TabLockOptions>> = {
  ifFree: { ifAvailable: true },
  steal: { steal: true },
};

const STOPPED: PhoneOwnerSnapshot = { state: 'stopped', owner: null };

/** See the module comment. */
export class PhoneOwner {
  readonly #options: PhoneOwnerOptions;
  readonly #machine = new StateMachine<PhoneOwnerState, PhoneOwnerEvent>(
    'PhoneOwner',
    PHONE_OWNER_TRANSITIONS,
    'stopped',
    (_machine, state, event) => new PhoneOwnerTransitionError(state, event),
  );
  #snapshot: PhoneOwnerSnapshot = STOPPED;
  readonly #listeners = new Set<() => void>();
  readonly #logoutListeners = new Set<() => void>();

  /** Attempt id of the current lock request; answers to older ones are dropped. */
  #attempt = 0;
  #lockName = '';
  #channel: TabChannel | null = null;
  #unsubscribeChannel: (() => void) | null = null;
  /** Gives the held lock back (settles the promise the lock is held with). */
  #release: (() => void) | null = null;
  /** Withdraws the request waiting in the lock's queue. */
  #withdraw: AbortController | null = null;
  /** This tab's phone and activity, published while it owns the phone. */
  #report: OwnerReport = { phone: 'idle', activity: 'waiting' };
  /** When this tab last got the phone. */
  #term = 0;
  /** The term of the newest owner heard of (this tab's own while it owns the phone). */
  #heardTerm = 0;
  /** What that owner published. */
  #heard: OwnerReport | null = null;

  constructor(options: PhoneOwnerOptions) {
    this.#options = options;
  }

  /** The current snapshot (stable between changes). */
  readonly getSnapshot = (): PhoneOwnerSnapshot => this.#snapshot;

  /** Subscribes to snapshot changes; returns the unsubscribe. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /**
   * Calls `listener` when another tab of this user says it logged out (this tab has left the
   * election by then); returns the unsubscribe.
   */
  onLoggedOut(listener: () => void): () => void {
    this.#logoutListeners.add(listener);
    return () => this.#logoutListeners.delete(listener);
  }

  /** Where this tab stands. */
  get state(): PhoneOwnerState {
    return this.#machine.state;
  }

  /**
   * Joins the election among `userId`'s tabs: this tab owns the phone if no other tab does (at
   * once where the browser has no Web Locks), and follows the owner otherwise.
   */
  start(userId: number): void {
    this.#send('start');
    this.#update();
    this.#lockName = `${PHONE_OWNER_LOCK_PREFIX}${userId}`;
    const channel = this.#tryChannel(`${PHONE_OWNER_CHANNEL_PREFIX}${userId}`);
    this.#channel = channel;
    this.#unsubscribeChannel = channel?.subscribe((data) => this.#onMessage(data)) ?? null;
    if (this.#options.tabs.locks) this.#ask('ifFree');
    else this.#granted();
  }

  /** Leaves the election: gives the phone back (to the next waiting tab) or stops waiting. */
  stop(): void {
    if (this.#machine.state === 'stopped') return;
    this.#attempt += 1;
    this.#withdrawWait();
    this.#giveBack();
    this.#unsubscribeChannel?.();
    this.#unsubscribeChannel = null;
    this.#channel?.close();
    this.#channel = null;
    this.#heardTerm = 0;
    this.#heard = null;
    this.#send('stop');
    this.#update();
  }

  /**
   * "Use phone here": takes the phone from the owning tab, which stops its phone and follows.
   * Does nothing unless this tab is a follower.
   */
  takeOver(): void {
    if (!this.#machine.can('takeOver')) return;
    this.#send('takeOver');
    this.#update();
    this.#ask('steal');
  }

  /** This tab's phone status and activity; the other tabs see it while this tab owns the phone. */
  report(report: OwnerReport): void {
    if (report.phone === this.#report.phone && report.activity === this.#report.activity) return;
    this.#report = report;
    if (this.#machine.state === 'owner') this.#publish();
  }

  /** Tells this user's other tabs that the agent logged out here. */
  announceLogout(): void {
    this.#post({ type: 'loggedOut' });
  }

  // ---- the lock --------------------------------------------------------------------------------

  /** Asks for the lock (withdrawing any earlier wait); the answer comes back tagged. */
  #ask(how: LockAsk): void {
    const locks = this.#options.tabs.locks;
    if (!locks) return;
    this.#withdrawWait();
    const attempt = ++this.#attempt;
    let options: TabLockOptions;
    if (how === 'wait') {
      const withdraw = new AbortController();
      this.#withdraw = withdraw;
      options = { signal: withdraw.signal };
    } else {
      options = LOCK_OPTIONS[how];
    }
    const hold = (granted: boolean): Promise<void> => {
      // Withdrawn or superseded meanwhile: hand the lock on at once.
      if (attempt !== this.#attempt) return Promise.resolve();
      if (!granted) {
        this.#denied();
        return Promise.resolve();
      }
      return new Promise<void>((release) => {
        this.#release = release;
        this.#granted();
      });
    };
    // Async, so that a request the browser throws on synchronously rejects like any other.
    const request = (async () => locks.request(this.#lockName, options, hold))();
    request.catch((error: unknown) => {
      // This tab withdrew the request or gave the lock back itself.
      if (attempt !== this.#attempt) return;
      this.#refused(error);
    });
  }

  /** This tab got the lock (or there are no Web Locks): it owns the phone. */
  #granted(): void {
    this.#send('granted');
    this.#withdraw = null;
    this.#term = this.#options.clock.now();
    this.#heardTerm = Math.max(this.#heardTerm, this.#term);
    this.#heard = null;
    this.#update();
    this.#publish();
  }

  /** Another tab holds the lock (the first election), or taking it failed. */
  #denied(): void {
    this.#send('denied');
    this.#follow();
  }

  /** The current request rejected: the held lock was stolen, or the browser refused it. */
  #refused(error: unknown): void {
    switch (this.#machine.state) {
      case 'owner':
        // Another tab took the phone ("Use phone here" there).
        this.#giveBack();
        this.#send('lost');
        this.#follow();
        return;
      case 'electing':
        // The browser would not elect: this tab owns the phone, as without Web Locks.
        this.#options.log.error(`The phone lock failed: ${errorMessage(error)}`);
        this.#granted();
        return;
      case 'takingOver':
        this.#options.log.error(`Taking the phone failed: ${errorMessage(error)}`);
        this.#send('denied');
        this.#follow();
        return;
      default:
        this.#options.log.error(`Waiting for the phone failed: ${errorMessage(error)}`);
    }
  }

  /** Follows the owner: waits in the lock's queue and asks for its state. */
  #follow(): void {
    this.#update();
    this.#ask('wait');
    this.#post({ type: 'ask' });
  }

  #withdrawWait(): void {
    const withdraw = this.#withdraw;
    this.#withdraw = null;
    withdraw?.abort();
  }

  #giveBack(): void {
    const release = this.#release;
    this.#release = null;
    release?.();
  }

  // ---- the channel -----------------------------------------------------------------------------

  #onMessage(data: unknown): void {
    const message = parsePhoneOwnerMessage(data);
    if (!message) return;
    switch (message.type) {
      case 'state':
        // A report of an owner that has since lost the phone never overrides its successor's.
        if (message.term < this.#heardTerm) return;
        this.#heardTerm = message.term;
        this.#heard = { phone: message.phone, activity: message.activity };
        this.#update();
        return;
      case 'ask':
        if (this.#machine.state === 'owner') this.#publish();
        return;
      case 'loggedOut':
        // The session is gone for this tab too: it never takes the phone again.
        this.stop();
        for (const listener of [...this.#logoutListeners]) listener();
        return;
    }
  }

  #publish(): void {
    this.#post({ type: 'state', term: this.#term, ...this.#report });
  }

  #post(message: PhoneOwnerMessage): void {
    try {
      this.#channel?.post(message);
    } catch (error) {
      this.#options.log.error(`Telling the other tabs failed: ${errorMessage(error)}`);
    }
  }

  #tryChannel(name: string): TabChannel | null {
    try {
      return this.#options.tabs.openChannel(name);
    } catch (error) {
      this.#options.log.error(`Opening the tabs' channel failed: ${errorMessage(error)}`);
      return null;
    }
  }

  // ---- state -----------------------------------------------------------------------------------

  /** Applies `event` (throws {@link PhoneOwnerTransitionError} where it is illegal). */
  #send(event: PhoneOwnerEvent): void {
    this.#machine.send(event);
  }

  /** Takes a new snapshot if anything shown changed, and tells the subscribers. */
  #update(): void {
    const state = this.#machine.state;
    const owner = ELSEWHERE_STATES.has(state) ? this.#heard : null;
    const previous = this.#snapshot;
    if (previous.state === state && previous.owner === owner) return;
    this.#snapshot = state === 'stopped' ? STOPPED : { state, owner };
    for (const listener of [...this.#listeners]) listener();
  }
}
