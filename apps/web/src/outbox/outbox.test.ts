// The outbox against a manual clock and timers, a switchable network and a scripted `send`:
// no real waiting, no sleeps. IndexedDB where persistence matters (fake-indexeddb factories).
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { FakeClock, FakeNetwork } from '../test-support/fake-platform';
import { newIndexedDb, stubIndexedDbClasses } from '../test-support/fake-indexed-db';
import { IndexedDbOutboxStore } from './indexed-db-outbox-store';
import { MemoryOutboxStore } from './memory-outbox-store';
import { Outbox, type OutboxLock, type OutboxOptions, type OutboxSend } from './outbox';
import type { NewOutboxEntry, OutboxEntry, OutboxRequest } from './outbox-entry';
import type { OutboxDisplayState, OutboxSnapshot } from './outbox-lifecycle';
import type { OutboxStore } from './outbox-store';
import { NETWORK_FAILURE, type SendOutcome } from './send-outcome';

/** Every outbox a test made: stopped and quiet before the next test. */
const outboxes: Outbox[] = [];

beforeAll(() => stubIndexedDbClasses());
afterEach(async () => {
  for (const outbox of outboxes.splice(0)) {
    outbox.stop();
    await outbox.settled();
  }
});
afterAll(() => vi.unstubAllGlobals());

const AGENT = 7;
const OTHER_AGENT = 8;

const DONE: SendOutcome = { kind: 'done', payload: { success: true } };
const SERVER_DOWN: SendOutcome = { kind: 'retry', reason: 'The server answered HTTP 503.' };

/** One call of the scripted `send`, answered by the test. */
interface SendCall {
  readonly entry: OutboxEntry;
  readonly signal: AbortSignal;
  respond(outcome: SendOutcome): void;
}

/**
 * A `send` the test answers call by call (`await sender.next()`), or automatically with
 * `auto`. It records every call and how many were in flight at once.
 */
class ScriptedSend {
  readonly calls: SendCall[] = [];
  inFlight = 0;
  maxInFlight = 0;
  /** When set, every call is answered with this after the current microtasks run. */
  auto: ((entry: OutboxEntry) => SendOutcome) | null = null;
  /** Runs first in every call (checks of what the store holds at that moment). */
  onCall: ((entry: OutboxEntry) => Promise<void>) | null = null;
  #read = 0;
  readonly #waiting: ((call: SendCall) => void)[] = [];

  readonly send: OutboxSend = async (entry, { signal }) => {
    await this.onCall?.(entry);
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    const outcome = await new Promise<SendOutcome>((resolve) => {
      const call: SendCall = { entry, signal, respond: resolve };
      this.calls.push(call);
      this.#waiting.shift()?.(call);
      const auto = this.auto;
      if (auto) void Promise.resolve().then(() => resolve(auto(entry)));
    });
    this.inFlight -= 1;
    return outcome;
  };

  /** The next call not yet handed to the test (waits for it). */
  next(): Promise<SendCall> {
    const index = this.#read++;
    const call = this.calls[index];
    if (call) return Promise.resolve(call);
    return new Promise((resolve) => {
      this.#waiting.push(resolve);
    });
  }

  /** The labels sent so far, in order. */
  get labels(): string[] {
    return this.calls.map((call) => call.entry.label);
  }
}

/** Resolves with the first snapshot (now or later) that matches. */
function until(
  outbox: Outbox,
  matches: (snapshot: OutboxSnapshot) => boolean,
): Promise<OutboxSnapshot> {
  return new Promise((resolve) => {
    let done = false;
    const unsubscribe = outbox.subscribe(() => {
      if (!done && matches(outbox.getSnapshot())) {
        done = true;
        unsubscribe();
        resolve(outbox.getSnapshot());
      }
    });
    if (matches(outbox.getSnapshot())) {
      done = true;
      unsubscribe();
      resolve(outbox.getSnapshot());
    }
  });
}

const waiting = (outbox: Outbox) => until(outbox, (s) => s.state === 'waiting');
/** The queue emptied with a delivery last. */
const drained = (outbox: Outbox) => until(outbox, (s) => s.state === 'saved');

