import { describe, expect, it } from 'vitest';
import type { CallType } from '@leadline/contracts';
import { demoCallUser } from '../test-support/fake-api';
import {
  CONSOLE_ACTIONS,
  NO_INPUT,
  actionForKey,
  actionsOf,
  ariaKeyShortcuts,
  getAction,
  keyHint,
  matchesKey,
  type ActionContext,
  type ActionName,
  type KeyPress,
} from './actions';
import { followUpsOf } from './call-rules';
import type { ConsoleCommands } from './console-controller';
import {
  CONSOLE_VIEWS,
  INITIAL_CONSOLE_STATE,
  type ConsoleState,
  type ConsoleView,
} from './console-machine';

/** Commands that record what was asked of them, as `name` or `name(argument)`. */
class RecordingCommands implements ConsoleCommands {
  readonly performed: string[] = [];
  accept = () => void this.performed.push('accept');
  ignore = () => void this.performed.push('ignore');
  toggleMute = () => void this.performed.push('toggleMute');
  toggleHold = () => {
    this.performed.push('toggleHold');
    return Promise.resolve();
  };
  togglePanel = (panel: string) => void this.performed.push(`togglePanel(${panel})`);
  sendDigit = (digit: string) => void this.performed.push(`sendDigit(${digit})`);
  hangUp = () => void this.performed.push('hangUp');
  dispose = (status: string) => {
    this.performed.push(`dispose(${status})`);
    return Promise.resolve();
  };
  addNote = () => void this.performed.push('addNote');
  done = () => void this.performed.push('done');
  saveNote = (content: string) => {
    this.performed.push(`saveNote(${content})`);
    return Promise.resolve();
  };
  skipNote = () => void this.performed.push('skipNote');
  skipTags = () => void this.performed.push('skipTags');
  chooseTag = (key: string) => {
    this.performed.push(`chooseTag(${key})`);
    return Promise.resolve();
  };
  chooseSms = () => void this.performed.push('chooseSms');
  sendSms = (text: string) => {
    this.performed.push(`sendSms(${text})`);
    return Promise.resolve();
  };
  cancelSms = () => void this.performed.push('cancelSms');
  retry = () => {
    this.performed.push('retry');
    return Promise.resolve();
  };
  checkForLead = () => {
    this.performed.push('checkForLead');
    return Promise.resolve();
  };
}

function contextIn(
  view: ConsoleView,
  overrides: Partial<ConsoleState> = {},
  note = '',
): ActionContext & { commands: RecordingCommands } {
  const loaded = demoCallUser();
  return {
    state: {
      ...INITIAL_CONSOLE_STATE,
      view,
      call: {
        callSid: 'CA1',
        callUserId: 42,
        call: loaded.call,
        type: loaded.type,
        autoaccept: false,
      },
      ...overrides,
    },
    commands: new RecordingCommands(),
    input: { text: note },
  };
}

function press(key: string, extra: Partial<KeyPress> = {}): KeyPress {
  return {
    key,
    ctrlKey: false,
    metaKey: false,
    altKey: false,
    repeat: false,
    target: null,
    ...extra,
  };
}

/** Which actions each view offers (spec section 2, this cut). */
const EXPECTED_ACTIONS: Record<ConsoleView, ActionName[]> = {
  login: [],
  waiting: [],
  ringing: ['accept', 'ignore'],
  dialing: ['cancelDial'],
  oncall: [
    'toggleHold',
    'toggleTransfer',
    'toggleAddLead',
    'toggleKeypad',
    'toggleConference',
    'toggleAudio',
    'toggleMute',
    'hangUp',
  ],
  disposition: ['contacted', 'voicemail', 'missed', 'removed', 'retry', 'chooseSms'],
  disposition2: ['skipTags'],
  sms: ['sendSms', 'cancelSms'],
  thankyou: ['addNote', 'done'],
  note: ['skipNote', 'saveNote'],
};

