/**
 * What the tabs of one browser share, behind small injected interfaces: exclusive locks by name
 * (the Web Locks API, `navigator.locks`) and channels between the tabs of this origin
 * (`BroadcastChannel`). The app passes {@link browserTabs}; tests pass the fakes of
 * `test-support/fake-tabs.ts`, several "tabs" sharing one fake browser. Where the browser has
 * neither (an insecure page has no Web Locks), {@link NO_SHARED_TABS} says so and each tab stands
 * alone.
 */

/** How a lock is asked for (the Web Locks API's options; the mode is always exclusive). */
export interface TabLockOptions {
  /** Grant the lock only if it is free now; otherwise `hold(false)` runs at once. */
  readonly ifAvailable?: boolean;
  /**
   * Take the lock from the tab holding it: granted at once, and the holder's `request` rejects
   * (an `AbortError`). Requests waiting for the lock keep waiting.
   */
  readonly steal?: boolean;
  /** Withdraws the request while it waits: its `request` rejects (an `AbortError`). */
  readonly signal?: AbortSignal;
}

/** Exclusive locks by name, shared by the tabs of one browser (`navigator.locks`). */
export interface TabLocks {
  /**
   * Asks for the lock `name`. Once granted, `hold(true)` runs and the lock is held until the
   * promise it returns settles; then the oldest waiting request gets it. Closing a tab releases
   * its locks and withdraws its waiting requests. Resolves when `hold`'s promise does; rejects
   * when the request is withdrawn (`signal`) or the held lock is stolen.
   */
  request(
    name: string,
    options: TabLockOptions,
    hold: (granted: boolean) => Promise<void>,
  ): Promise<void>;
}

/** A channel to the other tabs of this origin with the same channel name (`BroadcastChannel`). */
export interface TabChannel {
  /** Sends a structured-cloneable `message` to the other tabs (never to this one). */
  post(message: unknown): void;
  /** Calls `listener` with each message from another tab; returns the unsubscribe. */
  subscribe(listener: (message: unknown) => void): () => void;
  /** Stops sending and receiving. */
  close(): void;
}

/** The locks and channels of this browser's tabs, where the browser has them. */
export interface BrowserTabs {
  /** `navigator.locks`, or null where the browser has none (insecure pages, old browsers). */
  readonly locks: TabLocks | null;
  /** Opens the channel `name`, or null where the browser has no `BroadcastChannel`. */
  openChannel(name: string): TabChannel | null;
}

/** A browser whose tabs share nothing: every tab stands alone. */
export const NO_SHARED_TABS: BrowserTabs = {
  locks: null,
  openChannel: () => null,
};

/** The parts of `window` {@link browserTabs} uses (a plain object in tests). */
export interface TabsWindow {
  readonly navigator: { readonly locks?: Pick<LockManager, 'request'> };
  readonly BroadcastChannel?: typeof BroadcastChannel;
}

/** The Web Locks API and `BroadcastChannel` of `win`, each null where `win` lacks it. */
export function browserTabs(win: TabsWindow): BrowserTabs {
  const lockManager = win.navigator.locks;
  const Channel = win.BroadcastChannel;
  return {
    locks: lockManager ? webTabLocks(lockManager) : null,
    openChannel: (name) =>
      typeof Channel === 'function' ? broadcastTabChannel(new Channel(name)) : null,
  };
}

function webTabLocks(lockManager: Pick<LockManager, 'request'>): TabLocks {
  return {
    request: async (name, { ifAvailable, steal, signal }, hold) => {
      // Only the options asked for: the API refuses `signal` together with `steal` or
      // `ifAvailable`.
      const options: LockOptions = { mode: 'exclusive' };
      if (ifAvailable) options.ifAvailable = true;
      if (steal) options.steal = true;
      if (signal) options.signal = signal;
      await lockManager.request(name, options, (lock) => hold(lock !== null));
    },
  };
}

function broadcastTabChannel(channel: BroadcastChannel): TabChannel {
  return {
    post: (message) => channel.postMessage(message),
    subscribe(listener) {
      const onMessage = (event: MessageEvent<unknown>) => listener(event.data);
      channel.addEventListener('message', onMessage);
      return () => channel.removeEventListener('message', onMessage);
    },
    close: () => channel.close(),
  };
}
