/**
 * Issue 21, free text is inert everywhere (console side): every view that shows a free-text
 * field, with each hostile text of `test-support/hostile-text.ts`, shows exactly that text as
 * text (no element, no handler, no `javascript:` URL made from it), and every form and search
 * box sends or searches exactly what was typed. The server side (stored and returned byte for
 * byte) is `apps/server/src/api-matrix/free-text.integration.test.ts`.
 *
 * The inventory (spec sections 2, 3, 7):
 *
 * | Field                          | Comes from                         | Shown by (view)                                                       |
 * | ------------------------------ | ---------------------------------- | --------------------------------------------------------------------- |
 * | lead label, company, category  | lead source, New Call, Add Lead    | lead card (ringing, on call, after the call): heading, lines, pill    |
 * | lead email                     | lead source (addresses only)       | lead card mailto link                                                 |
 * | lead source_id                 | lead source                        | lead card CRM links (href, encoded)                                   |
 * | caller-ID (number) name        | seed / administrator               | ringing banner (inbound); New Call Caller ID options (cut at 40)      |
 * | agent_name (call's agent)      | seed (user full_name)              | on-call status line of listen, whisper, barge                         |
 * | user full_name, email          | seed                               | nav bar profile button (title) and dropdown                           |
 * | agent full_name                | seed                               | Transfer and Conference agent lists, their buttons' names             |
 * | team name                      | seed                               | Transfer team list and the Team filter                                |
 * | tag name (and color)           | seed                               | Tags & Stages buttons; history stage                                  |
 * | history: lead label, fname,    | all of the above, notes            | History rows (and the recording buttons' names)                       |
 * |   lname, agent, notes, stage,  |                                    |                                                                       |
 * |   supervisors' names           |                                    |                                                                       |
 * | server error text              | any refusal                        | error banners (New Call, Add Lead, SMS), waiting notice               |
 * | typed: First/Last Name         | the agent                          | New Call, Add Lead (sent as typed)                                    |
 * | typed: note, SMS body          | the agent                          | Add Note, Send SMS (sent as typed)                                    |
 * | typed: search                  | the agent                          | agent Search (Transfer, Conference), Search countries (phone input)   |
 *
 * One app per view; each view takes every text in turn (or all at once in its list).
 */
import type {
  CallUserResponse,
  CallerNumber,
  HistoryRow,
  TeamRow,
  User,
} from '@leadline/contracts';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { FakeApi, demoAgent, demoCallUser, demoLead, demoUser } from '../test-support/fake-api';
import { QUERY_KEYS, createQueryClient } from '../api/queries';
import { App } from '../app';
import type { ConsoleCall } from '../console/call-rules';
import { FakePhone } from '../test-support/fake-phone';
import { createFakePlatform } from '../test-support/fake-platform';
import { HOSTILE_TEXTS, hostileTextOfLength } from '../test-support/hostile-text';
import { consoleUnderTest, findAnswerButton } from '../test-support/console-under-test';
import { LeadCard } from './lead-card';
import { SEARCH_DEBOUNCE_MS } from './transfer-panel';

const TEXTS = HOSTILE_TEXTS.map((h) => h.text);

/** Tests that walk every text through one view of one app take longer than the default. */
const EVERY_TEXT = { timeout: 60_000 };

/** Text matching without trimming or collapsing white space: the text exactly. */
const EXACT = { normalizer: (text: string) => text };

/** Attributes that take a URL. */
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'xlink:href', 'poster']);

/**
 * Nothing in the page was made from markup in the texts: no script or embedding element, no
 * inline handler attribute (React never writes `on…` attributes), no `javascript:` URL.
 */