function request(label: string, userId = AGENT): OutboxRequest {
  return { userId, method: 'POST', path: `/api/v1/${label}`, body: { label }, label };
}

interface Setup {
  readonly outbox: Outbox;
  readonly clock: FakeClock;
  readonly network: FakeNetwork;
  readonly sender: ScriptedSend;
  /** Every idempotency key made, in order. */
  readonly keys: string[];
}

/** An outbox on `store` and a manual clock; jitter draws 0.5, so each delay is half its cap. */
function setup(
  store: OutboxStore,
  overrides: Partial<Omit<OutboxOptions, 'store' | 'clock' | 'timers'>> & {
    clock?: FakeClock;
  } = {},
): Setup {
  const { clock = new FakeClock(), ...options } = overrides;
  const network = new FakeNetwork();
  const keys: string[] = [];
  const outbox = new Outbox({
    store,
    clock,
    timers: clock,
    network,
    random: () => 0.5,
    createKey: () => {
      const key = `key-${keys.length + 1}-0000`;
      keys.push(key);
      return key;
    },
    ...options,
  });
  outboxes.push(outbox);
  return { outbox, clock, network, sender: new ScriptedSend(), keys };
}

describe('Outbox: order', () => {
  it('keeps order across a retry: entry 2 waits until entry 1 succeeded', async () => {
    const { outbox, sender, clock } = setup(new MemoryOutboxStore());
    outbox.start(AGENT, sender);
    await outbox.enqueue(request('disposition'));
    await outbox.enqueue(request('note'));

    (await sender.next()).respond(NETWORK_FAILURE);
    await waiting(outbox);
    clock.tick(10_000);
    const retry = await sender.next();
    expect(retry.entry.label).toBe('disposition');
    expect(sender.labels).toEqual(['disposition', 'disposition']);
    retry.respond(DONE);
    const note = await sender.next();
    expect(note.entry.label).toBe('note');
    note.respond(DONE);
    await drained(outbox);
    expect(sender.labels).toEqual(['disposition', 'disposition', 'note']);
    expect(sender.maxInFlight).toBe(1);
  });

  it('sends one request at a time, in insertion order, entries enqueued while one is in flight included', async () => {
    const { outbox, sender } = setup(new MemoryOutboxStore());
    outbox.start(AGENT, sender);
    await outbox.enqueue(request('disposition'));
    const first = await sender.next();
    await outbox.enqueue(request('tag'));
    await outbox.enqueue(request('sms'));
    await outbox.enqueue(request('note'));
    expect(sender.calls).toHaveLength(1);
    first.respond(DONE);
    for (const label of ['tag', 'sms', 'note']) {
      const call = await sender.next();
      expect(call.entry.label).toBe(label);
      expect(sender.inFlight).toBe(1);
      call.respond(DONE);
    }
    await drained(outbox);
    expect(sender.labels).toEqual(['disposition', 'tag', 'sms', 'note']);
    expect(sender.maxInFlight).toBe(1);
  });

  it('moves on after a refusal: the entry is removed, reported in lastError and by firstAttempt', async () => {
    const store = new MemoryOutboxStore();
    const { outbox, sender } = setup(store);
    outbox.start(AGENT, sender);
    const sms = await outbox.enqueue(request('sms'));
    const note = await outbox.enqueue(request('note'));

    (await sender.next()).respond({
      kind: 'refused',
      status: 422,
      error: 'The phone number is invalid.',
    });
    expect(await sms.firstAttempt).toEqual({
      kind: 'refused',
      status: 422,
      error: 'The phone number is invalid.',
    });
    const next = await sender.next();
    expect(next.entry.id).toBe(note.entry.id);
    expect((await store.list(AGENT)).map((entry) => entry.label)).toEqual(['note']);
    next.respond(DONE);
    expect(await note.firstAttempt).toEqual(DONE);

    const snapshot = await drained(outbox);
    expect(snapshot.lastError).toEqual({ label: 'sms', error: 'The phone number is invalid.' });
    expect(await store.list(AGENT)).toEqual([]);
    outbox.dismissError();
    expect(outbox.getSnapshot().lastError).toBeNull();
  });
});