describe('console actions', () => {
  it.each(CONSOLE_VIEWS.map((v) => [v]))('%s offers its actions', (view) => {
    expect(actionsOf(view).map((a) => a.name)).toEqual(EXPECTED_ACTIONS[view]);
  });

  it('never binds one key twice in a view, nor across views that follow each other', () => {
    for (const view of CONSOLE_VIEWS) {
      const keys = actionsOf(view).map((a) => keyHint(a.key));
      expect(new Set(keys).size).toBe(keys.length);
    }
    const following: [ConsoleView, ConsoleView][] = [
      ['ringing', 'oncall'],
      ['dialing', 'oncall'],
      ['dialing', 'disposition'],
      ['oncall', 'disposition'],
      ['oncall', 'thankyou'],
      ['disposition', 'thankyou'],
      ['disposition', 'sms'],
      ['disposition', 'disposition2'],
      ['sms', 'thankyou'],
      ['disposition2', 'thankyou'],
      ['thankyou', 'note'],
    ];
    for (const [from, to] of following) {
      const before = new Set(actionsOf(from).map((a) => keyHint(a.key)));
      expect(actionsOf(to).filter((a) => before.has(keyHint(a.key)))).toEqual([]);
    }
  });

  it('each action is enabled only in its own view', () => {
    for (const action of CONSOLE_ACTIONS) {
      for (const view of CONSOLE_VIEWS) {
        const base = contextIn(view, { followUps: followUpsOf(['app-sms', 'app-retry']) }, 'text');
        const call = base.state.call;
        // Add Lead is for a call that has no lead yet.
        const context =
          action.name === 'toggleAddLead' && call
            ? {
                ...base,
                state: {
                  ...base.state,
                  call: { ...call, call: { ...call.call, lead: null, lead_id: null } },
                },
              }
            : base;
        const enabled = action.predicate(context);
        expect(enabled, `${action.name} in ${view}`).toBe(view === action.view);
      }
    }
  });

  it.each([
    [[], false, false],
    [['app-sms'], false, true],
    [['app-retry'], true, false],
    [['app-sms', 'app-retry'], true, true],
  ] as const)(
    'with %j: Retry shown %s, SMS shown %s (and runnable only when shown)',
    (permissions, retry, sms) => {
      const context = contextIn('disposition', { followUps: followUpsOf([...permissions]) });
      for (const [name, shown] of [
        ['retry', retry],
        ['chooseSms', sms],
      ] as const) {
        const action = getAction(name);
        expect(action.visible?.(context.state), name).toBe(shown);
        expect(action.predicate(context), name).toBe(shown);
      }
    },
  );

  it('Retry is hidden for a call without a lead', () => {
    const context = contextIn('disposition', { followUps: followUpsOf(['app-retry']) });
    const call = context.state.call!;
    const state = { ...context.state, call: { ...call, call: { ...call.call, lead: null } } };
    expect(getAction('retry').visible?.(state)).toBe(false);
  });

  it('Send needs text; it sends the trimmed text', () => {
    const send = getAction('sendSms');
    expect(send.predicate(contextIn('sms', {}, '   '))).toBe(false);
    const context = contextIn('sms', {}, '  See you soon  ');
    expect(send.predicate(context)).toBe(true);
    void send.perform(context);
    expect(context.commands.performed).toEqual(['sendSms(See you soon)']);
  });

  it('Mute is disabled on a listen call and labelled Mute / Muted', () => {
    const mute = getAction('toggleMute');
    const listen = contextIn('oncall');
    const listenState = {
      ...listen.state,
      call: listen.state.call && { ...listen.state.call, type: 'listen' as const },
    };
    expect(mute.predicate({ ...listen, state: listenState })).toBe(false);
    expect(mute.label({ ...listen.state, muted: false })).toBe('Mute');
    expect(mute.label({ ...listen.state, muted: true })).toBe('Muted');
    expect(mute.pressed?.({ ...listen.state, muted: true })).toBe(true);
  });

  /** An on-call context whose call is of `type`, with or without a lead. */
  function onCall(type: CallType, withLead = true, overrides: Partial<ConsoleState> = {}) {
    const context = contextIn('oncall', overrides);
    const call = context.state.call!;
    const state: ConsoleState = {
      ...context.state,
      call: {
        ...call,
        type,
        call: { ...call.call, ...(withLead ? {} : { lead: null, lead_id: null }) },
      },
    };
    return { ...context, state };
  }

  const shown = (name: ActionName, context: ActionContext) => ({
    visible: getAction(name).visible?.(context.state) ?? true,
    enabled: getAction(name).predicate(context),
  });

  it.each([
    // type, has a lead, Hold and Transfer, Keypad, Mute enabled, Add Lead
    ['lead', true, true, true, true, false],
    ['lead', false, false, true, true, true],
    ['transfer', true, true, true, true, false],
    ['conference', true, true, true, true, false],
    ['conference', false, false, true, true, true],
    ['barge', true, true, true, true, false],
    ['listen', true, false, false, false, false],
    ['whisper', true, false, false, true, false],
    ['whisper', false, false, false, true, true],
  ] as const)(
    'a %s call (lead: %s): Hold/Resume and Transfer shown %s, Keypad shown %s, Mute enabled %s, Add Lead shown %s',
    (type, withLead, hold, keypad, mute, addLead) => {
      const context = onCall(type, withLead);
      expect(shown('toggleHold', context)).toEqual({ visible: hold, enabled: hold });
      expect(shown('toggleTransfer', context)).toEqual({ visible: hold, enabled: hold });
      expect(shown('toggleAddLead', context)).toEqual({ visible: addLead, enabled: addLead });
      expect(shown('toggleKeypad', context)).toEqual({ visible: keypad, enabled: keypad });
      // Adding an agent: not from a listen or whisper call, like the keypad.
      expect(shown('toggleConference', context)).toEqual({ visible: keypad, enabled: keypad });
      expect(shown('toggleMute', context)).toEqual({ visible: true, enabled: mute });
      // A hidden action's shortcut does nothing.
      expect(actionForKey(CONSOLE_ACTIONS, press('o'), context)?.name).toBe(
        hold ? 'toggleHold' : undefined,
      );
      expect(actionForKey(CONSOLE_ACTIONS, press('k'), context)?.name).toBe(
        keypad ? 'toggleKeypad' : undefined,
      );
    },
  );

  it('Hold is labelled Hold / Resume and pressed while held; Keypad pressed while open', () => {
    const hold = getAction('toggleHold');
    expect(hold.label(onCall('lead').state)).toBe('Hold');
    expect(hold.label(onCall('lead', true, { held: true }).state)).toBe('Resume');
    expect(hold.pressed?.(onCall('lead', true, { held: true }).state)).toBe(true);
    expect(hold.pressed?.(onCall('lead').state)).toBe(false);
    const keypad = getAction('toggleKeypad');
    expect(keypad.pressed?.(onCall('lead', true, { panel: 'keypad' }).state)).toBe(true);
    expect(keypad.pressed?.(onCall('lead').state)).toBe(false);
    expect([keyHint(hold.key), keyHint(keypad.key)]).toEqual(['O', 'K']);
  });

  it('Hang Up while dialing is Escape and labelled Hang Up', () => {
    const cancel = getAction('cancelDial');
    expect(cancel.label(contextIn('dialing').state)).toBe('Hang Up');
    expect(keyHint(cancel.key)).toBe('Escape');
    expect(actionForKey(CONSOLE_ACTIONS, press('Escape'), contextIn('dialing'))?.name).toBe(
      'cancelDial',
    );
  });

  it('Save needs a non-blank note and saves it trimmed', async () => {
    const save = getAction('saveNote');
    expect(save.predicate(contextIn('note', {}, ''))).toBe(false);
    expect(save.predicate(contextIn('note', {}, '   \n'))).toBe(false);
    const context = contextIn('note', {}, '  Call back Tuesday  ');
    expect(save.predicate(context)).toBe(true);
    await save.perform(context);
    expect(context.commands.performed).toEqual(['saveNote(Call back Tuesday)']);
  });

  it.each([
    ['contacted', 'contacted'],
    ['voicemail', 'voicemail'],
    ['missed', 'missed'],
    ['removed', 'removed'],
  ] as const)('%s records disposition %s', async (name, status) => {
    const context = contextIn('disposition');
    await getAction(name).perform(context);
    expect(context.commands.performed).toEqual([`dispose(${status})`]);
  });

  it.each([
    ['accept', 'accept'],
    ['ignore', 'ignore'],
    ['toggleMute', 'toggleMute'],
    ['toggleHold', 'toggleHold'],
    ['toggleKeypad', 'togglePanel(keypad)'],
    ['toggleTransfer', 'togglePanel(transfer)'],
    ['toggleConference', 'togglePanel(conference)'],
    ['hangUp', 'hangUp'],
    ['cancelDial', 'hangUp'],
    ['addNote', 'addNote'],
    ['done', 'done'],
    ['skipNote', 'skipNote'],
    ['skipTags', 'skipTags'],
    ['cancelSms', 'cancelSms'],
  ] as const)('%s performs %s', async (name, command) => {
    const context = contextIn(getAction(name).view);
    await getAction(name).perform(context);
    expect(context.commands.performed).toEqual([command]);
  });
});