function expectNoMarkupMade(root: ParentNode = document.body): void {
  expect(root.querySelectorAll('script, iframe, object, embed, img[src="x"]')).toHaveLength(0);
  for (const element of root.querySelectorAll('*')) {
    for (const { name, value } of Array.from(element.attributes)) {
      const what = `<${element.tagName.toLowerCase()} ${name}="${value}">`;
      expect(name, what).not.toMatch(/^on/i);
      if (URL_ATTRIBUTES.has(name)) expect(value.trim(), what).not.toMatch(/^javascript:/i);
    }
  }
}

/** The element's own text nodes (what Testing Library matches), and its whole text. */
const ownText = (element: Element) =>
  Array.from(element.childNodes)
    .filter((node) => node.nodeType === Node.TEXT_NODE)
    .map((node) => node.textContent)
    .join('');

let alert: MockInstance<Window['alert']>;
beforeEach(() => {
  // A handler made from the text would call it (the console's own alerts go through the platform).
  alert = vi.spyOn(window, 'alert').mockImplementation(() => {});
});
afterEach(() => {
  expect(alert).not.toHaveBeenCalled();
  alert.mockRestore();
});

/** The whole console on the fake server and phone, for `user`, until the phone is ready. */
async function renderConsole(server: FakeApi) {
  const phone = new FakePhone();
  const platform = createFakePlatform(server.fetch);
  const queryClient = createQueryClient();
  const user = userEvent.setup();
  render(<App phoneFactory={phone.factory} platform={platform} queryClient={queryClient} />);
  expect(await screen.findByText('Phone ready')).toBeVisible();
  return { phone, platform, queryClient, user };
}

/** Replaces a field's text with `text`, pasted as an agent would. */
async function pasteInto(
  user: ReturnType<typeof userEvent.setup>,
  field: HTMLElement,
  text: string,
) {
  await user.clear(field);
  await user.paste(text);
}

const banner = () => screen.getByRole('status', { name: 'Call status' });

describe('the lead card', () => {
  const consoleCall = (call: CallUserResponse['call']): ConsoleCall => ({
    callSid: 'CA1',
    callUserId: 5,
    call,
    type: 'lead',
    autoaccept: false,
  });
  const user = demoUser({
    integrations: { hubspot_id: '4455', salesforce_domain: null, activecampaign_domain: null },
    settings: { external_crm_link_template: 'https://crm.example.com/leads/{lead_id}' },
  });

  it.each(TEXTS)('shows %j as text in the label, company, email, category and CRM link', (text) => {
    const lead = demoLead({
      label: text,
      company: text,
      email: text,
      category: text,
      source_id: text,
      crm: 'hubspot',
    });
    const { container } = render(
      <LeadCard call={consoleCall(demoCallUser({ call: { lead } }).call)} user={user} />,
    );
    const card = screen.getByRole('article', { name: `Lead: ${text}` });
    expect(within(card).getByRole('heading', { level: 2 }).textContent).toBe(text);
    expect(container.querySelector('.lead-company')!.textContent).toBe(text);
    expect(container.querySelector('.pill')!.textContent).toBe(text);
    const email = within(card).getByText(text, { ...EXACT, selector: 'a' });
    expect(email).toHaveAttribute('href', `mailto:${text}`);
    expect(
      within(card).getByRole('link', { name: `Open ${text} in HubSpot (new tab)` }),
    ).toHaveAttribute(
      'href',
      `https://app.hubspot.com/contacts/4455/contact/${encodeURIComponent(text)}`,
    );
    expect(
      within(card).getByRole('link', { name: `Open ${text} in CRM (new tab)` }),
    ).toHaveAttribute('href', 'https://crm.example.com/leads/301');
    expectNoMarkupMade(container);
  });
});