describe('Outbox: a caller that shows its own refusal', () => {
  const REFUSED: SendOutcome = { kind: 'refused', status: 200, error: 'Cannot receive texts.' };

  it('is not reported again when the first attempt was refused', async () => {
    const { outbox, sender } = setup(new MemoryOutboxStore());
    outbox.start(AGENT, sender);
    const sms = await outbox.enqueue({ ...request('sms'), showsRefusal: true });
    (await sender.next()).respond(REFUSED);
    expect(await sms.firstAttempt).toEqual(REFUSED);
    expect(outbox.getSnapshot().lastError).toBeNull();
  });

  it('is reported when the refusal came on a later attempt (the caller had moved on)', async () => {
    const { outbox, sender, clock } = setup(new MemoryOutboxStore());
    outbox.start(AGENT, sender);
    const sms = await outbox.enqueue({ ...request('sms'), showsRefusal: true });
    (await sender.next()).respond(SERVER_DOWN);
    expect((await sms.firstAttempt).kind).toBe('queued');
    await waiting(outbox);
    clock.tick(30_000);
    (await sender.next()).respond(REFUSED);
    const snapshot = await until(outbox, (s) => s.lastError !== null);
    expect(snapshot.lastError).toEqual({ label: 'sms', error: 'Cannot receive texts.' });
  });
});

describe('Outbox: persistence', () => {
  it('has the entry in the store (IndexedDB) before send is first called', async () => {
    const store = new IndexedDbOutboxStore(newIndexedDb());
    const { outbox, sender } = setup(store);
    const seenAtSend: OutboxEntry[][] = [];
    sender.onCall = async () => {
      seenAtSend.push(await store.list(AGENT));
    };
    outbox.start(AGENT, sender);
    const { entry } = await outbox.enqueue(request('note'));
    const call = await sender.next();
    expect(seenAtSend).toEqual([[entry]]);
    expect(call.entry).toEqual(entry);
    call.respond(DONE);
    await drained(outbox);
    expect(await store.list(AGENT)).toEqual([]);
  });

  it('enqueue resolves only after the store kept the entry, and no attempt starts before', async () => {
    const memory = new MemoryOutboxStore();
    const events: string[] = [];
    let release: () => void = () => undefined;
    let addStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (addStarted = resolve));
    const slowStore: OutboxStore = {
      add: async (entry: NewOutboxEntry) => {
        events.push('add started');
        addStarted();
        await new Promise<void>((resolve) => (release = resolve));
        const stored = await memory.add(entry);
        events.push('add done');
        return stored;
      },
      list: (userId) => memory.list(userId),
      update: (entry) => memory.update(entry),
      remove: (id) => memory.remove(id),
    };
    const { outbox, sender } = setup(slowStore);
    sender.onCall = async () => {
      events.push('send');
    };
    outbox.start(AGENT, sender);
    const enqueued = outbox.enqueue(request('note'));
    await started;
    expect(sender.calls).toHaveLength(0);
    release();
    await enqueued;
    (await sender.next()).respond(DONE);
    expect(events).toEqual(['add started', 'add done', 'send']);
  });

  it('resumes after a reload: a new Outbox on the same IndexedDB sends what the last one left, keeping its schedule and key', async () => {
    const factory = newIndexedDb();
    const clock = new FakeClock();
    const before = setup(new IndexedDbOutboxStore(factory), { clock });
    before.outbox.start(AGENT, before.sender);
    const disposition = await before.outbox.enqueue(request('disposition'));
    const note = await before.outbox.enqueue(request('note'));
    (await before.sender.next()).respond(NETWORK_FAILURE);
    await waiting(before.outbox);
    // The page goes away (a reload or a crash): its timers die with it.
    before.outbox.stop();

    const afterStore = new IndexedDbOutboxStore(factory);
    const stored = await afterStore.list(AGENT);
    expect(stored.map((entry) => [entry.label, entry.key, entry.attempts])).toEqual([
      ['disposition', disposition.entry.key, 1],
      ['note', note.entry.key, 0],
    ]);
    const after = setup(afterStore, { clock });
    after.outbox.start(AGENT, after.sender);
    await waiting(after.outbox);
    // The stored next attempt time (half of 1000 ms after the failure) still holds.
    clock.tick(499);
    expect(after.sender.calls).toHaveLength(0);
    clock.tick(1);
    const resent = await after.sender.next();
    expect(resent.entry).toMatchObject({ key: disposition.entry.key, attempts: 1 });
    resent.respond(DONE);
    const second = await after.sender.next();
    expect(second.entry.key).toBe(note.entry.key);
    second.respond(DONE);
    await drained(after.outbox);
    expect(await afterStore.list(AGENT)).toEqual([]);
    expect(before.sender.calls).toHaveLength(1);
  });

  it('waits at most the longest back-off for a stored time far ahead (the clock was set back)', async () => {
    const store = new MemoryOutboxStore();
    const clock = new FakeClock();
    await store.add({
      ...request('note'),
      key: 'key-from-the-future',
      createdAt: clock.now(),
      attempts: 3,
      nextAttemptAt: clock.now() + 24 * 3_600_000,
    });
    const { outbox, sender } = setup(store, { clock });
    outbox.start(AGENT, sender);
    await waiting(outbox);
    clock.tick(29_999);
    expect(sender.calls).toHaveLength(0);
    clock.tick(1);
    (await sender.next()).respond(DONE);
    await drained(outbox);
  });

  it('sends, on start, what was enqueued before start (e.g. while signed out)', async () => {
    const store = new MemoryOutboxStore();
    const { outbox, sender } = setup(store);
    const { firstAttempt } = await outbox.enqueue(request('note'));
    expect(await firstAttempt).toMatchObject({ kind: 'queued' });
    outbox.start(AGENT, sender);
    (await sender.next()).respond(DONE);
    await drained(outbox);
    expect(await store.list(AGENT)).toEqual([]);
  });
});

