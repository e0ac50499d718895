import { describe, expect, it } from 'vitest';
import { demoCallUser } from '../test-support/fake-api';
import { CALL_ENDED_BANNER } from '../constants';
import { NO_FOLLOW_UPS, callStatusText, followUpsOf, type ConsoleCall } from './call-rules';
import {
  APP_STATUS_BY_VIEW,
  CONSOLE_EVENT_TYPES,
  CONSOLE_VIEWS,
  ConsoleTransitionError,
  INITIAL_CONSOLE_STATE,
  canTransition,
  transition,
  type ConsoleEvent,
  type ConsoleEventType,
  type ConsoleState,
  type ConsoleView,
} from './console-machine';

function consoleCall(options: Parameters<typeof demoCallUser>[0] = {}): ConsoleCall {
  const loaded = demoCallUser(options);
  return {
    callSid: 'CA1',
    callUserId: 42,
    call: loaded.call,
    type: loaded.type,
    autoaccept: loaded.autoaccept,
  };
}

/** One example of every event. */
const EVENTS: Record<ConsoleEventType, ConsoleEvent> = {
  userMissing: { type: 'userMissing' },
  loggedOut: { type: 'loggedOut' },
  incoming: {
    type: 'incoming',
    call: consoleCall(),
    banner: 'Incoming Lead!',
    followUps: NO_FOLLOW_UPS,
  },
  dial: { type: 'dial', call: consoleCall(), followUps: NO_FOLLOW_UPS },
  accept: { type: 'accept', atMs: 5_000 },
  ignore: { type: 'ignore' },
  cancel: { type: 'cancel' },
  mute: { type: 'mute', muted: true },
  hold: { type: 'hold', held: true },
  panel: { type: 'panel', panel: 'keypad' },
  digit: { type: 'digit', digit: '5' },
  digitRefused: {
    type: 'digitRefused',
    message: 'Could not send DTMF: Signaling channel is disconnected',
  },
  role: { type: 'role', role: 'whisper' },
  conferenced: { type: 'conferenced' },
  leadAdded: { type: 'leadAdded', lead: demoCallUser().call.lead! },
  reconnecting: { type: 'reconnecting', atMs: 9_000 },
  reconnected: { type: 'reconnected' },
  qualityWarning: { type: 'qualityWarning', name: 'high-jitter' },
  qualityWarningCleared: { type: 'qualityWarningCleared', name: 'high-jitter' },
  disconnect: { type: 'disconnect' },
  dispose: { type: 'dispose', status: 'contacted' },
  smsChosen: { type: 'smsChosen' },
  retry: { type: 'retry' },
  notice: { type: 'notice', text: 'No leads waiting.' },
  tagChosen: { type: 'tagChosen' },
  tagsSkipped: { type: 'tagsSkipped' },
  smsSent: { type: 'smsSent' },
  smsCancelled: { type: 'smsCancelled' },
  addNote: { type: 'addNote' },
  done: { type: 'done' },
  autoReset: { type: 'autoReset' },
  saveNote: { type: 'saveNote' },
  skipNote: { type: 'skipNote' },
  connectionError: { type: 'connectionError' },
  phoneError: { type: 'phoneError' },
};

const RESETS = { loggedOut: 'login', connectionError: 'waiting', phoneError: 'waiting' } as const;

/**
 * The expected flow, written out independently of the table (spec section 4). Every pair not
 * listed must be refused. In `oncall`, `disconnect` is for an outbound lead call.
 */
