// The election among an agent's tabs, with two or three "tabs" of one fake browser sharing its
// Web Locks and BroadcastChannel: every transition the lifecycle has, driven the way the browser
// drives it (a free lock, a held one, a closed tab, a steal, a withdrawn wait).
import { describe, expect, it } from 'vitest';
import { PHONE_OWNER_LOCK_PREFIX } from '../constants';
import { FakeClock } from '../test-support/fake-platform';
import { FakeBrowser, type FakeTab } from '../test-support/fake-tabs';
import type { Logger } from '../platform/platform';
import { NO_SHARED_TABS, type BrowserTabs, type TabLocks } from '../platform/tabs';
import { PhoneOwner, type PhoneOwnerSnapshot } from './phone-owner';
import type { OwnerReport } from './phone-owner-messages';

const USER_ID = 7;
const LOCK = `${PHONE_OWNER_LOCK_PREFIX}${USER_ID}`;
const READY: OwnerReport = { phone: 'ready', activity: 'waiting' };
const RINGING: OwnerReport = { phone: 'ready', activity: 'ringing' };
const ON_CALL: OwnerReport = { phone: 'ready', activity: 'onCall' };

interface Tab {
  readonly tab: FakeTab | null;
  readonly owner: PhoneOwner;
  readonly errors: string[];
}

function newTab(tabs: BrowserTabs, clock: FakeClock): Tab {
  const errors: string[] = [];
  const log: Logger = { info: () => undefined, error: (message) => errors.push(message) };
  return { tab: null, owner: new PhoneOwner({ tabs, clock, log }), errors };
}

/** A fake browser whose tabs each run a started {@link PhoneOwner} for the same user. */
function browser() {
  const fake = new FakeBrowser();
  const clock = new FakeClock();
  const open = (tabs?: (tab: FakeTab) => BrowserTabs): Tab & { tab: FakeTab } => {
    const tab = fake.openTab();
    // Each tab got the phone at a later time than the one before.
    clock.tick(1000);
    const created = newTab(tabs ? tabs(tab) : tab, clock);
    created.owner.start(USER_ID);
    return { ...created, tab };
  };
  return { fake, clock, open };
}

/** Resolves once `owner`'s snapshot satisfies `accept` (checked now and on every change). */
function until(owner: PhoneOwner, accept: (snapshot: PhoneOwnerSnapshot) => boolean) {
  return new Promise<PhoneOwnerSnapshot>((resolve) => {
    const check = () => {
      if (!accept(owner.getSnapshot())) return false;
      unsubscribe();
      resolve(owner.getSnapshot());
      return true;
    };
    const unsubscribe = owner.subscribe(() => void check());
    check();
  });
}

/** Every owner report `owner` shows from now on, in order. */
function shown(owner: PhoneOwner): (OwnerReport | null)[] {
  const reports: (OwnerReport | null)[] = [];
  owner.subscribe(() => reports.push(owner.getSnapshot().owner));
  return reports;
}

const inState = (owner: PhoneOwner, state: PhoneOwnerSnapshot['state']) =>
  until(owner, (snapshot) => snapshot.state === state);

/** Another tab's report, as a follower shows it. */
const showing = (owner: PhoneOwner, report: OwnerReport) =>
  until(
    owner,
    (snapshot) =>
      snapshot.owner?.phone === report.phone && snapshot.owner.activity === report.activity,
  );

/** Opens an owning tab with a ready phone and a follower that shows it. */
async function ownerAndFollower() {
  const world = browser();
  const first = world.open();
  await inState(first.owner, 'owner');
  first.owner.report(READY);
  const second = world.open();
  await showing(second.owner, READY);
  return { ...world, first, second };
}

