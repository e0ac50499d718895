/**
 * Two Twilio providers on one database, as two instances behind one load balancer: a callback
 * may reach either, the same fact may reach both (the leg's callback and the conference's, or a
 * repeat Twilio sent to the other), and each is acted on once; an inbound call the voice webhook
 * received on one is joined by the other. PGlite and PostgreSQL (the PostgreSQL pass runs it
 * with DATABASE_URL).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../db/database';
import type { TelephonyEvent } from '../telephony/telephony';
import { openTestDatabase } from '../test-support/test-database';
import { standInClient, TwilioApiStandIn } from '../test-support/twilio-api-stand-in';
import { and, eq, isNotNull } from 'drizzle-orm';
import { twilioParties } from '../db/schema';
import { waitUntil } from '../test-support/wait-until';
import { PENDING_LEASE_MS, REMOVE_LEASE_MS, TwilioLegs } from './twilio-legs';
import { TwilioTelephony } from './twilio-telephony';

const BASE = 'https://calls.example.com';
const NUMBER = '+15550142000';
const CALLER = '+15550100777';

let standIn: TwilioApiStandIn;
let database: Database;
let a: TwilioTelephony;
let b: TwilioTelephony;
/** What each instance told its flows. */
let events: Array<{ instance: 'a' | 'b'; event: TelephonyEvent }>;
let callSid: string;
let counter = 0;

function provider(clock?: { now(): number }): TwilioTelephony {
  return new TwilioTelephony({
    client: standInClient(standIn),
    publicBaseUrl: BASE,
    callerId: NUMBER,
    log: { warn: () => undefined },
    db: database.db,
    ...(clock ? { clock } : {}),
  });
}

beforeAll(async () => {
  standIn = await TwilioApiStandIn.start();
  database = await openTestDatabase();
});
afterAll(async () => {
  await standIn.close();
  await database.close();
});
beforeEach(async () => {
  await Promise.all([a?.idle(), b?.idle()]);
  standIn.reset();
  standIn.participantKnown = undefined;
  events = [];
  callSid = `CAinst${++counter}`;
  a = provider();
  b = provider();
  a.subscribe((event) => events.push({ instance: 'a', event }));
  b.subscribe((event) => events.push({ instance: 'b', event }));
});

/** The leg sid Twilio gave the last create of `label`. */
function legOf(label: string): string {
  const index = standIn.requests.findLastIndex(
    (r) => r.path.endsWith('/Participants.json') && r.form.Label === label,
  );
  return (standIn.answers[index] as { call_sid: string }).call_sid;
}

const legCallback = (label: string, status: string, sequence: number) =>
  [
    { call: callSid, label },
    { CallSid: legOf(label), CallStatus: status, SequenceNumber: String(sequence) },
  ] as const;

const conferenceCallback = (label: string, event: string) =>
  [
    {},
    {
      StatusCallbackEvent: event,
      FriendlyName: callSid,
      ConferenceSid: standIn.conferenceSid(callSid),
      ParticipantLabel: label,
      CallSid: legOf(label),
    },
  ] as const;