const EXPECTED: Record<ConsoleView, Partial<Record<ConsoleEventType, ConsoleView>>> = {
  login: {},
  waiting: {
    ...RESETS,
    userMissing: 'login',
    incoming: 'ringing',
    dial: 'dialing',
    notice: 'waiting',
  },
  // Spec section 9's warnings may come before the far end answers (the official SDK measures
  // from the start); the dialing view keeps them for the call.
  dialing: {
    ...RESETS,
    accept: 'oncall',
    disconnect: 'disposition',
    qualityWarning: 'dialing',
    qualityWarningCleared: 'dialing',
  },
  ringing: {
    ...RESETS,
    accept: 'oncall',
    ignore: 'waiting',
    cancel: 'waiting',
    disconnect: 'waiting',
  },
  oncall: {
    ...RESETS,
    mute: 'oncall',
    hold: 'oncall',
    panel: 'oncall',
    digit: 'oncall',
    digitRefused: 'oncall',
    role: 'oncall',
    conferenced: 'oncall',
    leadAdded: 'oncall',
    reconnecting: 'oncall',
    reconnected: 'oncall',
    qualityWarning: 'oncall',
    qualityWarningCleared: 'oncall',
    disconnect: 'disposition',
  },
  // Without app-sms and app-retry (see the branches below for them).
  disposition: { ...RESETS, dispose: 'thankyou' },
  disposition2: { ...RESETS, tagChosen: 'thankyou', tagsSkipped: 'thankyou' },
  sms: { ...RESETS, smsSent: 'thankyou', smsCancelled: 'thankyou' },
  thankyou: { ...RESETS, addNote: 'note', done: 'waiting', autoReset: 'waiting' },
  note: { ...RESETS, saveNote: 'waiting', skipNote: 'waiting' },
};

function stateIn(view: ConsoleView, call: ConsoleCall | null = consoleCall()): ConsoleState {
  const hasCall = view !== 'login' && view !== 'waiting';
  return {
    ...INITIAL_CONSOLE_STATE,
    view,
    epoch: 3,
    call: hasCall ? call : null,
    connectedAtMs: view === 'oncall' ? 1_000 : null,
  };
}

describe('console machine: states and events', () => {
  it('has exactly the spec view states, derived from the table', () => {
    expect([...CONSOLE_VIEWS].sort()).toEqual(
      [
        'dialing',
        'disposition',
        'disposition2',
        'login',
        'note',
        'oncall',
        'ringing',
        'sms',
        'thankyou',
        'waiting',
      ].sort(),
    );
  });

  it('lists every event', () => {
    expect([...CONSOLE_EVENT_TYPES].sort()).toEqual(Object.keys(EVENTS).sort());
  });

  it('starts waiting with nothing going on', () => {
    expect(INITIAL_CONSOLE_STATE).toEqual({
      view: 'waiting',
      epoch: 0,
      call: null,
      banner: null,
      muted: false,
      held: false,
      panel: null,
      digits: '',
      keypadError: null,
      reconnectingSinceMs: null,
      qualityWarnings: [],
      connectedAtMs: null,
      autoReset: false,
      followUps: NO_FOLLOW_UPS,
      notice: null,
    });
  });
});