describe('PhoneOwner: electing', () => {
  it('a lone tab owns the phone and holds the lock', async () => {
    const { fake, open } = browser();
    const tab = open();
    expect(tab.owner.state).toBe('electing');
    expect(await inState(tab.owner, 'owner')).toEqual({ state: 'owner', owner: null });
    expect(fake.holderOf(LOCK)).toBe(tab.tab);
  });

  it('without Web Locks the tab owns the phone at once', () => {
    const tab = newTab(NO_SHARED_TABS, new FakeClock());
    tab.owner.start(USER_ID);
    expect(tab.owner.getSnapshot()).toEqual({ state: 'owner', owner: null });
  });

  it('a second tab follows: it waits for the lock and shows the owner’s phone', async () => {
    const { fake, first, second } = await ownerAndFollower();
    expect(second.owner.getSnapshot()).toEqual({ state: 'follower', owner: READY });
    expect(first.owner.getSnapshot()).toEqual({ state: 'owner', owner: null });
    expect(fake.holderOf(LOCK)).toBe(first.tab);
    expect(fake.waitingFor(LOCK)).toBe(1);
  });

  it('followers see each change the owner reports', async () => {
    const { first, second, open } = await ownerAndFollower();
    const third = open();
    await showing(third.owner, READY);
    first.owner.report(RINGING);
    await Promise.all([showing(second.owner, RINGING), showing(third.owner, RINGING)]);
    first.owner.report(ON_CALL);
    await Promise.all([showing(second.owner, ON_CALL), showing(third.owner, ON_CALL)]);
  });

  it('a follower’s own reports go nowhere', async () => {
    const { first, second, open } = await ownerAndFollower();
    second.owner.report({ phone: 'idle', activity: 'afterCall' });
    // A third tab asks and hears only the owner.
    const third = open();
    expect(await showing(third.owner, READY)).toEqual({ state: 'follower', owner: READY });
    expect(first.owner.getSnapshot().owner).toBeNull();
  });

  it('if the browser refuses the lock, the tab owns the phone and logs why', async () => {
    const refusing: TabLocks = {
      request: () => Promise.reject(new DOMException('no locks here', 'SecurityError')),
    };
    const tab = newTab({ locks: refusing, openChannel: () => null }, new FakeClock());
    tab.owner.start(USER_ID);
    await inState(tab.owner, 'owner');
    expect(tab.errors).toEqual(['The phone lock failed: SecurityError: no locks here']);
  });
});

describe('PhoneOwner: hand-over', () => {
  it('closing the owner’s tab gives the phone to the waiting tab', async () => {
    const { fake, first, second } = await ownerAndFollower();
    first.tab.close();
    expect(await inState(second.owner, 'owner')).toEqual({ state: 'owner', owner: null });
    expect(fake.holderOf(LOCK)).toBe(second.tab);
  });

  it('with three tabs the oldest waiting one gets it, and the third shows the new owner', async () => {
    const { first, second, open } = await ownerAndFollower();
    const third = open();
    await showing(third.owner, READY);
    first.tab.close();
    await inState(second.owner, 'owner');
    second.owner.report({ phone: 'connecting', activity: 'waiting' });
    await showing(third.owner, { phone: 'connecting', activity: 'waiting' });
    expect(third.owner.state).toBe('follower');
  });

  it('stop() as the owner (log out, unmount) hands the phone on', async () => {
    const { fake, first, second } = await ownerAndFollower();
    first.owner.stop();
    expect(first.owner.getSnapshot()).toEqual({ state: 'stopped', owner: null });
    await inState(second.owner, 'owner');
    expect(fake.holderOf(LOCK)).toBe(second.tab);
  });

  it('stop() as a follower withdraws its wait', async () => {
    const { fake, first, second } = await ownerAndFollower();
    second.owner.stop();
    expect(second.owner.getSnapshot()).toEqual({ state: 'stopped', owner: null });
    expect(fake.waitingFor(LOCK)).toBe(0);
    first.tab.close();
    expect(fake.holderOf(LOCK)).toBeNull();
  });

  it('stopped and started again (React’s strict effects) ends owning the phone', async () => {
    const { fake, open } = browser();
    const tab = open();
    tab.owner.stop();
    tab.owner.start(USER_ID);
    await inState(tab.owner, 'owner');
    expect(fake.holderOf(LOCK)).toBe(tab.tab);
    expect(fake.waitingFor(LOCK)).toBe(0);
  });

  it('starting twice is a bug', async () => {
    const { open } = browser();
    const tab = open();
    expect(() => tab.owner.start(USER_ID)).toThrow(
      'The phone owner cannot handle "start" in the "electing" state.',
    );
    await inState(tab.owner, 'owner');
  });
});