describe('Outbox: retries', () => {
  it('backs off exponentially from 1000 ms, ×2, capped at 30,000 ms, with jitter from random()', async () => {
    const store = new MemoryOutboxStore();
    const { outbox, sender, clock } = setup(store);
    outbox.start(AGENT, sender);
    await outbox.enqueue(request('note'));
    (await sender.next()).respond(SERVER_DOWN);
    await waiting(outbox);

    // random() is 0.5: each delay is half of min(30000, 1000 × 2^n).
    const delaysMs = [500, 1_000, 2_000, 4_000, 8_000, 15_000, 15_000, 15_000];
    for (const [index, delayMs] of delaysMs.entries()) {
      const [stored] = await store.list(AGENT);
      expect(stored).toMatchObject({ attempts: index + 1, nextAttemptAt: clock.now() + delayMs });
      clock.tick(delayMs - 1);
      expect(sender.calls).toHaveLength(index + 1);
      clock.tick(1);
      (await sender.next()).respond(SERVER_DOWN);
      await waiting(outbox);
    }
    expect(sender.calls).toHaveLength(delaysMs.length + 1);
  });

  it('uses the injected random() for full jitter', async () => {
    const draws = [0.1, 0.9];
    const { outbox, sender, clock } = setup(new MemoryOutboxStore(), {
      random: () => draws.shift() ?? 0,
    });
    outbox.start(AGENT, sender);
    await outbox.enqueue(request('note'));
    (await sender.next()).respond(SERVER_DOWN);
    await waiting(outbox);
    clock.tick(99);
    expect(sender.calls).toHaveLength(1);
    clock.tick(1);
    (await sender.next()).respond(SERVER_DOWN);
    await waiting(outbox);
    // 0.9 × 2000 ms.
    clock.tick(1_799);
    expect(sender.calls).toHaveLength(2);
    clock.tick(1);
    (await sender.next()).respond(DONE);
    await drained(outbox);
  });

  it('keeps the idempotency key of an entry across its retries; each entry has its own', async () => {
    const { outbox, sender, clock, keys } = setup(new MemoryOutboxStore());
    outbox.start(AGENT, sender);
    const { entry } = await outbox.enqueue(request('disposition'));
    const second = await outbox.enqueue(request('note'));
    for (let retry = 0; retry < 3; retry += 1) {
      (await sender.next()).respond(NETWORK_FAILURE);
      await waiting(outbox);
      clock.tick(30_000);
    }
    (await sender.next()).respond(DONE);
    (await sender.next()).respond(DONE);
    await drained(outbox);
    expect(sender.calls.map((call) => call.entry.key)).toEqual([
      entry.key,
      entry.key,
      entry.key,
      entry.key,
      second.entry.key,
    ]);
    expect(keys).toEqual([entry.key, second.entry.key]);
    expect(entry.key).not.toBe(second.entry.key);
  });

  it('gives up waiting for an answer after the attempt timeout: aborts it and retries with the same key', async () => {
    const { outbox, sender, clock } = setup(new MemoryOutboxStore(), {
      attemptTimeoutMs: 20_000,
    });
    outbox.start(AGENT, sender);
    const { firstAttempt } = await outbox.enqueue(request('note'));
    const hung = await sender.next();
    clock.tick(19_999);
    expect(hung.signal.aborted).toBe(false);
    clock.tick(1);
    expect(hung.signal.aborted).toBe(true);
    expect(await firstAttempt).toEqual({
      kind: 'queued',
      reason: 'No answer from the server in time.',
    });
    await waiting(outbox);
    hung.respond(DONE); // Too late: ignored.
    clock.tick(500);
    const retry = await sender.next();
    expect(retry.entry.key).toBe(hung.entry.key);
    retry.respond(DONE);
    await drained(outbox);
  });

  it('counts a thrown send as a retry', async () => {
    const store = new MemoryOutboxStore();
    const { outbox, clock } = setup(store);
    let calls = 0;
    outbox.start(AGENT, {
      send: async () => {
        calls += 1;
        if (calls === 1) throw new TypeError('Failed to fetch');
        return DONE;
      },
    });
    const { firstAttempt } = await outbox.enqueue(request('note'));
    expect(await firstAttempt).toEqual({ kind: 'queued', reason: 'Failed to fetch' });
    await waiting(outbox);
    clock.tick(500);
    await drained(outbox);
    expect(calls).toBe(2);
    expect(await store.list(AGENT)).toEqual([]);
  });
  it('keeps going when the store fails for a while: backs off, logs, loses nothing', async () => {
    const memory = new MemoryOutboxStore();
    let failures = 2;
    const flaky: OutboxStore = {
      add: (entry) => memory.add(entry),
      list: async (userId) => {
        if (failures > 0) {
          failures -= 1;
          throw new DOMException('The database connection is closing.', 'InvalidStateError');
        }
        return memory.list(userId);
      },
      update: (entry) => memory.update(entry),
      remove: (id) => memory.remove(id),
    };
    const logged: string[] = [];
    const { outbox, sender, clock } = setup(flaky, {
      log: { info: () => undefined, error: (message) => logged.push(message) },
    });
    sender.auto = () => DONE;
    outbox.start(AGENT, sender);
    await waiting(outbox);
    await outbox.enqueue(request('note'));
    // Failure 1 backed off 500 ms; failure 2 (on that retry) backs off 1000 ms.
    clock.tick(500);
    await waiting(outbox);
    expect(sender.calls).toHaveLength(0);
    clock.tick(999);
    expect(sender.calls).toHaveLength(0);
    clock.tick(1);
    await drained(outbox);
    expect(sender.labels).toEqual(['note']);
    expect(await memory.list(AGENT)).toEqual([]);
    expect(logged).toHaveLength(2);
  });
});