describe('shortcuts', () => {
  it('shows and announces the keys', () => {
    expect(keyHint(getAction('accept').key)).toBe('A');
    expect(ariaKeyShortcuts(getAction('accept').key)).toBe('a');
    expect(keyHint(getAction('saveNote').key)).toBe('Ctrl+Enter');
    expect(ariaKeyShortcuts(getAction('saveNote').key)).toBe('Control+Enter Meta+Enter');
  });

  it('matches letters in either case, without modifiers', () => {
    const binding = getAction('accept').key;
    expect(matchesKey(binding, press('a'))).toBe(true);
    expect(matchesKey(binding, press('A'))).toBe(true);
    expect(matchesKey(binding, press('a', { ctrlKey: true }))).toBe(false);
    expect(matchesKey(binding, press('a', { altKey: true }))).toBe(false);
    expect(matchesKey(binding, press('b'))).toBe(false);
  });

  it('ignores a held key', () => {
    expect(matchesKey(getAction('hangUp').key, press('h', { repeat: true }))).toBe(false);
  });

  it('lets typing in a text field alone, but not Ctrl/⌘+Enter', () => {
    const textarea = document.createElement('textarea');
    const input = document.createElement('input');
    expect(matchesKey(getAction('skipNote').key, press('s', { target: textarea }))).toBe(false);
    expect(matchesKey(getAction('accept').key, press('a', { target: input }))).toBe(false);
    expect(
      matchesKey(getAction('saveNote').key, press('Enter', { target: textarea, ctrlKey: true })),
    ).toBe(true);
    expect(
      matchesKey(getAction('saveNote').key, press('Enter', { target: textarea, metaKey: true })),
    ).toBe(true);
    expect(matchesKey(getAction('saveNote').key, press('Enter', { target: textarea }))).toBe(false);
    expect(
      matchesKey(
        getAction('skipNote').key,
        press('s', { target: document.createElement('button') }),
      ),
    ).toBe(true);
  });

  it('picks the action of the key that can run now', () => {
    const ringing = contextIn('ringing');
    expect(actionForKey(CONSOLE_ACTIONS, press('a'), ringing)?.name).toBe('accept');
    expect(actionForKey(CONSOLE_ACTIONS, press('a'), contextIn('thankyou'))?.name).toBe('addNote');
    expect(actionForKey(CONSOLE_ACTIONS, press('h'), ringing)).toBeUndefined();
    expect(
      actionForKey(actionsOf('note'), press('Enter', { ctrlKey: true }), contextIn('note', {}, '')),
    ).toBeUndefined();
  });

  it('needs no input for most actions', () => {
    expect(NO_INPUT).toEqual({ text: '' });
  });
});
