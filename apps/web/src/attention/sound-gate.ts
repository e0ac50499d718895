/**
 * Whether the ringtone can be heard: browsers block sound until the agent interacts with the page
 * (autoplay policy), and a console just reloaded after login has had no interaction yet. The gate
 * reads the policy when started, re-reads it after every click or key press until sound is
 * allowed, and lifts it from the console's "Turn on sound" button. React reads it with
 * `useSyncExternalStore`.
 */
import type { SoundPolicy, SoundPolicyState } from './attention-port';

/** See the module comment. */
export class SoundGate {
  readonly #policy: SoundPolicy;
  #state: SoundPolicyState = 'allowed';
  readonly #listeners = new Set<() => void>();
  #stopWatching: (() => void) | null = null;
  #attempt = 0;
  #stopped = true;

  constructor(policy: SoundPolicy) {
    this.#policy = policy;
  }

  /** The current state (stable between changes). */
  readonly getSnapshot = (): SoundPolicyState => this.#state;

  /** Subscribes to changes; returns the unsubscribe. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /**
   * Reads the policy and, while sound is blocked, watches for the agent's first interaction.
   * Call again when the policy may have changed (the phone opened the microphone: browsers let a
   * page that captures audio play sound).
   */
  start(): void {
    this.#stopped = false;
    void this.#read();
  }

  /** Stops watching. */
  stop(): void {
    this.#stopped = true;
    this.#unwatch();
  }

  /** Reads the policy; a read that a later one overtook is dropped. */
  async #read(): Promise<void> {
    const attempt = ++this.#attempt;
    const state = await this.#policy.state();
    if (attempt !== this.#attempt || this.#stopped) return;
    this.#set(state);
    if (state === 'blocked' && !this.#stopWatching) {
      this.#stopWatching = this.#policy.onInteraction(() => void this.#read());
    }
  }

  #unwatch(): void {
    this.#stopWatching?.();
    this.#stopWatching = null;
  }

  /** Lifts the block; call from a click handler. Resolves with the state after. */
  async unlock(): Promise<SoundPolicyState> {
    const attempt = ++this.#attempt;
    const state = await this.#policy.unlock();
    if (attempt === this.#attempt) this.#set(state);
    return state;
  }

  #set(state: SoundPolicyState): void {
    if (state === 'allowed') this.#unwatch();
    if (state === this.#state) return;
    this.#state = state;
    for (const listener of [...this.#listeners]) listener();
  }
}