describe('PhoneOwner: taking over', () => {
  it('"Use phone here" takes the phone; the old owner follows and shows the new one', async () => {
    const { fake, first, second } = await ownerAndFollower();
    second.owner.takeOver();
    expect(second.owner.getSnapshot()).toEqual({ state: 'takingOver', owner: READY });
    await inState(second.owner, 'owner');
    expect(fake.holderOf(LOCK)).toBe(second.tab);
    await inState(first.owner, 'follower');
    second.owner.report({ phone: 'connecting', activity: 'waiting' });
    await showing(first.owner, { phone: 'connecting', activity: 'waiting' });
    second.owner.report(READY);
    await showing(first.owner, READY);
    // The old owner waits in the queue again: it gets the phone back when this tab closes.
    expect(fake.waitingFor(LOCK)).toBe(1);
    second.tab.close();
    await inState(first.owner, 'owner');
  });

  it('the new owner’s state wins over a late report of the old owner', async () => {
    const { clock, first, second, open } = await ownerAndFollower();
    const third = open();
    await showing(third.owner, READY);
    second.owner.takeOver();
    await inState(second.owner, 'owner');
    second.owner.report({ phone: 'connecting', activity: 'waiting' });
    await showing(third.owner, { phone: 'connecting', activity: 'waiting' });
    const reports = shown(third.owner);
    // The old owner's message (its term is older), sent before it learnt it lost the phone,
    // arrives late.
    const late = first.tab.openChannel(`leadline-phone-${USER_ID}`);
    late.post({ type: 'state', term: clock.now() - 1, phone: 'ready', activity: 'onCall' });
    second.owner.report(READY);
    expect(await showing(third.owner, READY)).toEqual({ state: 'follower', owner: READY });
    expect(reports).toEqual([READY]);
  });

  it('does nothing unless this tab follows', async () => {
    const { fake, first } = await ownerAndFollower();
    first.owner.takeOver();
    expect(first.owner.state).toBe('owner');
    expect(fake.holderOf(LOCK)).toBe(first.tab);
  });

  it('a failed steal leaves the tab following (and waiting)', async () => {
    const { fake, open, first } = await ownerAndFollower();
    const refusingSteal = (tab: FakeTab): BrowserTabs => ({
      locks: {
        request: (name, options, hold) =>
          options.steal
            ? Promise.reject(new Error('steal refused'))
            : tab.locks.request(name, options, hold),
      },
      openChannel: (name) => tab.openChannel(name),
    });
    const third = open(refusingSteal);
    await showing(third.owner, READY);
    third.owner.takeOver();
    await inState(third.owner, 'follower');
    expect(third.errors).toEqual(['Taking the phone failed: steal refused']);
    expect(fake.holderOf(LOCK)).toBe(first.tab);
    expect(fake.waitingFor(LOCK)).toBe(2);
  });
});

describe('PhoneOwner: logging out', () => {
  it('tells this user’s other tabs, not itself; they leave the election', async () => {
    const { first, second, open } = await ownerAndFollower();
    const third = open();
    await showing(third.owner, READY);
    const heard: string[] = [];
    first.owner.onLoggedOut(() => heard.push('first'));
    third.owner.onLoggedOut(() => heard.push('third'));
    const secondHeard = new Promise<void>((resolve) => second.owner.onLoggedOut(resolve));
    first.owner.announceLogout();
    await secondHeard;
    await until(third.owner, () => heard.includes('third'));
    expect(heard).toEqual(['third']);
    expect(second.owner.state).toBe('stopped');
    expect(third.owner.state).toBe('stopped');
    expect(first.owner.state).toBe('owner');
  });

  it('ignores messages that are not its own', async () => {
    const { fake, clock, first, second } = await ownerAndFollower();
    const reports = shown(second.owner);
    const stranger = fake.openTab().openChannel(`leadline-phone-${USER_ID}`);
    const later = clock.now() + 1;
    for (const message of [
      null,
      'state',
      { type: 'state', term: later, phone: 'ringing', activity: 'waiting' },
      { type: 'state', term: later, phone: 'ready', activity: 'dancing' },
      { type: 'state', term: Number.NaN, phone: 'ready', activity: 'waiting' },
      { type: 'state', term: 'late', phone: 'ready', activity: 'waiting' },
      { type: 'hello' },
    ]) {
      stranger.post(message);
    }
    // Then the owner's next report, which arrives after them.
    first.owner.report(ON_CALL);
    await showing(second.owner, ON_CALL);
    expect(reports).toEqual([ON_CALL]);
  });
});