describe('Outbox: storage', () => {
  it('enqueue rejects when the store cannot keep the entry, and nothing is sent', async () => {
    const memory = new MemoryOutboxStore();
    const full: OutboxStore = {
      add: () => Promise.reject(new DOMException('Quota exceeded.', 'QuotaExceededError')),
      list: (userId) => memory.list(userId),
      update: (entry) => memory.update(entry),
      remove: (id) => memory.remove(id),
    };
    const { outbox, sender } = setup(full);
    outbox.start(AGENT, sender);
    await expect(outbox.enqueue(request('note'))).rejects.toThrow('Quota exceeded.');
    outbox.stop();
    await outbox.settled();
    expect(sender.calls).toHaveLength(0);
  });
});

describe('Outbox: network', () => {
  it('attempts nothing while offline; the online event triggers an attempt at once', async () => {
    const { outbox, sender, clock, network } = setup(new MemoryOutboxStore());
    network.set(false);
    outbox.start(AGENT, sender);
    const { firstAttempt } = await outbox.enqueue(request('note'));
    expect(await firstAttempt).toMatchObject({ kind: 'queued' });
    expect((await waiting(outbox)).pending).toBe(1);
    clock.tick(10 * 60_000);
    expect(sender.calls).toHaveLength(0);

    network.set(true);
    (await sender.next()).respond(DONE);
    await drained(outbox);
    expect(sender.calls).toHaveLength(1);
  });

  it('going offline during a back-off stops retrying; online retries at once and restarts the back-off', async () => {
    const { outbox, sender, clock, network } = setup(new MemoryOutboxStore());
    outbox.start(AGENT, sender);
    await outbox.enqueue(request('note'));
    for (let n = 0; n < 4; n += 1) {
      (await sender.next()).respond(NETWORK_FAILURE);
      await waiting(outbox);
      clock.tick(30_000);
    }
    (await sender.next()).respond(NETWORK_FAILURE);
    await waiting(outbox);
    // Now backing off 8000 ms; the Wi-Fi drops.
    network.set(false);
    expect(outbox.phase).toBe('offline');
    clock.tick(60_000);
    expect(sender.calls).toHaveLength(5);

    network.set(true);
    (await sender.next()).respond(NETWORK_FAILURE);
    await waiting(outbox);
    // The back-off starts again from the first delay (half of 1000 ms).
    clock.tick(499);
    expect(sender.calls).toHaveLength(6);
    clock.tick(1);
    (await sender.next()).respond(DONE);
    await drained(outbox);
  });

  it('an online event during a back-off retries at once', async () => {
    const { outbox, sender, clock, network } = setup(new MemoryOutboxStore());
    outbox.start(AGENT, sender);
    await outbox.enqueue(request('note'));
    (await sender.next()).respond(NETWORK_FAILURE);
    await waiting(outbox);
    clock.tick(100);
    network.set(true);
    (await sender.next()).respond(DONE);
    await drained(outbox);
  });
});

