// The browser wiring of the tabs' locks and channels, on a stand-in window: the options the Web
// Locks API is asked with, the grant passed on, Node's own BroadcastChannel, and what is missing.
import { describe, expect, it } from 'vitest';
import { browserTabs, type TabLockOptions } from './tabs';

interface Asked {
  readonly name: string;
  readonly options: LockOptions;
}

/** A LockManager answering every request with `lock` (null: not available), recording them. */
function recordingLocks(asked: Asked[], lock: Lock | null): Pick<LockManager, 'request'> {
  const request = (
    name: string,
    options: LockOptions,
    callback: (granted: Lock | null) => Promise<void>,
  ) => {
    asked.push({ name, options });
    return callback(lock);
  };
  return { request: request as LockManager['request'] };
}

const HELD: Lock = { name: 'leadline-phone-7', mode: 'exclusive' };

describe('browserTabs: locks', () => {
  const signal = new AbortController().signal;
  it.each<[string, TabLockOptions, LockOptions]>([
    ['first election', { ifAvailable: true }, { mode: 'exclusive', ifAvailable: true }],
    ['steal', { steal: true }, { mode: 'exclusive', steal: true }],
    ['wait', { signal }, { mode: 'exclusive', signal }],
    ['plain', {}, { mode: 'exclusive' }],
  ])('asks exclusively, with only the options given (%s)', async (_case, given, sent) => {
    const asked: Asked[] = [];
    const { locks } = browserTabs({ navigator: { locks: recordingLocks(asked, HELD) } });
    await locks!.request('leadline-phone-7', given, () => Promise.resolve());
    expect(asked).toEqual([{ name: 'leadline-phone-7', options: sent }]);
  });

  it.each([
    [HELD, true],
    [null, false],
  ])('passes on whether the lock was granted (%j → %s)', async (lock, granted) => {
    const { locks } = browserTabs({ navigator: { locks: recordingLocks([], lock) } });
    const seen: boolean[] = [];
    await locks!.request('x', { ifAvailable: true }, (answer) => {
      seen.push(answer);
      return Promise.resolve();
    });
    expect(seen).toEqual([granted]);
  });

  it('is null without the Web Locks API (an insecure page)', () => {
    expect(browserTabs({ navigator: {} }).locks).toBeNull();
  });
});

describe('browserTabs: channels', () => {
  it('sends to the other channels of the name, not to itself, until closed', async () => {
    const tabs = browserTabs({ navigator: {}, BroadcastChannel });
    const sender = tabs.openChannel('leadline-phone-7')!;
    const receiver = tabs.openChannel('leadline-phone-7')!;
    const own: unknown[] = [];
    sender.subscribe((message) => own.push(message));
    const received = new Promise<unknown>((resolve) => receiver.subscribe(resolve));
    sender.post({ type: 'ask' });
    expect(await received).toEqual({ type: 'ask' });
    sender.close();
    receiver.close();
    expect(own).toEqual([]);
  });

  it('is null without BroadcastChannel', () => {
    expect(browserTabs({ navigator: {} }).openChannel('x')).toBeNull();
  });
});