describe('a call in the console', EVERY_TEXT, () => {
  it('ringing, on the call and after it: the banner, the lead card, the status line, the note sent', async () => {
    const server = new FakeApi([{ user: demoUser(), password: 'pw' }]).signIn();
    TEXTS.forEach((text, i) => {
      // An inbound call (its banner is the number's name) a supervisor barged into (its status
      // line names the agent), with a lead named by the text.
      server.addCallUser(
        100 + i,
        demoCallUser({
          type: 'barge',
          call: {
            id: 8000 + i,
            direction: 'inbound',
            number: { name: text, account_id: 100, phone_number_formatted: '+1 555 010 0100' },
            lead: demoLead({ id: 500 + i, label: text, company: text, category: text }),
            agent_name: text,
          },
        }),
      );
    });
    const { phone, user } = await renderConsole(server);
    for (const [i, text] of TEXTS.entries()) {
      act(() => void phone.device.ring(100 + i));
      const accept = await findAnswerButton('Accept');
      await waitFor(() => expect(banner().textContent).toBe(text));
      expectNoMarkupMade();
      await user.click(accept);
      const onCall = await screen.findByRole('region', { name: 'On call' });
      const card = screen.getByRole('article', { name: `Lead: ${text}` });
      expect(within(card).getByRole('heading', { level: 2 }).textContent).toBe(text);
      expect(within(card).getByText(text, { ...EXACT, selector: '.lead-company' })).toBeVisible();
      expect(onCall.querySelector('.call-status-text')!.textContent).toBe(
        `Barged into ${text}'s call`,
      );
      expectNoMarkupMade();
      await user.click(within(onCall).getByRole('button', { name: 'Hang Up' }));
      await user.click(await screen.findByRole('button', { name: /^Add Note/ }));
      await pasteInto(user, await screen.findByRole('textbox', { name: 'Note' }), text);
      await user.click(screen.getByRole('button', { name: /^Save/ }));
      await screen.findByRole('heading', { name: 'Waiting for lead...' });
      await waitFor(() =>
        expect(server.requestsTo('POST', '/api/v1/notes').at(-1)?.body).toEqual({
          content: text,
          call_id: 8000 + i,
        }),
      );
    }
  });
});

describe('forms: what was typed is sent, refusals show as text', EVERY_TEXT, () => {
  it('Add Lead: First and Last Name are sent as typed; the error banner shows the text', async () => {
    const server = new FakeApi([{ user: demoUser(), password: 'pw' }]).signIn();
    server.addCallUser(42, demoCallUser({ call: { lead: null, lead_id: null } }));
    const { phone, user } = await renderConsole(server);
    act(() => void phone.device.ring(42));
    await user.click(await findAnswerButton('Call'));
    const panel = await screen.findByRole('region', { name: 'On call' });
    await user.click(within(panel).getByRole('button', { name: 'Add Lead' }));
    const form = await within(panel).findByRole('region', { name: 'Add Lead' });
    await user.type(within(form).getByRole('textbox', { name: 'Phone Number' }), '555 010 0077');
    for (const text of TEXTS) {
      await pasteInto(user, within(form).getByRole('textbox', { name: 'First Name' }), text);
      await pasteInto(user, within(form).getByRole('textbox', { name: 'Last Name' }), text);
      server.refuseNext('POST', '/api/v1/calls/conferencelead', 200, text);
      await user.click(within(form).getByRole('button', { name: 'Call' }));
      await waitFor(() => expect(within(form).getByRole('alert').textContent).toBe(text));
      expect(server.requestsTo('POST', '/api/v1/calls/conferencelead').at(-1)?.body).toMatchObject({
        fname: text,
        lname: text,
      });
      expectNoMarkupMade();
    }
    // Accepted: the lead card shows the added lead by the typed names.
    const last = TEXTS.at(-1)!;
    await user.click(within(form).getByRole('button', { name: 'Call' }));
    const card = await screen.findByRole('article', { name: `Lead: ${last} ${last}` });
    expect(within(card).getByRole('heading', { level: 2 }).textContent).toBe(`${last} ${last}`);
  });

  it('New Call: First and Last Name are sent as typed; the error banner shows the text', async () => {
    const server = new FakeApi([{ user: demoUser(), password: 'pw' }]).signIn();
    const { user } = await renderConsole(server);
    await user.click(screen.getByRole('button', { name: 'Call' }));
    const panel = await screen.findByRole('region', { name: 'New Call' });
    await user.type(within(panel).getByRole('textbox', { name: 'Phone Number' }), '555 010 0077');
    for (const text of TEXTS) {
      await pasteInto(user, within(panel).getByRole('textbox', { name: 'First Name' }), text);
      await pasteInto(user, within(panel).getByRole('textbox', { name: 'Last Name' }), text);
      server.refuseNext('POST', '/api/v1/calls/twilio/outbound', 422, text);
      await user.click(within(panel).getByRole('button', { name: 'Call Now' }));
      await waitFor(() => expect(within(panel).getByRole('alert').textContent).toBe(text));
      expect(server.requestsTo('POST', '/api/v1/calls/twilio/outbound').at(-1)?.body).toMatchObject(
        { fname: text, lname: text },
      );
      expectNoMarkupMade();
    }
  });

  it('Send SMS: the body is sent as typed, up to the 1600 the server takes; the banner shows the text', async () => {
    const { server, user, toCallResult } = await consoleUnderTest(['app-sms']);
    await toCallResult();
    await user.click(screen.getByRole('button', { name: 'Voicemail' }));
    const body = await screen.findByRole('textbox', { name: 'Message to the lead' });
    for (const text of [...TEXTS, hostileTextOfLength(1600)]) {
      await pasteInto(user, body, text);
      expect(body).toHaveValue(text);
      server.refuseNext('POST', '/apps/webrtc/9001/sms', 200, text);
      await user.click(screen.getByRole('button', { name: /^Send/ }));
      await waitFor(() => expect(screen.getByRole('alert').textContent).toBe(text));
      expect(server.requestsTo('POST', '/apps/webrtc/9001/sms').at(-1)?.body).toEqual({
        smsbody: text,
      });
      expectNoMarkupMade();
    }
  });
});