describe('Outbox: users and sessions', () => {
  it('never sends, changes or counts the entries of another user', async () => {
    const store = new MemoryOutboxStore();
    const now = Date.UTC(2025, 0, 1);
    const theirs = await store.add({
      ...request('note', OTHER_AGENT),
      key: 'their-key-1',
      createdAt: now,
      attempts: 2,
      nextAttemptAt: now,
    });
    const { outbox, sender } = setup(store);
    outbox.start(AGENT, sender);
    const late = await outbox.enqueue(request('disposition', OTHER_AGENT));
    expect(await late.firstAttempt).toMatchObject({ kind: 'queued' });
    await outbox.enqueue(request('note'));
    expect(outbox.getSnapshot().pending).toBe(1);
    (await sender.next()).respond(DONE);
    await drained(outbox);

    expect(sender.calls.map((call) => call.entry.userId)).toEqual([AGENT]);
    expect(await store.list(OTHER_AGENT)).toEqual([theirs, late.entry]);
  });

  it('stop keeps everything and sends nothing more; start for the same user goes on', async () => {
    const store = new MemoryOutboxStore();
    const { outbox, sender, clock } = setup(store);
    outbox.start(AGENT, sender);
    await outbox.enqueue(request('disposition'));
    (await sender.next()).respond(SERVER_DOWN);
    await waiting(outbox);
    outbox.stop();
    expect(outbox.getSnapshot()).toEqual({ pending: 0, state: 'idle', lastError: null });
    const queued = await outbox.enqueue(request('note'));
    expect(await queued.firstAttempt).toMatchObject({ kind: 'queued' });
    clock.tick(60_000);
    expect(sender.calls).toHaveLength(1);
    expect((await store.list(AGENT)).map((entry) => entry.label)).toEqual(['disposition', 'note']);

    const next = new ScriptedSend();
    next.auto = () => DONE;
    outbox.start(AGENT, next);
    await drained(outbox);
    expect(next.labels).toEqual(['disposition', 'note']);
  });

  it('a user change sends only the new user’s entries, with the new session', async () => {
    const store = new MemoryOutboxStore();
    const { outbox, sender } = setup(store);
    sender.auto = () => NETWORK_FAILURE;
    outbox.start(AGENT, sender);
    await outbox.enqueue(request('note'));
    await waiting(outbox);

    const theirSession = new ScriptedSend();
    theirSession.auto = () => DONE;
    outbox.start(OTHER_AGENT, theirSession);
    await outbox.enqueue(request('disposition', OTHER_AGENT));
    await drained(outbox);
    expect(theirSession.calls.map((call) => call.entry.userId)).toEqual([OTHER_AGENT]);
    expect((await store.list(AGENT)).map((entry) => entry.label)).toEqual(['note']);
  });
});

