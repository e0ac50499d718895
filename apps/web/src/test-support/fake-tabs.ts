/**
 * The shared test double of {@link BrowserTabs}: one {@link FakeBrowser} whose {@link FakeTab}s
 * share its locks and channels the way the tabs of a real browser share `navigator.locks` and
 * `BroadcastChannel`. Locks follow the Web Locks rules (exclusive, granted in request order,
 * `ifAvailable`, `steal`, `signal`); messages reach the other open tabs on the same channel name,
 * cloned, never the sender. Closing a tab releases its locks and withdraws its waiting requests,
 * as closing a real tab does. Callbacks and messages arrive in a later microtask, never inside
 * the call that caused them.
 */
import type { BrowserTabs, TabChannel, TabLockOptions, TabLocks } from '../platform/tabs';

interface LockRequest {
  readonly tab: FakeTab;
  readonly hold: (granted: boolean) => Promise<void>;
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
}

interface LockSlot {
  holder: LockRequest | null;
  readonly queue: LockRequest[];
}

const abortError = (message: string) => new DOMException(message, 'AbortError');

/** A browser whose tabs share locks and channels. */
export class FakeBrowser {
  readonly #locks = new Map<string, LockSlot>();
  readonly #channels = new Set<FakeChannel>();
  #nextTabId = 1;

  /** Opens a new tab. */
  openTab(): FakeTab {
    return new FakeTab(this, this.#nextTabId++);
  }

  /** The tab holding the lock `name`, or null. */
  holderOf(name: string): FakeTab | null {
    return this.#locks.get(name)?.holder?.tab ?? null;
  }

  /** How many requests wait for the lock `name`. */
  waitingFor(name: string): number {
    return this.#locks.get(name)?.queue.length ?? 0;
  }

  /** @internal {@link FakeTab}'s `locks.request`. */
  request(
    tab: FakeTab,
    name: string,
    options: TabLockOptions,
    hold: (granted: boolean) => Promise<void>,
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (tab.closed) throw new Error(`tab ${tab.id} is closed`);
      if (options.signal && (options.steal || options.ifAvailable)) {
        throw new DOMException('signal cannot go with steal or ifAvailable', 'NotSupportedError');
      }
      if (options.steal && options.ifAvailable) {
        throw new DOMException('steal cannot go with ifAvailable', 'NotSupportedError');
      }
      if (options.signal?.aborted) throw abortError('The request was aborted.');
      const request: LockRequest = { tab, hold, resolve, reject };
      const slot = this.#slot(name);
      if (options.steal) {
        const stolen = slot.holder;
        slot.holder = null;
        stolen?.reject(abortError('The lock was stolen.'));
        this.#grant(name, request);
        return;
      }
      if (slot.holder === null && slot.queue.length === 0) {
        this.#grant(name, request);
        return;
      }
      if (options.ifAvailable) {
        queueMicrotask(() => settleWith(request, hold(false)));
        return;
      }
      slot.queue.push(request);
      options.signal?.addEventListener(
        'abort',
        () => {
          const index = slot.queue.indexOf(request);
          if (index < 0) return;
          slot.queue.splice(index, 1);
          reject(abortError('The request was aborted.'));
        },
        { once: true },
      );
    });
  }

  /** @internal {@link FakeTab}'s `openChannel`. */
  openChannel(tab: FakeTab, name: string): FakeChannel {
    const channel = new FakeChannel(this, tab, name);
    this.#channels.add(channel);
    return channel;
  }

  /** @internal Delivers `message` to the other open channels named like `from`. */
  deliver(from: FakeChannel, message: unknown): void {
    for (const channel of this.#channels) {
      if (channel !== from && channel.name === from.name) {
        const copy = structuredClone(message);
        queueMicrotask(() => channel.receive(copy));
      }
    }
  }

  /** @internal Forgets a closed channel. */
  closeChannel(channel: FakeChannel): void {
    this.#channels.delete(channel);
  }

  /** @internal What closing `tab` does to its locks and channels. */
  closeTab(tab: FakeTab): void {
    for (const channel of [...this.#channels]) if (channel.tab === tab) channel.close();
    for (const [name, slot] of this.#locks) {
      // A closed tab's requests are gone with it: nothing settles.
      for (let i = slot.queue.length - 1; i >= 0; i--) {
        if (slot.queue[i]?.tab === tab) slot.queue.splice(i, 1);
      }
      if (slot.holder?.tab === tab) {
        slot.holder = null;
        this.#grantNext(name);
      }
    }
  }

  #slot(name: string): LockSlot {
    let slot = this.#locks.get(name);
    if (!slot) {
      slot = { holder: null, queue: [] };
      this.#locks.set(name, slot);
    }
    return slot;
  }

  #grant(name: string, request: LockRequest): void {
    const slot = this.#slot(name);
    slot.holder = request;
    queueMicrotask(() => {
      if (slot.holder !== request) return;
      const held = (async () => request.hold(true))();
      held.then(
        () => this.#release(name, request, () => request.resolve()),
        (error: unknown) => this.#release(name, request, () => request.reject(error)),
      );
    });
  }

  #release(name: string, request: LockRequest, settle: () => void): void {
    const slot = this.#slot(name);
    // Stolen (the request rejected then) or its tab closed: nothing left to release.
    if (slot.holder !== request) return;
    slot.holder = null;
    settle();
    this.#grantNext(name);
  }

  #grantNext(name: string): void {
    const slot = this.#slot(name);
    if (slot.holder !== null) return;
    const next = slot.queue.shift();
    if (next) this.#grant(name, next);
  }
}

function settleWith(request: LockRequest, held: Promise<void>): void {
  held.then(
    () => request.resolve(),
    (error: unknown) => request.reject(error),
  );
}

/** One tab of a {@link FakeBrowser}: its {@link BrowserTabs}, and `close()`. */
export class FakeTab implements BrowserTabs {
  readonly #browser: FakeBrowser;
  /** Numbered from 1 in opening order. */
  readonly id: number;
  #closed = false;
  readonly locks: TabLocks;

  constructor(browser: FakeBrowser, id: number) {
    this.#browser = browser;
    this.id = id;
    this.locks = {
      request: (name, options, hold) => this.#browser.request(this, name, options, hold),
    };
  }

  /** Whether the tab was closed. */
  get closed(): boolean {
    return this.#closed;
  }

  openChannel(name: string): TabChannel {
    return this.#browser.openChannel(this, name);
  }

  /** Closes the tab: its locks go to the next waiting tab, its channels stop. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#browser.closeTab(this);
  }
}

/** A channel of a {@link FakeTab}. */
export class FakeChannel implements TabChannel {
  readonly #browser: FakeBrowser;
  readonly tab: FakeTab;
  readonly name: string;
  readonly #listeners = new Set<(message: unknown) => void>();
  #open = true;

  constructor(browser: FakeBrowser, tab: FakeTab, name: string) {
    this.#browser = browser;
    this.tab = tab;
    this.name = name;
  }

  post(message: unknown): void {
    if (!this.#open) throw new DOMException('The channel is closed.', 'InvalidStateError');
    this.#browser.deliver(this, message);
  }

  subscribe(listener: (message: unknown) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): void {
    this.#open = false;
    this.#browser.closeChannel(this);
  }

  /** @internal A message from another tab. */
  receive(message: unknown): void {
    if (!this.#open) return;
    for (const listener of [...this.#listeners]) listener(message);
  }
}
