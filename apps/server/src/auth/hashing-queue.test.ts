/**
 * The hashing slots and the bounded queue in front of them, with work the test finishes by hand
 * and a clock it moves: at most `slots` run, sign-ins past `maxWaiting` are refused at once with
 * how long to wait, authenticated work is never refused, and a sign-in with nothing to verify is
 * answered after as long as a verification takes, without a slot.
 */
import { describe, expect, it } from 'vitest';
import { HashingBusyError, HashingQueue } from './hashing-queue';

/** Work that runs until the test finishes it, taking `ms` of the test's clock. */
interface HeldWork {
  started: boolean;
  finish(): void;
  result: Promise<string>;
}

function setUp(options: { slots: number; maxWaiting: number }) {
  let clock = 0;
  const sleeps: number[] = [];
  const queue = new HashingQueue({
    ...options,
    now: () => clock,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    // Always the newest duration kept (the last index).
    random: () => 0.999,
  });
  /** Queues work taking `ms` once the test finishes it. */
  const hold = (
    priority: 'sign-in' | 'authenticated',
    ms: number,
    label: string,
    timed = true,
  ): HeldWork => {
    let finish: (() => void) | undefined;
    const held = {
      started: false,
      finish: () => finish!(),
    } as HeldWork;
    held.result = queue.run(
      () =>
        new Promise<string>((resolve) => {
          held.started = true;
          finish = () => {
            clock += ms;
            resolve(label);
          };
        }),
      { priority, timed },
    );
    held.result.catch(() => undefined);
    return held;
  };
  return { queue, hold, sleeps };
}

/** Lets the queue's promise chains settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** Finishes `work` and lets the queue take note. */
async function done(work: HeldWork): Promise<void> {
  work.finish();
  await settle();
}

describe('the slots', () => {
  it('run at most 2 at once; the next in line starts as one finishes, in order', async () => {
    const { queue, hold } = setUp({ slots: 2, maxWaiting: 8 });
    const works = ['a', 'b', 'c', 'd'].map((label) => hold('sign-in', 500, label));
    await settle();
    expect(works.map((w) => w.started)).toEqual([true, true, false, false]);
    expect([queue.running, queue.waiting]).toEqual([2, 2]);
    works[1]!.finish();
    await settle();
    expect(works.map((w) => w.started)).toEqual([true, true, true, false]);
    works[0]!.finish();
    await settle();
    expect(works.map((w) => w.started)).toEqual([true, true, true, true]);
    works[2]!.finish();
    works[3]!.finish();
    expect(await Promise.all(works.map((w) => w.result))).toEqual(['a', 'b', 'c', 'd']);
    expect([queue.running, queue.waiting]).toEqual([0, 0]);
  });

  it('refuse a sign-in at once when 8 wait already, saying how long to wait; authenticated work waits', async () => {
    const { queue, hold } = setUp({ slots: 2, maxWaiting: 8 });
    // Two timed verifications of 500 ms each, one after the other: what one takes.
    await done(hold('sign-in', 500, 'x'));
    await done(hold('sign-in', 500, 'y'));
    const works = Array.from({ length: 10 }, (_, i) => hold('sign-in', 500, `s${i}`));
    await settle();
    expect([queue.running, queue.waiting]).toEqual([2, 8]);

    const refused = await queue
      .run(async () => 'never', { priority: 'sign-in' })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HashingBusyError);
    // Ten ahead of it, two at a time, half a second each.
    expect((refused as HashingBusyError).retryAfterMs).toBe(2_500);
    expect([queue.running, queue.waiting]).toEqual([2, 8]);

    // An admin's hash is not refused: it waits its turn.
    const admin = hold('authenticated', 500, 'admin');
    await settle();
    expect([queue.running, queue.waiting]).toEqual([2, 9]);
    for (const w of works) {
      await settle();
      w.finish();
    }
    await settle();
    expect(admin.started).toBe(true);
    admin.finish();
    expect(await admin.result).toBe('admin');
  });

  it('a refusal says at least a second', async () => {
    const { queue, hold } = setUp({ slots: 1, maxWaiting: 0 });
    await done(hold('sign-in', 10, 'timed'));
    const running = hold('sign-in', 10, 'quick');
    await settle();
    const refused = await queue
      .run(async () => 'never', { priority: 'sign-in' })
      .catch((error: unknown) => error);
    expect((refused as HashingBusyError).retryAfterMs).toBe(1_000);
    running.finish();
  });
});

describe('a sign-in with nothing to verify', () => {
  it('first runs one real verification (once, for all waiting on it), then takes no slot and waits as long as one took', async () => {
    const { queue, hold, sleeps } = setUp({ slots: 2, maxWaiting: 8 });
    let calibrations = 0;
    let finishCalibration!: () => void;
    const calibrate = async () => {
      calibrations += 1;
      await new Promise<void>((resolve) => (finishCalibration = resolve));
    };
    const first = queue.imitate(calibrate);
    const second = queue.imitate(calibrate);
    await settle();
    finishCalibration();
    await Promise.all([first, second]);
    expect(calibrations).toBe(1);
    expect(sleeps).toEqual([]);

    // A verification of 700 ms was timed: an imitation with free slots waits that long.
    await done(hold('sign-in', 700, 'v'));
    await queue.imitate(calibrate);
    expect(sleeps).toEqual([700]);
    expect([queue.running, queue.waiting]).toEqual([0, 0]);
    expect(calibrations).toBe(1);
  });

  it('waits for the queue ahead as a verification would, and is refused when one would be', async () => {
    const { queue, hold, sleeps } = setUp({ slots: 2, maxWaiting: 3 });
    await done(hold('sign-in', 400, 'x'));
    await done(hold('sign-in', 400, 'y'));
    const works = Array.from({ length: 3 }, (_, i) => hold('sign-in', 400, `s${i}`));
    await settle();
    // Both slots busy, one waiting: the imitation waits for two places, two at a time, and a hash.
    await queue.imitate(async () => undefined);
    expect(sleeps).toEqual([((1 + 1) / 2) * 400 + 400]);
    // Imitations took no place: a fourth and fifth sign-in still queue (3 may wait).
    const more = [hold('sign-in', 400, 'm1'), hold('sign-in', 400, 'm2')];
    await settle();
    expect([queue.running, queue.waiting]).toEqual([2, 3]);
    const refused = await queue.imitate(async () => undefined).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HashingBusyError);
    for (const w of [...works, ...more]) {
      await settle();
      w.finish();
    }
  });

  it('takes the durations of hashes at the current cost only', async () => {
    const { queue, hold, sleeps } = setUp({ slots: 2, maxWaiting: 8 });
    await done(hold('sign-in', 600, 'current'));
    // A stored hash of an older, cheaper cost: not what a verification takes today.
    await done(hold('sign-in', 50, 'older', false));
    await queue.imitate(async () => undefined);
    expect(sleeps).toEqual([600]);
  });
});