describe('Twilio providers on one database', () => {
  it('an agent answering, told to both instances at once by both kinds of callback, is answered once; the end once', async () => {
    expect(await a.ringAgent(callSid, '7', { From: 'client:1' })).toBe(1);
    await Promise.all([
      a.handleStatus(...legCallback('agent-7', 'ringing', 1)),
      b.handleStatus(...legCallback('agent-7', 'ringing', 1)),
    ]);
    await Promise.all([
      a.handleStatus(...legCallback('agent-7', 'in-progress', 2)),
      b.handleStatus(...conferenceCallback('agent-7', 'participant-join')),
      b.handleStatus(...legCallback('agent-7', 'in-progress', 2)),
      a.handleStatus(...conferenceCallback('agent-7', 'participant-join')),
    ]);
    await Promise.all([
      b.handleStatus(...conferenceCallback('agent-7', 'participant-leave')),
      a.handleStatus(...legCallback('agent-7', 'completed', 3)),
      b.handleStatus(...legCallback('agent-7', 'completed', 3)),
    ]);
    expect(events.map((e) => e.event)).toEqual([
      { type: 'agent.answered', callSid, identity: '7' },
      { type: 'agent.left', callSid, identity: '7', reason: 'hangup' },
    ]);
  });

  it('a ring one instance cancels is not reported as rejected by the other', async () => {
    await a.ringAgent(callSid, '8', { From: 'client:1' });
    b.cancelRing(callSid, '8');
    await b.idle();
    expect(standIn.requests.at(-1)).toMatchObject({
      method: 'DELETE',
      path: expect.stringMatching(/\/Participants\/agent-8\.json$/) as string,
    });
    await a.handleStatus(...legCallback('agent-8', 'canceled', 2));
    expect(events).toEqual([]);
    // Rung again, the agent's new leg reports as usual.
    expect(await b.ringAgent(callSid, '8', { From: 'client:1' })).toBe(1);
    await a.handleStatus(...legCallback('agent-8', 'in-progress', 1));
    expect(events).toEqual([
      { instance: 'a', event: { type: 'agent.answered', callSid, identity: '8' } },
    ]);
  });

  it('a phone dialled by one instance and answered on the other is put on hold as the call is', async () => {
    const id = a.dial(callSid, '+15550100042', { from: NUMBER });
    await a.idle();
    b.hold(callSid);
    await b.idle();
    await Promise.all([
      b.handleStatus(...legCallback(id, 'in-progress', 1)),
      a.handleStatus(...conferenceCallback(id, 'participant-join')),
    ]);
    await Promise.all([a.idle(), b.idle()]);
    expect(events.map((e) => e.event)).toEqual([
      { type: 'phone.answered', callSid, participantId: id },
    ]);
    const holds = standIn.requests.filter((r) => r.form.Hold === 'true');
    expect(holds).toHaveLength(1);
    expect(holds[0]!.path).toMatch(new RegExp(`/Participants/${id}\\.json$`));
  });

  it('an inbound call the voice webhook received on one instance is joined by the other, in its webhook or later', async () => {
    // Placed by B while A's webhook is still answering: A's answer joins it.
    await a.callerWaiting({ CallSid: 'CAin1', From: CALLER, To: NUMBER });
    const label = b.addCaller(callSid, CALLER, NUMBER);
    await b.idle();
    const answer = await a.answerCaller('CAin1');
    expect(answer).toEqual({
      join: expect.stringContaining(`participantLabel="${label}"`) as string,
    });
    expect(standIn.requests).toEqual([]);

    // A's webhook answered with a wait first: B moves the call with the join TwiML.
    await a.callerWaiting({ CallSid: 'CAin2', From: CALLER, To: NUMBER });
    expect(await a.answerCaller('CAin2')).toBeNull();
    const later = b.addCaller(`${callSid}x`, CALLER, NUMBER);
    await b.idle();
    expect(standIn.requests).toHaveLength(1);
    expect(standIn.requests[0]!.path).toMatch(/\/Calls\/CAin2\.json$/);
    expect(standIn.requests[0]!.form.Twiml).toContain(`participantLabel="${later}"`);
    expect(await a.waitingCallers()).toEqual([]);
  });

  it('two instances placing callers from the same number take different waiting calls', async () => {
    await a.callerWaiting({ CallSid: 'CAp1', From: CALLER, To: NUMBER });
    await b.callerWaiting({ CallSid: 'CAp2', From: CALLER, To: NUMBER });
    expect(await a.answerCaller('CAp1')).toBeNull();
    expect(await b.answerCaller('CAp2')).toBeNull();
    a.addCaller(`${callSid}a`, CALLER, NUMBER);
    b.addCaller(`${callSid}b`, CALLER, NUMBER);
    await Promise.all([a.idle(), b.idle()]);
    const moved = standIn.requests.map((r) => /\/Calls\/(CA\w+)\.json$/.exec(r.path)?.[1]).sort();
    expect(moved).toEqual(['CAp1', 'CAp2']);
  });

  it('conference-end told to both instances ends each party once', async () => {
    await a.ringAgent(callSid, '9', { From: 'client:1' });
    await b.handleStatus(...legCallback('agent-9', 'in-progress', 1));
    const id = b.dial(callSid, '+15550100043', { from: NUMBER });
    await b.idle();
    await a.handleStatus(...legCallback(id, 'in-progress', 1));
    const end = [
      {},
      { StatusCallbackEvent: 'conference-end', FriendlyName: callSid, ConferenceSid: 'CFx' },
    ] as const;
    await Promise.all([a.handleStatus(...end), b.handleStatus(...end)]);
    const types = events.map((e) => e.event.type);
    expect(types.filter((t) => t === 'agent.left')).toHaveLength(1);
    expect(types.filter((t) => t === 'phone.left')).toHaveLength(1);
  });

  it('a move whose instance died before its flows reacted is handed to another instance once its lease passed, once', async () => {
    let nowMs = Date.now();
    const clock = { now: () => nowMs };
    const dying = provider(clock);
    const survivor = provider(clock);
    // The dying instance's flows never finish reacting: it is killed meanwhile.
    dying.subscribe(() => new Promise<void>(() => undefined));
    const told: TelephonyEvent[] = [];
    survivor.subscribe((event) => void told.push(event));
    expect(await dying.ringAgent(callSid, '11', { From: 'client:1' })).toBe(1);
    void dying.handleStatus(...legCallback('agent-11', 'in-progress', 1));
    await waitUntil(
      async () =>
        (
          await database.db
            .select()
            .from(twilioParties)
            .where(and(eq(twilioParties.callSid, callSid), isNotNull(twilioParties.pendingInput)))
        )[0],
      'the answer to be pending',
    );
    // Still within its lease: the dying instance may yet react.
    expect(await survivor.sweepAbandoned()).toBe(0);
    nowMs += PENDING_LEASE_MS + 1;
    expect(await survivor.sweepAbandoned()).toBe(1);
    expect(told).toEqual([{ type: 'agent.answered', callSid, identity: '11' }]);
    nowMs += PENDING_LEASE_MS + 1;
    expect(await survivor.sweepAbandoned()).toBe(0);
    // The call goes on through the survivor; the end is told once and the party forgotten.
    await survivor.handleStatus(...legCallback('agent-11', 'completed', 2));
    expect(told.at(-1)).toEqual({ type: 'agent.left', callSid, identity: '11', reason: 'hangup' });
    expect(
      await database.db.select().from(twilioParties).where(eq(twilioParties.callSid, callSid)),
    ).toEqual([]);
  });

  it('a move the flows were reacting to when their instance died is told again even though their reaction had taken the party out', async () => {
    let nowMs = Date.now();
    const clock = { now: () => nowMs };
    const dying = provider(clock);
    const survivor = provider(clock);
    // The dying instance's flows hear the lead hang up and start ending the call: the hang-up's
    // first write (every party taken out) lands, then the instance is killed.
    const legs = new TwilioLegs(database.db);
    dying.subscribe(async () => {
      await legs.markRemoved(callSid, new Date(nowMs));
      await new Promise<void>(() => undefined);
    });
    const told: TelephonyEvent[] = [];
    survivor.subscribe((event) => void told.push(event));
    const id = dying.dial(callSid, '+15550100044', { from: NUMBER });
    await dying.idle();
    await survivor.handleStatus(...legCallback(id, 'in-progress', 1));
    expect(told).toEqual([{ type: 'phone.answered', callSid, participantId: id }]);
    void dying.handleStatus(...legCallback(id, 'completed', 2));
    await waitUntil(
      async () =>
        (
          await database.db
            .select()
            .from(twilioParties)
            .where(and(eq(twilioParties.callSid, callSid), eq(twilioParties.removed, true)))
        )[0],
      'the dying reaction to take the party out',
    );
    nowMs += PENDING_LEASE_MS + 1;
    expect(await survivor.sweepAbandoned()).toBe(1);
    // The survivor's flows hear the lead leave: they end the call themselves.
    expect(told.at(-1)).toEqual({ type: 'phone.left', callSid, participantId: id });
  });

  it('a removal its instance died before sending is sent by another instance once its lease passed, once; Twilio not knowing it ends the party', async () => {
    let nowMs = Date.now();
    const clock = { now: () => nowMs };
    const dying = provider(clock);
    const survivor = provider(clock);
    const told: TelephonyEvent[] = [];
    survivor.subscribe((event) => void told.push(event));
    expect(await dying.ringAgent(callSid, '13', { From: 'client:1' })).toBe(1);
    expect(await dying.ringAgent(`${callSid}b`, '16', { From: 'client:1' })).toBe(1);
    // The dying instance's flows cancel both rings: the writes land, the removes never leave.
    const legs = new TwilioLegs(database.db);
    await legs.markRemoved(callSid, new Date(nowMs));
    await legs.markRemoved(`${callSid}b`, new Date(nowMs));
    const sent = standIn.requests.length;
    expect(await survivor.sweepAbandoned()).toBe(0);
    nowMs += REMOVE_LEASE_MS + 1;
    // Twilio still has agent-13's leg; agent-16's ended meanwhile (its end lost with the instance).
    standIn.participantKnown = (_conference, label) => label === 'agent-13';
    expect(await survivor.sweepAbandoned()).toBe(2);
    await survivor.idle();
    const removes = standIn.requests.slice(sent).map((r) => `${r.method} ${r.path}`);
    expect(removes.sort()).toEqual(
      [
        expect.stringMatching(/^DELETE .*\/Participants\/agent-13\.json$/) as string,
        expect.stringMatching(/^DELETE .*\/Participants\/agent-16\.json$/) as string,
      ].sort(),
    );
    // Sent: no sweep sends it again. Unknown to Twilio: the party is gone, and nobody is told.
    nowMs += REMOVE_LEASE_MS + 1;
    expect(await survivor.sweepAbandoned()).toBe(0);
    const left = await database.db.select().from(twilioParties);
    expect(left.filter((p) => p.callSid.startsWith(callSid)).map((p) => p.label)).toEqual([
      'agent-13',
    ]);
    // Twilio reports agent-13's leg ended: silent (the flows cancelled it), and forgotten.
    await survivor.handleStatus(...legCallback('agent-13', 'canceled', 2));
    expect(told).toEqual([]);
    expect(
      await database.db.select().from(twilioParties).where(eq(twilioParties.callSid, callSid)),
    ).toEqual([]);
  });

  it('an agent rung while an earlier ring of theirs nobody cancelled is still on: that ring is removed, and the new one waits until it is gone', async () => {
    const earlier = `${callSid}old`;
    expect(await a.ringAgent(earlier, '14', { From: 'client:1' })).toBe(1);
    const earlierLeg = legOf('agent-14');
    // The instance whose flows ended that ring died before cancelling it; the database gave the
    // agent a new ring, placed by the other instance.
    const ringing = b.ringAgent(callSid, '14', { From: 'client:1' });
    await waitUntil(
      () => standIn.requests.find((r) => r.method === 'DELETE'),
      'the earlier ring to be removed',
    );
    const removal = standIn.requests.findIndex((r) => r.method === 'DELETE');
    expect(standIn.requests[removal]!.path).toMatch(
      new RegExp(`/Conferences/${standIn.conferenceSid(earlier)}/Participants/agent-14\\.json$`),
    );
    await a.handleStatus(
      { call: earlier, label: 'agent-14' },
      { CallSid: earlierLeg, CallStatus: 'canceled', SequenceNumber: '2' },
    );
    expect(await ringing).toBe(1);
    const create = standIn.requests.findLastIndex((r) => r.path.endsWith('/Participants.json'));
    expect(create).toBeGreaterThan(removal);
    expect(standIn.requests[create]!.form.Label).toBe('agent-14');
    // The earlier ring's end is nobody's news: the flows had ended it.
    expect(events).toEqual([]);
  });

  it('a reservation takes out the agent’s answered leg of another call nobody took out; never a supervisor’s, nor for a supervisor’s ring', async () => {
    const legs = new TwilioLegs(database.db);
    const party = (call: string, role: string) => ({
      callSid: call,
      label: 'agent-17',
      kind: 'agent' as const,
      id: '17',
      role,
      state: 'answered' as const,
      legSid: null,
    });
    await legs.add(party(`${callSid}agent`, 'agent'));
    await legs.add(party(`${callSid}listen`, 'listen'));
    await database.db
      .update(twilioParties)
      .set({ createdAt: new Date(Date.now() - 60_000) })
      .where(eq(twilioParties.partyId, '17'));
    // A supervisor's ring (not a reservation) takes nothing out.
    expect(await a.ringAgent(`${callSid}sup`, '17', { From: 'client:1' }, { role: 'listen' })).toBe(
      1,
    );
    expect(standIn.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    // A lead's ring takes out the answered agent leg, not the supervisor's listening one.
    const ringing = b.ringAgent(`${callSid}lead`, '17', { From: 'client:1' });
    await waitUntil(
      () => standIn.requests.find((r) => r.method === 'DELETE'),
      'the stale answered leg to be removed',
    );
    const removed = standIn.requests.filter((r) => r.method === 'DELETE');
    expect(removed).toHaveLength(1);
    expect(removed[0]!.path).toMatch(
      // The conference by its name: Twilio never named it to this database.
      new RegExp(`/Conferences/${callSid}agent/Participants/agent-17\\.json$`),
    );
    await a.handleStatus(
      { call: `${callSid}agent`, label: 'agent-17' },
      { CallSid: 'CAstale17', CallStatus: 'completed', SequenceNumber: '9' },
    );
    expect(await ringing).toBe(1);
    expect(events).toEqual([]);
  });

  it('a ring only ever takes out rings of the agent placed before it', async () => {
    const legs = new TwilioLegs(database.db);
    const party = (call: string) => ({
      callSid: call,
      label: 'agent-15',
      kind: 'agent' as const,
      id: '15',
      role: 'agent',
      state: 'ringing' as const,
      legSid: null,
    });
    await legs.add(party(`${callSid}1`));
    await legs.add(party(`${callSid}2`));
    await database.db
      .update(twilioParties)
      .set({ createdAt: new Date(Date.now() - 60_000) })
      .where(eq(twilioParties.callSid, `${callSid}1`));
    const now = new Date();
    // A late ring of the older call (its reservation is long over) takes nothing out.
    expect(await legs.supersede('15', `${callSid}1`, 'agent-15', now)).toEqual([]);
    const taken = await legs.supersede('15', `${callSid}2`, 'agent-15', now);
    expect(taken.map((p) => [p.callSid, p.removed])).toEqual([[`${callSid}1`, true]]);
    expect(await legs.supersede('15', `${callSid}2`, 'agent-15', now)).toEqual([]);
  });
});