describe('lists of names', EVERY_TEXT, () => {
  it('Tags & Stages: a button per tag named by the text; a colour that is not one is not used; choosing sends its key', async () => {
    const tags = TEXTS.map((text, i) => ({ id: i + 1, key: text, name: text, color: text }));
    const { server, user, toCallResult } = await consoleUnderTest(
      [],
      demoCallUser({
        call: { profile: { id: 12, is_deal_whispertext: true, auto_answer: true, tags } },
      }),
    );
    await toCallResult();
    await user.click(screen.getByRole('button', { name: 'Contacted' }));
    const group = await screen.findByRole('group', { name: 'Tags & Stages' });
    const buttons = within(group).getAllByRole('button');
    expect(buttons.map((b) => b.querySelector('.btn-label')!.textContent)).toEqual(TEXTS);
    for (const button of buttons) expect(button).not.toHaveAttribute('style');
    expectNoMarkupMade();
    await user.click(buttons[3]!);
    await waitFor(() =>
      expect(server.requestsTo('POST', '/apps/webrtc/9001/disposition2')[0]?.body).toEqual({
        key: TEXTS[3],
      }),
    );
  });

  it('New Call: the Caller ID options show each name (cut at 40 characters, never inside one)', async () => {
    const astralNames = '\u{1D573}'.repeat(45);
    const emoji = HOSTILE_TEXTS.find((h) => h.name.startsWith('emoji'))!.text;
    const numbers: CallerNumber[] = [
      ...TEXTS,
      // Two emoji sequences of 31 UTF-16 units each: 15 characters, shown whole.
      `${emoji} ${emoji}`,
      astralNames,
      hostileTextOfLength(50),
    ].map((name, i) => ({ id: i + 1, name, phone_number_formatted: '+1 555 014 2000' }));
    const expected = [
      ...TEXTS,
      `${emoji} ${emoji}`,
      `${'\u{1D573}'.repeat(40)}...`,
      `${hostileTextOfLength(50).slice(0, 40)}...`,
    ].map((name) => `${name}: +1 555 014 2000`);
    const server = new FakeApi([{ user: demoUser(), password: 'pw' }]).signIn();
    server.setCallerNumbers(numbers);
    const { user } = await renderConsole(server);
    await user.click(screen.getByRole('button', { name: 'Call' }));
    const select = await screen.findByRole('combobox', { name: 'Caller ID' });
    const options = within(select).getAllByRole('option').slice(1);
    expect(options.map((o) => o.textContent)).toEqual(expected);
    for (const option of options) expect(option.textContent).not.toMatch(/\p{Cs}/u);
    expectNoMarkupMade();
  });

  it('History: lead, agent, notes, tag and supervisors shown as text, over the pages', async () => {
    const rows = TEXTS.map((text, i) => historyRow(i + 1, text));
    const server = new FakeApi([
      { user: demoUser({ permissions: ['listen'] }), password: 'pw' },
    ]).signIn();
    server.setHistory(rows);
    const { user } = await renderConsole(server);
    await user.click(
      within(screen.getByRole('navigation', { name: 'Console' })).getByRole('button', {
        name: 'History',
      }),
    );
    const panel = screen.getByRole('region', { name: 'Call History' });
    for (let start = 0; start < TEXTS.length; start += 5) {
      const page = TEXTS.slice(start, start + 5);
      const list = await within(panel).findByRole('list', { name: 'Calls' });
      await waitFor(() =>
        expect(
          within(list)
            .getAllByRole('listitem')
            .map((li) => li.querySelector('.history-name')!.textContent),
        ).toEqual(page),
      );
      for (const [n, item] of within(list).getAllByRole('listitem').entries()) {
        const text = page[n]!;
        // Lead, agent, tag, note: each element's own text is exactly the text.
        expect(within(item).getAllByText(text, EXACT)).toHaveLength(4);
        expect(item.querySelector('.history-note')!.textContent).toBe(`Note: ${text}`);
        expect(item.querySelector('.history-supervision')!.textContent).toBe(`${text} listened`);
        expect(
          within(item).getByRole('button', { name: `Play recording of the call with ${text}` }),
        ).toBeVisible();
        expect(item.querySelector('.history-tag')).not.toHaveAttribute('style');
      }
      expectNoMarkupMade();
      const next = within(panel).getByRole('button', { name: 'Next' });
      if (start + 5 < TEXTS.length) await user.click(next);
    }
  });

  it('History with lead names (the account setting): first and last name shown as text', async () => {
    const rows = TEXTS.slice(0, 5).map((text, i) => ({
      ...historyRow(i + 1, 'Label'),
      lead: { ...historyRow(i + 1, 'Label').lead!, fname: text, lname: text },
    }));
    const server = new FakeApi([
      { user: demoUser({ settings: { history_shows_lead_name: true } }), password: 'pw' },
    ]).signIn();
    server.setHistory(rows);
    const { user } = await renderConsole(server);
    await user.click(
      within(screen.getByRole('navigation', { name: 'Console' })).getByRole('button', {
        name: 'History',
      }),
    );
    const list = await screen.findByRole('list', { name: 'Calls' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((li) => li.querySelector('.history-name')!.textContent),
    ).toEqual(TEXTS.slice(0, 5).map((text) => `${text} ${text}`));
    expectNoMarkupMade();
  });
});

/** A history row whose every free text is `text`. */
function historyRow(id: number, text: string): HistoryRow {
  return {
    id,
    direction: 'outbound',
    type: 'lead',
    recording_url: `/api/v1/calls/${id}/recording`,
    created_at: '2026-11-24T10:04:00.000Z',
    time_formatted: 'Nov 24, 2026, 10:04 AM',
    status: 'completed',
    status_display: '01:05',
    reason: null,
    seconds: 65,
    duration: '01:05',
    retry: false,
    lead_retry: null,
    disposition: 'contacted',
    stage: { key: text, name: text, color: text },
    notes: [{ id, content: text, created_at: '2026-11-24T10:06:00.000Z' }],
    user: { name: text },
    lead: {
      fname: 'Maya',
      lname: 'Okafor',
      label: text,
      phone_number: '+15550100042',
      phone_number_formatted: '+1 555 010 0042',
    },
    phone_number_formatted: '+1 555 010 0042',
    supervision: [{ name: text, role: 'listen', at: '2026-11-24T10:05:00.000Z' }],
  };
}

describe('agent lists and their search boxes', EVERY_TEXT, () => {
  const AGENTS = TEXTS.map((text, i) => ({ ...demoAgent(20 + i, text), team_ids: [i + 1] }));
  const TEAMS: TeamRow[] = TEXTS.map((text, i) => ({ id: i + 1, name: text, is_available: true }));

  /** Pastes each text into the list's Search box: the list shows that agent alone. */
  async function searchEach(
    server: FakeApi,
    platform: ReturnType<typeof createFakePlatform>,
    user: ReturnType<typeof userEvent.setup>,
    region: HTMLElement,
  ) {
    const box = within(region).getByRole('searchbox', { name: 'Search' });
    for (const text of TEXTS) {
      await pasteInto(user, box, text);
      expect(box).toHaveValue(text);
      act(() => platform.clock.tick(SEARCH_DEBOUNCE_MS));
      await waitFor(() =>
        expect(
          within(region)
            .getAllByRole('listitem')
            .map((row) => ownText(row.querySelector('.target-name')!)),
        ).toEqual([text]),
      );
      const searched = server.requestsTo('GET', '/api/v1/users/paginated').at(-1);
      expect(searched?.query.get('search')).toBe(text);
      expectNoMarkupMade();
    }
  }

  it('Transfer: agents and teams named by the text, in the rows, buttons and Team filter; Search finds each', async () => {
    const server = new FakeApi([{ user: demoUser(), password: 'pw' }]).signIn();
    server.addCallUser(42, demoCallUser()).setAgents(AGENTS).setTeams(TEAMS);
    const { phone, platform, user } = await renderConsole(server);
    act(() => void phone.device.ring(42));
    await user.click(await findAnswerButton('Call'));
    const panel = await screen.findByRole('region', { name: 'On call' });
    await user.click(within(panel).getByRole('button', { name: 'Transfer' }));
    const transfer = within(panel).getByRole('region', { name: 'Transfer' });
    const names = () =>
      within(within(transfer).getByRole('list', { name: 'Agents' }))
        .getAllByRole('listitem')
        .map((row) => ownText(row.querySelector('.target-name')!));
    await waitFor(() => expect(names()).toEqual(TEXTS.slice(0, 10)));
    for (const text of TEXTS.slice(0, 10)) {
      expect(within(transfer).getByRole('button', { name: `Transfer to ${text}` })).toBeEnabled();
    }
    await user.click(within(transfer).getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(names()).toEqual(TEXTS.slice(10)));
    expect(
      within(within(transfer).getByRole('combobox', { name: 'Team' }))
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['All Teams', ...TEXTS]);
    expectNoMarkupMade();
    await searchEach(server, platform, user, transfer);

    await user.click(within(transfer).getByRole('button', { name: 'Team' }));
    const teams = await within(transfer).findByRole('list', { name: 'Teams' });
    expect(
      within(teams)
        .getAllByRole('listitem')
        .map((row) => ownText(row.querySelector('.target-name')!)),
    ).toEqual(TEXTS);
    for (const text of TEXTS) {
      expect(within(teams).getByRole('button', { name: `Transfer to team ${text}` })).toBeEnabled();
    }
    expectNoMarkupMade();
  });

  it('Conference: agents on calls named by the text, with Listen, Whisper and Barge named by it; Search finds each', async () => {
    const server = new FakeApi([
      { user: demoUser({ permissions: ['listen', 'whisper', 'barge'] }), password: 'pw' },
    ]).signIn();
    server
      .setAgents(AGENTS.map((a, i) => ({ ...a, on_call_id: 700 + i, status: 'on_call' as const })))
      .setTeams(TEAMS);
    const { platform, user } = await renderConsole(server);
    await user.click(
      within(screen.getByRole('navigation', { name: 'Console' })).getByRole('button', {
        name: 'Conference',
      }),
    );
    const conference = await screen.findByRole('region', { name: 'Conference' });
    await within(conference).findByRole('list', { name: 'Agents' });
    for (const text of TEXTS.slice(0, 10)) {
      expect(within(conference).getByRole('button', { name: `Listen to ${text}` })).toBeVisible();
      expect(within(conference).getByRole('button', { name: `Whisper to ${text}` })).toBeVisible();
      expect(
        within(conference).getByRole('button', { name: `Barge into ${text}'s call` }),
      ).toBeVisible();
    }
    expectNoMarkupMade();
    await searchEach(server, platform, user, conference);
  });

  it('Search countries (the phone input): each text is searched without error and shown as typed', async () => {
    const server = new FakeApi([{ user: demoUser(), password: 'pw' }]).signIn();
    const { user } = await renderConsole(server);
    await user.click(screen.getByRole('button', { name: 'Call' }));
    const panel = await screen.findByRole('region', { name: 'New Call' });
    await user.click(within(panel).getByRole('combobox', { name: 'Country' }));
    const search = within(panel).getByRole('combobox', { name: 'Search countries' });
    for (const text of TEXTS) {
      await pasteInto(user, search, text);
      expect(search).toHaveValue(text);
      expect(within(panel).queryAllByRole('option')).toEqual([]);
      expect(within(panel).getByText('No countries found')).toBeVisible();
      expectNoMarkupMade();
    }
  });
});

describe('the signed-in user and the waiting view', EVERY_TEXT, () => {
  it('the nav bar shows the user’s name and e-mail as text; Check for lead’s answer shows as text', async () => {
    const server = new FakeApi([{ user: demoUser(), password: 'pw' }]).signIn();
    const { queryClient, user } = await renderConsole(server);
    const signedIn = queryClient.getQueryData<User>(QUERY_KEYS.user)!;
    for (const text of TEXTS) {
      act(() => {
        queryClient.setQueryData<User>(QUERY_KEYS.user, {
          ...signedIn,
          full_name: text,
          email: text,
        });
      });
      const profile = await screen.findByRole('button', {
        name: new RegExp('^' + escapeRegExp(text)),
      });
      expect(profile).toHaveAttribute('title', `${text} (Online)`);
      expect(profile.querySelector('.profile-name')!.textContent).toBe(text);
      expect(document.querySelector('.profile-full-name')!.textContent).toBe(text);
      expect(
        within(document.querySelector('.profile-details')!).getAllByText(text, EXACT),
      ).toHaveLength(2);

      server.refuseNext('POST', '/apps/webrtc/check', 200, text);
      await user.click(screen.getByRole('button', { name: 'Check for lead' }));
      await waitFor(() =>
        expect(document.querySelector('.waiting-notice')!.textContent).toBe(text),
      );
      expectNoMarkupMade();
    }
  });
});

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the console’s source', () => {
  /** Every non-test source file of the console, by path. */
  const sources = import.meta.glob<string>(['../**/*.{ts,tsx}', '!../**/*.test.{ts,tsx}'], {
    query: '?raw',
    import: 'default',
    eager: true,
  });

  it('has no way to turn text into markup or code', () => {
    expect(Object.keys(sources).length).toBeGreaterThan(50);
    const sinks =
      /dangerouslySetInnerHTML|\.innerHTML\b|\.outerHTML\b|insertAdjacentHTML|document\.write|\bnew Function\b|\beval\s*\(|srcDoc/;
    const found = Object.entries(sources)
      .filter(([, text]) => sinks.test(text))
      .map(([path]) => path);
    expect(found).toEqual([]);
  });
});