describe.each(CONSOLE_VIEWS.map((view) => [view]))('in %s', (view) => {
  const allowed = CONSOLE_EVENT_TYPES.filter((type) => EXPECTED[view][type] !== undefined);
  const refused = CONSOLE_EVENT_TYPES.filter((type) => EXPECTED[view][type] === undefined);

  if (allowed.length > 0) {
    it.each(allowed.map((type) => [type, EXPECTED[view][type]]))('%s → %s', (type, expected) => {
      const state = stateIn(view);
      expect(canTransition(state, type)).toBe(true);
      expect(transition(state, EVENTS[type]).view).toBe(expected);
    });
  }

  it.each(refused.map((type) => [type]))('refuses %s', (type) => {
    const state = stateIn(view);
    expect(canTransition(state, type)).toBe(false);
    let thrown: unknown;
    try {
      transition(state, EVENTS[type]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConsoleTransitionError);
    expect(thrown).toMatchObject({ view, event: type, code: 9001, name: 'IllegalTransitionError' });
  });
});

describe('console machine: where a call goes when it ends', () => {
  it.each([
    ['an inbound call', consoleCall({ call: { direction: 'inbound' } }), 'thankyou'],
    ['a listen call', consoleCall({ type: 'listen' }), 'thankyou'],
    ['a whisper call', consoleCall({ type: 'whisper' }), 'thankyou'],
    ['an outbound lead call', consoleCall(), 'disposition'],
    ['a transfer', consoleCall({ type: 'transfer' }), 'disposition'],
    ['a conference', consoleCall({ type: 'conference' }), 'disposition'],
    ['a barge call', consoleCall({ type: 'barge' }), 'disposition'],
  ] as const)('%s goes to %s', (_name, call, expected) => {
    const next = transition(stateIn('oncall', call), { type: 'disconnect' });
    expect(next.view).toBe(expected);
    expect(next.banner).toBe(CALL_ENDED_BANNER);
    expect(next.autoReset).toBe(expected === 'thankyou');
    expect(next.call).toBe(call);
  });
});

describe('console machine: state carried along', () => {
  it('incoming stores the call and banner and starts a new epoch', () => {
    const event = EVENTS.incoming;
    const next = transition(INITIAL_CONSOLE_STATE, event);
    expect(next).toMatchObject({
      view: 'ringing',
      epoch: 1,
      banner: 'Incoming Lead!',
      muted: false,
    });
    expect(next.call).toBe(event.type === 'incoming' ? event.call : null);
  });

  it("dial stores the call, shows 'Dialing...' and starts a new epoch", () => {
    const event = EVENTS.dial;
    const next = transition(INITIAL_CONSOLE_STATE, event);
    expect(next).toMatchObject({ view: 'dialing', epoch: 1, banner: 'Dialing...', muted: false });
    expect(next.connectedAtMs).toBeNull();
    expect(next.call).toBe(event.type === 'dial' ? event.call : null);
  });

  it("the far end answering a dialled call starts the timer and clears 'Dialing...'", () => {
    const dialing = transition(INITIAL_CONSOLE_STATE, EVENTS.dial);
    expect(transition(dialing, { type: 'accept', atMs: 7_000 })).toMatchObject({
      view: 'oncall',
      connectedAtMs: 7_000,
      banner: null,
      epoch: dialing.epoch,
    });
  });

  it("a dialled call that ends unanswered shows 'Call Ended' and asks for the result", () => {
    const dialing = transition(INITIAL_CONSOLE_STATE, EVENTS.dial);
    expect(transition(dialing, { type: 'disconnect' })).toMatchObject({
      view: 'disposition',
      banner: 'Call Ended',
      autoReset: false,
    });
  });

  it('accept records when the call was answered and clears the ringing banner', () => {
    const ringing = { ...stateIn('ringing'), banner: 'Incoming Lead!' };
    expect(transition(ringing, { type: 'accept', atMs: 42_000 })).toMatchObject({
      view: 'oncall',
      connectedAtMs: 42_000,
      banner: null,
    });
  });

  it('mute follows the event and is a no-op when nothing changes', () => {
    const oncall = stateIn('oncall');
    const muted = transition(oncall, { type: 'mute', muted: true });
    expect(muted.muted).toBe(true);
    expect(transition(muted, { type: 'mute', muted: true })).toBe(muted);
    expect(transition(muted, { type: 'mute', muted: false }).muted).toBe(false);
  });

  it('hold follows what the server said and is a no-op when nothing changes', () => {
    const oncall = stateIn('oncall');
    const held = transition(oncall, { type: 'hold', held: true });
    expect(held.held).toBe(true);
    expect(transition(held, { type: 'hold', held: true })).toBe(held);
    expect(transition(held, { type: 'hold', held: false }).held).toBe(false);
  });

  it.each([
    ['listen', 65_000],
    ['whisper', 65_000],
    ['barge', 65_000],
    ['lead', 0],
    ['transfer', 0],
    ['conference', 0],
  ] as const)('a %s call accepted 65 s into the call starts its timer %i ms back', (type, back) => {
    const call = consoleCall({ type, call: { seconds_since_started_at: 65 } });
    const next = transition(stateIn('ringing', call), { type: 'accept', atMs: 100_000 });
    expect(next.connectedAtMs).toBe(100_000 - back);
  });

  it('a call accepted while its lead is on hold starts held', () => {
    const call = consoleCall({ call: { held: true } });
    expect(transition(stateIn('ringing', call), { type: 'accept', atMs: 1 }).held).toBe(true);
    expect(transition(stateIn('ringing'), { type: 'accept', atMs: 1 }).held).toBe(false);
  });

  it('the keypad panel opens and closes; digits are kept in the order sent', () => {
    const open = transition(stateIn('oncall'), { type: 'panel', panel: 'keypad' });
    expect(open.panel).toBe('keypad');
    const typed = ['1', '2', '#'].reduce(
      (state, digit) => transition(state, { type: 'digit', digit }),
      open,
    );
    expect(typed.digits).toBe('12#');
    expect(transition(typed, { type: 'panel', panel: null })).toMatchObject({
      panel: null,
      digits: '12#',
    });
  });

  it('a refused digit is not listed and says why, until a digit goes out or the panel changes', () => {
    const open = transition(stateIn('oncall'), { type: 'panel', panel: 'keypad' });
    const sent = transition(open, { type: 'digit', digit: '1' });
    const message = 'Could not send DTMF: Signaling channel is disconnected';
    const refused = transition(sent, { type: 'digitRefused', message });
    expect(refused).toMatchObject({ digits: '1', keypadError: message });
    expect(transition(refused, { type: 'digit', digit: '2' })).toMatchObject({
      digits: '12',
      keypadError: null,
    });
    expect(transition(refused, { type: 'panel', panel: null }).keypadError).toBeNull();
  });

  it('a conference request that succeeded closes the panel and labels the call Conference', () => {
    const state = { ...stateIn('oncall'), panel: 'conference' as const };
    const next = transition(state, { type: 'conferenced' });
    expect(next.panel).toBeNull();
    expect(callStatusText(next.call, next.held)).toBe('Conference');
    expect(callStatusText(state.call, state.held)).toBe('On call');
  });

  it('a lead added to a call without one fills the call’s lead and closes Add Lead', () => {
    const bare = consoleCall({ call: { lead: null, lead_id: null } });
    const state = { ...stateIn('oncall', bare), panel: 'addLead' as const };
    const lead = { ...demoCallUser().call.lead!, id: 777, label: 'Ana Ruiz' };
    const next = transition(state, { type: 'leadAdded', lead });
    expect(next.call?.call.lead).toEqual(lead);
    expect(next.call?.call.lead_id).toBe(777);
    expect(next.panel).toBeNull();
    expect(next.call?.callSid).toBe(bare.callSid);
  });

  it('a supervisor moving from listen to whisper to barge changes the call user type', () => {
    const listen = stateIn('oncall', consoleCall({ type: 'listen' }));
    const whisper = transition(listen, { type: 'role', role: 'whisper' });
    expect(whisper.call?.type).toBe('whisper');
    expect(transition(whisper, { type: 'role', role: 'whisper' })).toBe(whisper);
    expect(transition(whisper, { type: 'role', role: 'barge' }).call?.type).toBe('barge');
    // Where the call goes when it ends follows the role it ends in.
    expect(transition(whisper, { type: 'disconnect' }).view).toBe('thankyou');
    expect(
      transition(transition(whisper, { type: 'role', role: 'barge' }), { type: 'disconnect' }).view,
    ).toBe('disposition');
  });

  it('reconnecting keeps when the outage began until reconnected', () => {
    const lost = transition(stateIn('oncall'), { type: 'reconnecting', atMs: 9_000 });
    expect(lost.reconnectingSinceMs).toBe(9_000);
    expect(transition(lost, { type: 'reconnecting', atMs: 9_500 })).toBe(lost);
    const back = transition(lost, { type: 'reconnected' });
    expect(back.reconnectingSinceMs).toBeNull();
    expect(transition(back, { type: 'reconnected' })).toBe(back);
    expect(transition(lost, { type: 'disconnect' }).reconnectingSinceMs).toBeNull();
  });

  it('quality warnings stand each once, in the order raised, until each clears', () => {
    const raise = (state: ConsoleState, name: string) =>
      transition(state, { type: 'qualityWarning', name });
    const clear = (state: ConsoleState, name: string) =>
      transition(state, { type: 'qualityWarningCleared', name });
    const jitter = raise(stateIn('oncall'), 'high-jitter');
    expect(jitter.qualityWarnings).toEqual(['high-jitter']);
    // Raised again while it stands: nothing changes.
    expect(raise(jitter, 'high-jitter')).toBe(jitter);
    const both = raise(jitter, 'constant-audio-input-level');
    expect(both.qualityWarnings).toEqual(['high-jitter', 'constant-audio-input-level']);
    const one = clear(both, 'high-jitter');
    expect(one.qualityWarnings).toEqual(['constant-audio-input-level']);
    // Cleared when not standing: nothing changes.
    expect(clear(one, 'high-jitter')).toBe(one);
    expect(clear(one, 'constant-audio-input-level').qualityWarnings).toEqual([]);
    expect(both).toMatchObject({ view: 'oncall', epoch: 3 });
  });

  it('a warning raised while dialing stands once the far end answers', () => {
    const dialing = transition(INITIAL_CONSOLE_STATE, EVENTS.dial);
    const warned = transition(dialing, { type: 'qualityWarning', name: 'high-rtt' });
    expect(warned).toMatchObject({ view: 'dialing', qualityWarnings: ['high-rtt'] });
    expect(transition(warned, { type: 'accept', atMs: 1 }).qualityWarnings).toEqual(['high-rtt']);
  });

  it("a call's end forgets its quality warnings", () => {
    const warned = transition(stateIn('oncall'), { type: 'qualityWarning', name: 'low-mos' });
    expect(transition(warned, { type: 'disconnect' }).qualityWarnings).toEqual([]);
  });

  it('a hang-up closes the panel and forgets the hold', () => {
    const state = { ...stateIn('oncall'), held: true, panel: 'keypad' as const };
    expect(transition(state, { type: 'disconnect' })).toMatchObject({ held: false, panel: null });
  });

  it('a hang-up stops the timer and clears mute', () => {
    const muted = transition(stateIn('oncall'), { type: 'mute', muted: true });
    expect(transition(muted, { type: 'disconnect' })).toMatchObject({
      muted: false,
      connectedAtMs: null,
    });
  });

  it.each([
    ['oncall', 'connectionError'],
    ['oncall', 'phoneError'],
    ['dialing', 'connectionError'],
    ['dialing', 'loggedOut'],
    ['ringing', 'cancel'],
    ['thankyou', 'done'],
    ['note', 'saveNote'],
    ['disposition', 'loggedOut'],
  ] as const)('cleanup from %s on %s clears the call, banner, timer and mute', (view, type) => {
    const state: ConsoleState = {
      ...stateIn(view),
      banner: 'Call Ended',
      muted: true,
      held: true,
      panel: 'keypad',
      digits: '12#',
      keypadError: 'Could not send DTMF: Signaling channel is disconnected',
      reconnectingSinceMs: 4_000,
      qualityWarnings: ['high-jitter', 'constant-audio-input-level'],
      autoReset: true,
      followUps: followUpsOf(['app-sms', 'app-retry']),
      notice: 'No leads waiting.',
    };
    const next = transition(state, EVENTS[type]);
    expect(next).toEqual({
      view: type === 'loggedOut' ? 'login' : 'waiting',
      epoch: state.epoch + 1,
      call: null,
      banner: null,
      muted: false,
      held: false,
      panel: null,
      digits: '',
      keypadError: null,
      reconnectingSinceMs: null,
      qualityWarnings: [],
      connectedAtMs: null,
      autoReset: false,
      followUps: NO_FOLLOW_UPS,
      notice: null,
    });
  });

  it('maps views to the app status', () => {
    expect(APP_STATUS_BY_VIEW).toEqual({
      login: 'login',
      waiting: 'waiting',
      ringing: 'waiting',
      dialing: 'waiting',
      oncall: 'oncall',
      disposition: 'oncall',
      disposition2: 'oncall',
      sms: 'oncall',
      thankyou: 'oncall',
      note: 'oncall',
    });
  });
});

const SMS_TEXT = "Sorry we couldn't reach you!";

describe('console machine: after the Call Result (spec section 4), per permission and profile', () => {
  const whispertext = (flag: boolean) =>
    consoleCall({
      call: { profile: { id: 12, is_deal_whispertext: flag, auto_answer: true, tags: [] } },
    });
  const inDisposition = (permissions: string[], call: ConsoleCall): ConsoleState => ({
    ...stateIn('disposition', call),
    followUps: followUpsOf(permissions),
  });

  it.each([
    // status, permissions, profile is_deal_whispertext, expected view
    ['voicemail', ['app-sms'], false, 'sms'],
    ['missed', ['app-sms'], false, 'sms'],
    ['voicemail', ['app-sms'], true, 'sms'],
    ['voicemail', [], false, 'thankyou'],
    ['missed', ['app-retry'], false, 'thankyou'],
    ['contacted', [], true, 'disposition2'],
    ['contacted', ['app-sms'], true, 'disposition2'],
    ['contacted', ['app-sms'], false, 'thankyou'],
    ['contacted', [], false, 'thankyou'],
    ['removed', ['app-sms', 'app-retry'], true, 'thankyou'],
    ['missed', [], true, 'thankyou'],
  ] as const)('%s with %j, whispertext %s → %s', (status, permissions, flag, expected) => {
    const state = inDisposition([...permissions], whispertext(flag));
    expect(transition(state, { type: 'dispose', status }).view).toBe(expected);
  });

  it('SMS (app-sms) goes to the SMS view without a result; refused without the permission', () => {
    expect(canTransition(inDisposition(['app-sms'], consoleCall()), 'smsChosen')).toBe(true);
    expect(transition(inDisposition(['app-sms'], consoleCall()), { type: 'smsChosen' }).view).toBe(
      'sms',
    );
    const without = inDisposition(['app-retry'], consoleCall());
    expect(canTransition(without, 'smsChosen')).toBe(false);
    expect(() => transition(without, { type: 'smsChosen' })).toThrow(ConsoleTransitionError);
  });

  it('Retry (app-retry) on a call with a lead goes to waiting, cleaned up', () => {
    const state = inDisposition(['app-retry'], consoleCall());
    expect(canTransition(state, 'retry')).toBe(true);
    const next = transition(state, { type: 'retry' });
    expect(next).toMatchObject({ view: 'waiting', call: null, epoch: state.epoch + 1 });
    expect(next.followUps).toEqual(NO_FOLLOW_UPS);
  });

  it('Retry is refused without app-retry, and on a call without a lead', () => {
    expect(canTransition(inDisposition(['app-sms'], consoleCall()), 'retry')).toBe(false);
    const noLead = consoleCall({ call: { lead: null, lead_id: null } });
    expect(canTransition(inDisposition(['app-retry'], noLead), 'retry')).toBe(false);
    expect(() => transition(inDisposition(['app-retry'], noLead), { type: 'retry' })).toThrow(
      ConsoleTransitionError,
    );
  });

  it('the follow-ups come with the call: incoming and dial store them, cleanup forgets them', () => {
    const rights = followUpsOf(['app-sms']);
    expect(rights).toEqual({ sms: true, retry: false, smsText: SMS_TEXT });
    expect(followUpsOf(['app-retry'])).toEqual({ sms: false, retry: true, smsText: '' });
    const rang = transition(INITIAL_CONSOLE_STATE, {
      type: 'incoming',
      call: consoleCall(),
      banner: 'Incoming Lead!',
      followUps: rights,
    });
    expect(rang.followUps).toBe(rights);
    const dialled = transition(INITIAL_CONSOLE_STATE, {
      type: 'dial',
      call: consoleCall(),
      followUps: rights,
    });
    expect(dialled.followUps).toBe(rights);
    expect(transition(rang, { type: 'ignore' }).followUps).toEqual(NO_FOLLOW_UPS);
  });

  it('a notice stays in the same waiting epoch and is cleared by the next call', () => {
    const waiting = stateIn('waiting');
    const noticed = transition(waiting, { type: 'notice', text: 'No leads waiting.' });
    expect(noticed).toMatchObject({
      view: 'waiting',
      epoch: waiting.epoch,
      notice: 'No leads waiting.',
    });
    const rang = transition(noticed, {
      type: 'incoming',
      call: consoleCall(),
      banner: 'Incoming Lead!',
      followUps: NO_FOLLOW_UPS,
    });
    expect(rang.notice).toBeNull();
  });
});