describe('Outbox: first attempt', () => {
  it('resolves done with the payload, or queued when a network failure will be retried', async () => {
    const { outbox, sender } = setup(new MemoryOutboxStore());
    outbox.start(AGENT, sender);
    const sms = await outbox.enqueue(request('sms'));
    (await sender.next()).respond({ kind: 'done', payload: { success: true, sid: 'SM1' } });
    expect(await sms.firstAttempt).toEqual({
      kind: 'done',
      payload: { success: true, sid: 'SM1' },
    });

    const note = await outbox.enqueue(request('note'));
    (await sender.next()).respond(NETWORK_FAILURE);
    expect(await note.firstAttempt).toEqual({ kind: 'queued', reason: 'Cannot reach the server.' });
  });

  it('resolves queued at once for an entry behind one that waits for a retry', async () => {
    const { outbox, sender } = setup(new MemoryOutboxStore());
    outbox.start(AGENT, sender);
    await outbox.enqueue(request('disposition'));
    const call = await sender.next();
    const note = await outbox.enqueue(request('note'));
    call.respond(NETWORK_FAILURE);
    expect(await note.firstAttempt).toMatchObject({ kind: 'queued' });
    const tag = await outbox.enqueue(request('tag'));
    expect(await tag.firstAttempt).toMatchObject({ kind: 'queued' });
    expect(sender.labels).toEqual(['disposition']);
  });
});

describe('Outbox: status', () => {
  it('goes idle → saving → waiting → saving → saved, one stable object per change', async () => {
    const { outbox, sender, clock } = setup(new MemoryOutboxStore());
    const notified: OutboxSnapshot[] = [outbox.getSnapshot()];
    outbox.subscribe(() => notified.push(outbox.getSnapshot()));
    outbox.start(AGENT, sender);
    await outbox.enqueue(request('note'));
    expect(outbox.getSnapshot()).toMatchObject({ pending: 1, state: 'saving' });
    (await sender.next()).respond(NETWORK_FAILURE);
    expect(await waiting(outbox)).toEqual({ pending: 1, state: 'waiting', lastError: null });
    expect(outbox.getSnapshot()).toBe(outbox.getSnapshot());
    clock.tick(500);
    (await sender.next()).respond(DONE);
    expect(await drained(outbox)).toEqual({ pending: 0, state: 'saved', lastError: null });

    const states = notified
      .map((snapshot) => snapshot.state)
      .filter((state, index, all) => state !== all[index - 1]);
    expect(states).toEqual<OutboxDisplayState[]>(['idle', 'saving', 'waiting', 'saving', 'saved']);
    // Each notification carried a new object with something changed.
    for (const [index, snapshot] of notified.entries()) {
      if (index === 0) continue;
      expect(snapshot).not.toBe(notified[index - 1]);
      expect(snapshot).not.toEqual(notified[index - 1]);
      expect(Object.isFrozen(snapshot)).toBe(true);
    }
  });

  it('does not notify when nothing changed', () => {
    const { outbox } = setup(new MemoryOutboxStore());
    const before = outbox.getSnapshot();
    let notified = 0;
    outbox.subscribe(() => (notified += 1));
    outbox.stop();
    outbox.dismissError();
    expect(notified).toBe(0);
    expect(outbox.getSnapshot()).toBe(before);
  });
});

describe('Outbox: tabs', () => {
  /** A lock two outboxes share, as two tabs share `navigator.locks` (a FIFO mutex). */
  function sharedLock(): OutboxLock {
    let tail: Promise<unknown> = Promise.resolve();
    return <T>(_name: string, fn: () => Promise<T>): Promise<T> => {
      const held = tail.then(fn);
      tail = held.catch(() => undefined);
      return held;
    };
  }

  async function twoTabs(lock: OutboxLock | undefined) {
    const store = new MemoryOutboxStore();
    const clock = new FakeClock();
    for (const label of ['disposition', 'tag', 'note']) {
      await store.add({
        ...request(label),
        key: `key-${label}`,
        createdAt: 0,
        attempts: 0,
        nextAttemptAt: 0,
      });
    }
    const tabs = [setup(store, { clock, lock }), setup(store, { clock, lock })];
    let inFlight = 0;
    let maxInFlight = 0;
    const sentKeys: string[] = [];
    for (const tab of tabs) {
      tab.outbox.start(AGENT, {
        send: async (entry) => {
          inFlight += 1;
          maxInFlight = Math.max(maxInFlight, inFlight);
          sentKeys.push(entry.key);
          await Promise.resolve();
          inFlight -= 1;
          return DONE;
        },
      });
    }
    // Each tab delivers at least one entry, and shows 'saved' once it reads an empty queue.
    await Promise.all(tabs.map((tab) => drained(tab.outbox)));
    return { sentKeys, maxInFlight, store };
  }

  it('two tabs sharing the Web Lock send each entry once, one at a time, in order', async () => {
    const { sentKeys, maxInFlight, store } = await twoTabs(sharedLock());
    expect(sentKeys).toEqual(['key-disposition', 'key-tag', 'key-note']);
    expect(maxInFlight).toBe(1);
    expect(await store.list(AGENT)).toEqual([]);
  });

  it('firstAttempt of an entry another tab sent resolves queued, not never', async () => {
    const store = new MemoryOutboxStore();
    const clock = new FakeClock();
    const lock = sharedLock();
    const tabA = setup(store, { clock, lock });
    const tabB = setup(store, { clock, lock });
    tabA.outbox.start(AGENT, tabA.sender);
    await tabA.outbox.enqueue(request('disposition'));
    const first = await tabA.sender.next();
    // Tab B starts while tab A holds the lock: it waits for it.
    tabB.sender.auto = () => DONE;
    tabB.outbox.start(AGENT, tabB.sender);
    const note = await tabA.outbox.enqueue(request('note'));
    first.respond(DONE);
    expect(await note.firstAttempt).toEqual({ kind: 'queued', reason: 'Sent from another tab.' });
    expect(tabB.sender.labels).toEqual(['note']);
    expect(tabA.sender.labels).toEqual(['disposition']);
    expect(await store.list(AGENT)).toEqual([]);
  });

  it('(control) without a lock both tabs would send the first entry at once', async () => {
    const { sentKeys, maxInFlight } = await twoTabs(undefined);
    expect(sentKeys.filter((key) => key === 'key-disposition')).toHaveLength(2);
    expect(maxInFlight).toBe(2);
  });
});
