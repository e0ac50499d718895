/**
 * Issue 21, free text is inert everywhere (server side): every free-text field a user or a lead
 * source can set × the hostile texts of `test-support/hostile-text.ts` is written through the
 * HTTP API and read back through every endpoint that returns it, byte for byte; it writes the
 * same rows plain text does (so the SQL texts changed nothing else); every answer is JSON. Text
 * at the contracts' length limit is stored whole, one character more is refused (422, nothing
 * changed), and text that cannot be stored as given (NUL, an unpaired surrogate) is refused too.
 * The console side is `apps/web/src/views/free-text.test.tsx`.
 *
 * The inventory (spec sections 2, 3, 5, 7; limits from packages/contracts/src/http):
 *
 * | Field                  | Written by                                    | Limit | Returned by                                      |
 * | ---------------------- | --------------------------------------------- | ----- | ------------------------------------------------ |
 * | lead fname, lname      | POST /api/v1/leads (a lead source)            | 100   | its answer; callusers call.lead; mycalls lead,   |
 * |                        |                                               |       | lead_retry                                       |
 * | lead company           | POST /api/v1/leads                            | 200   | its answer; callusers call.lead                  |
 * | lead category          | POST /api/v1/leads                            | 100   | its answer; callusers call.lead                  |
 * | lead source_id         | POST /api/v1/leads                            | 100   | its answer; callusers call.lead (CRM links)      |
 * | lead email             | POST /api/v1/leads (addresses only)           | 254   | its answer; callusers call.lead                  |
 * | lead fname, lname      | POST /api/v1/calls/twilio/outbound (New Call) | 100   | its answer; callusers; mycalls                   |
 * | lead fname, lname      | POST /api/v1/calls/twilio (Retry)             | 100   | its answer; callusers; mycalls                   |
 * | lead fname, lname      | POST /api/v1/calls/conferencelead (Add Lead)  | 100   | its answer; callusers; mycalls                   |
 * | note content           | POST /api/v1/notes                            | 10000 | mycalls notes                                    |
 * | SMS body               | POST /apps/webrtc/{id}/sms                    | 1600  | GET /api/v1/sandbox/sms                          |
 * | tag key (stage)        | POST /apps/webrtc/{id}/disposition2           | 100   | mycalls stage; callusers call.profile.tags       |
 * | agent search           | GET /api/v1/users/paginated?search=           | 100   | (a query; stores nothing)                        |
 * | WebRTC debug report    | POST /twilio/debug/webrtc user, conn_status   | 200   | (logged only)                                    |
 * | user full_name         | the seed or an administrator (no API)         | -     | GET /api/v1/user; users/paginated; callusers     |
 * |                        |                                               |       | agent_name; mycalls user.name; pusher auth       |
 * |                        |                                               |       | channel_data user_info.name                      |
 * | team name              | the seed or an administrator (no API)         | -     | GET /api/v1/teams                                |
 * | caller-ID name         | the seed or an administrator (no API)         | -     | GET /api/v1/callerids; callusers call.number     |
 * | tag name               | the seed or an administrator (no API)         | -     | callusers call.profile.tags; mycalls stage       |
 *
 * (callusers: GET /api/v1/callusers/{id}; mycalls: GET /api/v1/mycalls.) Fields no API writes
 * are set in their rows, as an administrator's tool would, and read back through the API.
 *
 * One product start for the file (the fixture, fake telephony, through `fastify.inject`).
 */
import { and, eq, sql } from 'drizzle-orm';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallRow } from '../calls/calls-repo';
import { queryRows } from '../db/database';
import { callerNumbers, callUsers, calls, tags, teams, users } from '../db/schema';
import { fingerprint } from '../test-support/db-fingerprint';
import { BOOKKEEPING_TABLES } from '../test-support/change-counter';
import { startFixture, type Fixture } from '../test-support/fixture';
import { HOSTILE_TEXTS, UNSTORABLE_TEXTS, hostileTextOfLength } from '../test-support/hostile-text';
import type { Agent } from '../test-support/test-app';
import { TEST_API_KEY } from '../test-support/test-app';
import { waitUntil } from '../test-support/wait-until';

let f: Fixture;
/** An ended, answered call of agent1 (notes, SMS and stages are written on it). */
let agent1Call: { call: CallRow; callUserId: number };

beforeAll(async () => {
  f = await startFixture();
  agent1Call = await f.liveCall(f.agent1);
  await f.endCall(agent1Call.call);
});
afterAll(() => f.t.close());

const API_KEY = { authorization: `Bearer ${TEST_API_KEY}` };
const PLAIN_TEXT = 'Plain text';

/** Rows of a table-driven test titled by their names (vitest shortens `$name` titles). */
function named<T extends { readonly name: string }>(rows: readonly T[]): Array<[string, T]> {
  return rows.map((row) => [row.name, row]);
}

/** Sends a request; every answer, accepted or refused, is JSON and never a 5xx. */
async function send(options: InjectOptions & { url: string }): Promise<LightMyRequestResponse> {
  const res = await f.t.app.inject(options);
  await f.t.flows.idle();
  const what = `${options.method} ${options.url} → ${res.statusCode} ${res.body.slice(0, 200)}`;
  expect(res.statusCode, what).toBeLessThan(500);
  expect(res.headers['content-type'], what).toMatch(/^application\/json(;|$)/);
  return res;
}

/** Reads a JSON resource as `agent` (GET, no CSRF needed). */
async function read<T>(agent: Agent, url: string): Promise<T> {
  const res = await send({ method: 'GET', url, headers: f.auth(agent, false) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json<T>();
}

let phoneCounter = 3000;
/** A sandbox number no lead has yet (leads are found by phone number). */
const newPhone = () => `+1555010${String(phoneCounter++).padStart(4, '0')}`;

let keyCounter = 0;
/** A fresh `Idempotency-Key`, as the console's outbox sends with notes and SMS. */
const idempotencyKey = () => ({ 'idempotency-key': `free-text-${String(keyCounter++)}` });

const agents = () => [f.agent1, f.agent2, f.supervisor, f.basic];
const agentById = (id: number) => agents().find((a) => a.userId === id)!;

/**
 * The agents of account A ignore a ringing call one after another, starting with
 * `firstUserId`, until nobody is rung (the endpoint matrix's `ignoreInTurn`).
 */
async function ignoreInTurn(callId: number, firstUserId: number): Promise<void> {
  let ringing: Agent | undefined = agentById(firstUserId);
  for (let turn = 0; ringing && turn <= agents().length; turn++) {
    await send({ method: 'POST', url: `/apps/webrtc/${callId}/reject`, headers: f.auth(ringing) });
    const [next] = await f.t.database.db
      .select()
      .from(callUsers)
      .where(and(eq(callUsers.callId, callId), eq(callUsers.outcome, 'ringing')));
    ringing = next ? agentById(next.userId) : undefined;
  }
}

/** The call user of `agent` on a call (ids the API does not answer with are found in the rows). */
async function callUserOf(callId: number, agent: Agent): Promise<number> {
  const [row] = await f.t.database.db
    .select({ id: callUsers.id })
    .from(callUsers)
    .where(and(eq(callUsers.callId, callId), eq(callUsers.userId, agent.userId)));
  return row!.id;
}

/** The number of rows of every table of the product's data (one statement). */
async function rowCounts(): Promise<Record<string, number>> {
  const tables = (
    await queryRows<{ name: string }>(
      f.t.database.db,
      sql`select table_name as name from information_schema.tables
        where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
    )
  ).filter(({ name }) => !BOOKKEEPING_TABLES.includes(name));
  const counts = sql.join(
    tables.map(
      ({ name }) =>
        sql`select ${name}::text as name, count(*)::int as n from ${sql.identifier(name)}`,
    ),
    sql` union all `,
  );
  const rows = await queryRows<{ name: string; n: number }>(f.t.database.db, counts);
  return Object.fromEntries(rows.map((r) => [r.name, Number(r.n)]));
}

/** How many rows each table gained (or lost) between two counts; unchanged tables left out. */
function delta(before: Record<string, number>, after: Record<string, number>) {
  const changed: Record<string, number> = {};
  for (const table of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const d = (after[table] ?? 0) - (before[table] ?? 0);
    if (d !== 0) changed[table] = d;
  }
  return changed;
}

interface HistoryRowJson {
  id: number;
  lead: { fname: string; lname: string; label: string } | null;
  lead_retry: { fname: string; lname: string } | null;
  notes: { content: string }[];
  stage: { key: string; name: string } | null;
  user: { name: string } | null;
}
interface LeadJson {
  fname: string;
  lname: string;
  label: string;
  name: string;
  company: string | null;
  category: string | null;
  source_id: string | null;
  email: string | null;
}
interface CallUserJson {
  call: {
    lead: LeadJson | null;
    number: { name: string } | null;
    agent_name: string | null;
    profile: { tags: { key: string; name: string }[] } | null;
  };
}

/**
 * The history row of `callId` as `agent` reads it: the newest call (just made) or the oldest
 * (the ended call of the file's start), each on a page of its own.
 */
async function historyRow(
  agent: Agent,
  callId: number,
  which: 'newest' | 'oldest' = 'newest',
): Promise<HistoryRowJson> {
  type Page = { data: HistoryRowJson[]; meta: { last_page: number } };
  const pageOf = (page: number) => read<Page>(agent, `/api/v1/mycalls?limit=1&page=${page}`);
  let page = await pageOf(1);
  if (which === 'oldest') page = await pageOf(page.meta.last_page);
  expect(page.data.map((r) => r.id)).toEqual([callId]);
  return page.data[0]!;
}

/** Where a read-back found a field: the endpoint, the field, and the value it held there. */
type Found = Array<[where: string, field: string, value: unknown]>;

/** A field's limit in the contracts (UTF-16 code units), and the 422's text one over it. */
interface Limit {
  readonly maxLength: number;
  readonly tooLong: string;
}

/** The texts one write puts in its fields, by field. */
type Values = Record<string, string>;

/** A write through the API of one or more free-text fields. */
interface ApiWrite {
  /** The fields and the endpoint writing them. */
  readonly name: string;
  readonly fields: Readonly<Record<string, Limit>>;
  /** Sets up what the write needs (not part of what the write must leave unchanged). */
  prepare?(values: Values): Promise<unknown>;
  /** Writes the fields; resolves with the answer. */
  write(values: Values, context: unknown): Promise<LightMyRequestResponse>;
  /** Every place the API returns the fields after the accepted write `res`. */
  readBack(res: LightMyRequestResponse, context: unknown): Promise<Found>;
  /** Ends what the write or `prepare` started (ringing or live calls), accepted or not. */
  settle?(res: LightMyRequestResponse, context: unknown): Promise<void>;
}

/** zod's own sentence for a string over `max`, as the server words it for `field`. */
const zodTooLong = (field: string, max: number): Limit => ({
  maxLength: max,
  tooLong: `The ${field} field: Too big: expected string to have <=${max} characters.`,
});

const LEAD_NAMES = { fname: zodTooLong('fname', 100), lname: zodTooLong('lname', 100) };

const intake: ApiWrite = {
  name: 'lead fname, lname, company, category, source_id via POST /api/v1/leads',
  fields: {
    ...LEAD_NAMES,
    company: zodTooLong('company', 200),
    category: zodTooLong('category', 100),
    source_id: zodTooLong('source_id', 100),
  },
  write: (values) =>
    send({
      method: 'POST',
      url: '/api/v1/leads',
      headers: API_KEY,
      payload: { ...values, phone_number: newPhone() },
    }),
  async readBack(res) {
    expect(res.statusCode, res.body).toBe(201);
    const { lead, call } = res.json<{ lead: LeadJson; call: { id: number; agent_id: number } }>();
    const rung = agentById(call.agent_id);
    const loaded = await read<CallUserJson>(
      rung,
      `/api/v1/callusers/${await callUserOf(call.id, rung)}`,
    );
    const row = await historyRow(rung, call.id);
    const found: Found = [];
    for (const field of ['fname', 'lname', 'company', 'category', 'source_id'] as const) {
      found.push(['POST /api/v1/leads lead', field, lead[field]]);
      found.push(['GET /api/v1/callusers call.lead', field, loaded.call.lead![field]]);
    }
    for (const field of ['fname', 'lname'] as const) {
      found.push(['GET /api/v1/mycalls lead', field, row.lead![field]]);
      // Only agents who may retry get the lead to call again.
      if (row.lead_retry)
        found.push(['GET /api/v1/mycalls lead_retry', field, row.lead_retry[field]]);
    }
    return found;
  },
  async settle(res) {
    if (res.statusCode !== 201) return;
    const { call } = res.json<{ call: { id: number; agent_id: number | null } }>();
    if (call.agent_id !== null) await ignoreInTurn(call.id, call.agent_id);
  },
};

/** The lead's names as the call's answer, the call user and the history return them. */
async function leadNamesReadBack(
  what: string,
  answered: LeadJson,
  callUserId: number,
  callId: number,
): Promise<Found> {
  const loaded = await read<CallUserJson>(f.agent1, `/api/v1/callusers/${callUserId}`);
  const row = await historyRow(f.agent1, callId);
  const found: Found = [];
  for (const field of ['fname', 'lname'] as const) {
    found.push([`${what} lead`, field, answered[field]]);
    found.push(['GET /api/v1/callusers call.lead', field, loaded.call.lead![field]]);
    found.push(['GET /api/v1/mycalls lead', field, row.lead![field]]);
    if (row.lead_retry)
      found.push(['GET /api/v1/mycalls lead_retry', field, row.lead_retry[field]]);
  }
  return found;
}

const outbound: ApiWrite = {
  name: 'lead fname, lname via POST /api/v1/calls/twilio/outbound (New Call)',
  fields: LEAD_NAMES,
  write: (values) =>
    send({
      method: 'POST',
      url: '/api/v1/calls/twilio/outbound',
      headers: f.auth(f.agent1),
      payload: { ...values, phone_number: newPhone(), agent_id: f.agent1.userId },
    }),
  async readBack(res) {
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json<{ call_user_id: number; call: { id: number; lead: LeadJson } }>();
    return leadNamesReadBack(
      'POST outbound call',
      answer.call.lead,
      answer.call_user_id,
      answer.call.id,
    );
  },
  async settle(res) {
    if (res.statusCode !== 200) return;
    const answer = res.json<{ call_user_id: number; call: { id: number; phone_number: string } }>();
    const [row] = await f.t.database.db.select().from(calls).where(eq(calls.id, answer.call.id));
    // The agent's leg connects, the number answers and hangs up (as the endpoint matrix does).
    await f.t.flows.authorizeOutgoing(String(f.agent1.userId), {
      call_user_id: String(answer.call_user_id),
      To: answer.call.phone_number,
    });
    for (const type of ['phone.answered', 'phone.left'] as const) {
      f.t.telephony.emit({ type, callSid: row!.sid, participantId: `${row!.sid}.phone.1` });
    }
    await f.t.flows.idle();
    await f.endCall(row!);
  },
};

const retry: ApiWrite = {
  name: 'lead fname, lname via POST /api/v1/calls/twilio (Retry)',
  fields: LEAD_NAMES,
  write: (values) =>
    send({
      method: 'POST',
      url: '/api/v1/calls/twilio',
      headers: f.auth(f.agent1),
      payload: { ...values, phone_number: newPhone() },
    }),
  async readBack(res) {
    expect(res.json(), res.body).toMatchObject({ success: true });
    const { call } = res.json<{ call: { id: number; lead: LeadJson } }>();
    return leadNamesReadBack(
      'POST retry call',
      call.lead,
      await callUserOf(call.id, f.agent1),
      call.id,
    );
  },
  async settle(res) {
    if (res.statusCode !== 200) return;
    await ignoreInTurn(res.json<{ call: { id: number } }>().call.id, f.agent1.userId);
  },
};

/** The live call Add Lead is tried on. */
type LiveCall = { call: CallRow; callUserId: number };

/** Add Lead: a live call of agent1 without a lead gets one. */
const conferenceLead: ApiWrite = {
  name: 'lead fname, lname via POST /api/v1/calls/conferencelead (Add Lead)',
  fields: LEAD_NAMES,
  async prepare() {
    const live = await f.liveCall(f.agent1);
    // A call without a lead (an inbound caller nobody knows), as the endpoint matrix makes one.
    await f.t.database.db.update(calls).set({ leadId: null }).where(eq(calls.id, live.call.id));
    return live;
  },
  async write(values, context) {
    const { call } = context as LiveCall;
    const dialled = f.t.telephony.ops('dial').length;
    const pending = send({
      method: 'POST',
      url: '/api/v1/calls/conferencelead',
      headers: f.auth(f.agent1),
      payload: { ...values, call_id: call.id, phone_number: newPhone() },
    });
    // The answer waits for the added lead's phone, if it was dialled: it answers.
    let answered: LightMyRequestResponse | undefined;
    void pending.then((res) => (answered = res));
    const added = await waitUntil(
      () => (answered ? null : f.t.telephony.ops('dial').at(dialled)),
      'the added lead dialled or the request answered',
    );
    if (added) {
      f.t.telephony.emit({
        type: 'phone.answered',
        callSid: call.sid,
        participantId: added.participantId,
      });
    }
    return pending;
  },
  async readBack(res, context) {
    const { call, callUserId } = context as LiveCall;
    expect(res.json(), res.body).toMatchObject({ success: true, outcome: 'answered' });
    const answer = res.json<{ call: { lead: LeadJson }; lead: LeadJson }>();
    const found = await leadNamesReadBack('POST conferencelead', answer.lead, callUserId, call.id);
    for (const field of ['fname', 'lname'] as const) {
      found.push(['POST conferencelead call.lead', field, answer.call.lead[field]]);
    }
    return found;
  },
  settle: (_res, context) => f.endCall((context as LiveCall).call),
};

const note: ApiWrite = {
  name: 'note content via POST /api/v1/notes',
  fields: {
    content: { maxLength: 10_000, tooLong: 'The content may not be longer than 10000 characters.' },
  },
  write: (values) =>
    send({
      method: 'POST',
      url: '/api/v1/notes',
      headers: { ...f.auth(f.agent1), ...idempotencyKey() },
      payload: { ...values, call_id: agent1Call.call.id },
    }),
  async readBack(res) {
    expect(res.statusCode, res.body).toBe(201);
    const row = await historyRow(f.agent1, agent1Call.call.id, 'oldest');
    return [['GET /api/v1/mycalls notes (newest)', 'content', row.notes.at(-1)?.content]];
  },
};

const sms: ApiWrite = {
  name: 'SMS body via POST /apps/webrtc/{id}/sms',
  fields: {
    smsbody: { maxLength: 1600, tooLong: 'The smsbody may not be longer than 1600 characters.' },
  },
  write: (values) =>
    send({
      method: 'POST',
      url: `/apps/webrtc/${agent1Call.call.id}/sms`,
      headers: { ...f.auth(f.agent1), ...idempotencyKey() },
      payload: values,
    }),
  async readBack(res) {
    expect(res.json(), res.body).toEqual({ success: true });
    const { data } = await read<{ data: { body: string }[] }>(f.agent1, '/api/v1/sandbox/sms');
    return [['GET /api/v1/sandbox/sms body (newest)', 'smsbody', data[0]?.body]];
  },
};

/** The tag given the text as its key, or null when the text cannot be stored (never sent to the database). */
type ChosenTag = { tagId: number | null };

/** The Tags & Stages choice: the call's stage is the tag whose key is the text. */
const stage: ApiWrite = {
  name: 'tag key via POST /apps/webrtc/{id}/disposition2',
  fields: { key: { maxLength: 100, tooLong: 'The key may not be longer than 100 characters.' } },
  async prepare({ key }): Promise<ChosenTag> {
    // Refused before the key is looked up; PostgreSQL could not store it anyway.
    if (key!.includes('\u0000') || /\p{Cs}/u.test(key!)) return { tagId: null };
    // Keys are the profile's (seeded); one is given the text, so choosing it is valid.
    const [tag] = await f.t.database.db
      .update(tags)
      .set({ key })
      .where(and(eq(tags.profileId, agent1Call.call.profileId!), eq(tags.key, 'quote-sent')))
      .returning({ id: tags.id });
    return { tagId: tag!.id };
  },
  write: (values) =>
    send({
      method: 'POST',
      url: `/apps/webrtc/${agent1Call.call.id}/disposition2`,
      headers: { ...f.auth(f.agent1), ...idempotencyKey() },
      payload: values,
    }),
  async readBack(res) {
    expect(res.json(), res.body).toEqual({ success: true });
    const row = await historyRow(f.agent1, agent1Call.call.id, 'oldest');
    const loaded = await read<CallUserJson>(f.agent1, `/api/v1/callusers/${agent1Call.callUserId}`);
    const tag = loaded.call.profile!.tags.find((t) => t.name === 'Quote sent');
    return [
      ['GET /api/v1/mycalls stage', 'key', row.stage?.key],
      ['GET /api/v1/callusers profile.tags[]', 'key', tag?.key],
    ];
  },
  async settle(_res, context) {
    const { tagId } = context as ChosenTag;
    if (tagId === null) return;
    await f.t.database.db.update(tags).set({ key: 'quote-sent' }).where(eq(tags.id, tagId));
  },
};

const API_WRITES: ApiWrite[] = [intake, outbound, retry, conferenceLead, note, sms, stage];

/** Every field of `write` holding `text`. */
const allFields = (write: ApiWrite, text: string): Values =>
  Object.fromEntries(Object.keys(write.fields).map((field) => [field, text]));

/** Prepares, writes, reads back and settles; the rows the write added, by table. */
async function roundTrip(write: ApiWrite, values: Values) {
  const context = await write.prepare?.(values);
  const before = await rowCounts();
  const res = await write.write(values, context);
  try {
    const found = await write.readBack(res, context);
    expect(new Set(found.map(([, field]) => field))).toEqual(new Set(Object.keys(values)));
    for (const [where, field, value] of found)
      expect(value, `${where} ${field}`).toBe(values[field]);
  } finally {
    await write.settle?.(res, context);
  }
  return delta(before, await rowCounts());
}

/** Prepares and writes `values`, which must be refused with a 422 saying `error` and change no row. */
async function refusedWrite(write: ApiWrite, values: Values, error: string) {
  const context = await write.prepare?.(values);
  const before = await fingerprint(f.t.database.db);
  const res = await write.write(values, context);
  try {
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json()).toEqual({ error });
    expect(await fingerprint(f.t.database.db), 'rows changed').toBe(before);
  } finally {
    await write.settle?.(res, context);
  }
}

for (const write of API_WRITES)
  describe(write.name, () => {
    const fields = Object.keys(write.fields);
    let plain: Record<string, number> | undefined;
    /** The rows plain text adds: the measure of "changed nothing else". */
    const plainDelta = async () => (plain ??= await roundTrip(write, allFields(write, PLAIN_TEXT)));

    it('plain text is stored and returned as given', async () => {
      expect(await plainDelta()).not.toEqual({});
    });

    it.each(named(HOSTILE_TEXTS))(
      '%s: returned byte for byte, and the same rows added as for plain text',
      async (_name, { text }) => {
        const expected = await plainDelta();
        expect(await roundTrip(write, allFields(write, text))).toEqual(expected);
      },
    );

    it('text at each field’s limit is stored whole', async () => {
      const expected = await plainDelta();
      const values = Object.fromEntries(
        Object.entries(write.fields).map(([field, limit]) => [
          field,
          hostileTextOfLength(limit.maxLength),
        ]),
      );
      expect(await roundTrip(write, values)).toEqual(expected);
    });

    it.each(fields)(
      '%s one character over its limit: refused (422), nothing stored',
      async (field) => {
        const { maxLength, tooLong } = write.fields[field]!;
        const values = {
          ...allFields(write, PLAIN_TEXT),
          [field]: hostileTextOfLength(maxLength + 1),
        };
        await refusedWrite(write, values, tooLong);
      },
    );

    it.each(
      fields.flatMap((field) =>
        named(UNSTORABLE_TEXTS).map(([name, u]) => [field, name, u] as const),
      ),
    )('%s with %s: refused (422), nothing stored', async (field, _name, { text, error }) => {
      const values = { ...allFields(write, PLAIN_TEXT), [field]: text };
      await refusedWrite(write, values, `The ${field} ${error}`);
    });
  });

describe('lead email via POST /api/v1/leads (addresses only)', () => {
  it('an address with a quote and a plus is stored and returned as given', async () => {
    const email = "o'brien+<b>@example.com".replace('<b>', 'tag');
    const res = await send({
      method: 'POST',
      url: '/api/v1/leads',
      headers: API_KEY,
      payload: { fname: 'Plain', email, phone_number: newPhone() },
    });
    const { lead, call } = res.json<{ lead: LeadJson; call: { id: number; agent_id: number } }>();
    expect(lead.email).toBe(email);
    const rung = agentById(call.agent_id);
    const loaded = await read<CallUserJson>(
      rung,
      `/api/v1/callusers/${await callUserOf(call.id, rung)}`,
    );
    expect(loaded.call.lead!.email).toBe(email);
    await ignoreInTurn(call.id, call.agent_id);
  });

  it.each(named([...HOSTILE_TEXTS, ...UNSTORABLE_TEXTS]))(
    '%s: refused as not an address (422), nothing stored',
    async (_name, { text }) => {
      const before = await fingerprint(f.t.database.db);
      const res = await send({
        method: 'POST',
        url: '/api/v1/leads',
        headers: API_KEY,
        payload: { fname: 'Plain', email: text, phone_number: newPhone() },
      });
      expect(res.statusCode).toBe(422);
      expect(res.json()).toEqual({ error: 'The email must be a valid email address.' });
      expect(await fingerprint(f.t.database.db), 'rows changed').toBe(before);
    },
  );
});

describe('agent search via GET /api/v1/users/paginated?search=', () => {
  const search = (text: string) =>
    send({
      method: 'GET',
      url: `/api/v1/users/paginated?status=all&search=${encodeURIComponent(text)}`,
      headers: f.auth(f.agent1, false),
    });

  it.each(named([...HOSTILE_TEXTS, { name: 'the limit (100)', text: hostileTextOfLength(100) }]))(
    '%s: searched as text (nobody matches), nothing changed',
    async (_name, { text }) => {
      const before = await fingerprint(f.t.database.db);
      const res = await search(text);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ data: [], meta: { total: 0 } });
      expect(await fingerprint(f.t.database.db), 'rows changed').toBe(before);
    },
  );

  it.each(
    named([
      {
        name: '101 characters',
        text: hostileTextOfLength(101),
        error: 'The search may not be longer than 100 characters.',
      },
      {
        name: 'NUL character',
        text: 'before\u0000after',
        error: 'The search may not contain the NUL character.',
      },
    ]),
  )('%s: refused (422), nothing changed', async (_name, { text, error }) => {
    const before = await fingerprint(f.t.database.db);
    const res = await search(text);
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({ error });
    expect(await fingerprint(f.t.database.db), 'rows changed').toBe(before);
  });
});

describe('the WebRTC debug report (POST /twilio/debug/webrtc): logged, never stored', () => {
  it.each(named([...HOSTILE_TEXTS, { name: 'the limit (200)', text: hostileTextOfLength(200) }]))(
    '%s: accepted, nothing stored',
    async (_name, { text }) => {
      const before = await fingerprint(f.t.database.db);
      const res = await send({
        method: 'POST',
        url: '/twilio/debug/webrtc',
        headers: f.auth(f.agent1),
        payload: { user: text, conn_status: text },
      });
      expect(res.json()).toEqual({ success: true });
      expect(await fingerprint(f.t.database.db), 'rows changed').toBe(before);
    },
  );

  it.each(named(UNSTORABLE_TEXTS))('%s: refused (422)', async (_name, { text, error }) => {
    const res = await send({
      method: 'POST',
      url: '/twilio/debug/webrtc',
      headers: f.auth(f.agent1),
      payload: { conn_status: text },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json<{ error: string }>().error).toBe(`The conn_status ${error}`);
  });
});

/** A field no API writes (the seed or an administrator does), read back through the API. */
interface SeededField {
  readonly name: string;
  /** Stores `text` in the field (a row update, as an administrator's tool would). */
  set(text: string): Promise<void>;
  readBack(text: string): Promise<Array<[where: string, value: unknown]>>;
  /** Puts the seed's value back. */
  restore(): Promise<void>;
}

const userFullName: SeededField = {
  name: "agent1's full_name",
  async set(text) {
    await f.t.database.db
      .update(users)
      .set({ fullName: text })
      .where(eq(users.id, f.agent1.userId));
  },
  async readBack(text) {
    const me = await read<{ user: { full_name: string } }>(f.agent1, '/api/v1/user');
    const listed = await read<{ data: { id: number; full_name: string }[] }>(
      f.agent2,
      `/api/v1/users/paginated?status=all&search=${encodeURIComponent(text.slice(0, 100))}`,
    );
    const auth = await send({
      method: 'POST',
      url: '/api/v1/pusher/auth',
      headers: f.auth(f.agent1),
      payload: { socket_id: '123.456', channel_name: `presence-user-${f.agent1.userId}` },
    });
    const presence = JSON.parse(auth.json<{ channel_data: string }>().channel_data) as {
      user_info: { name: string };
    };
    const loaded = await read<CallUserJson>(f.agent1, `/api/v1/callusers/${agent1Call.callUserId}`);
    const row = await historyRow(f.agent1, agent1Call.call.id, 'oldest');
    return [
      ['GET /api/v1/user user.full_name', me.user.full_name],
      [
        'GET /api/v1/users/paginated?search= (only agent1)',
        listed.data.length === 1 && listed.data[0]!.id === f.agent1.userId
          ? listed.data[0]!.full_name
          : listed.data,
      ],
      ['POST /api/v1/pusher/auth channel_data user_info.name', presence.user_info.name],
      ['GET /api/v1/callusers call.agent_name', loaded.call.agent_name],
      ['GET /api/v1/mycalls user.name', row.user?.name],
    ];
  },
  async restore() {
    await this.set('Alex Rivera');
  },
};

const teamName: SeededField = {
  name: 'team name',
  async set(text) {
    await f.t.database.db
      .update(teams)
      .set({ name: text })
      .where(and(eq(teams.accountId, f.agent1.accountId), eq(teams.id, await salesTeamId())));
  },
  async readBack() {
    const { data } = await read<{ data: { id: number; name: string }[] }>(
      f.agent1,
      '/api/v1/teams',
    );
    const id = await salesTeamId();
    return [['GET /api/v1/teams name', data.find((t) => t.id === id)?.name]];
  },
  async restore() {
    await this.set('Sales');
  },
};

let salesTeam: number | undefined;
async function salesTeamId(): Promise<number> {
  if (salesTeam === undefined) {
    const [row] = await f.t.database.db
      .select({ id: teams.id })
      .from(teams)
      .where(and(eq(teams.accountId, f.agent1.accountId), eq(teams.name, 'Sales')));
    salesTeam = row!.id;
  }
  return salesTeam;
}

const MAIN_LINE = '+15550142000';
const callerIdName: SeededField = {
  name: 'caller-ID name',
  async set(text) {
    await f.t.database.db
      .update(callerNumbers)
      .set({ name: text })
      .where(eq(callerNumbers.phoneNumber, MAIN_LINE));
  },
  async readBack() {
    const { data } = await read<{ data: { id: number; name: string }[] }>(
      f.agent1,
      '/api/v1/callerids',
    );
    const [mainLine] = await f.t.database.db
      .select({ id: callerNumbers.id })
      .from(callerNumbers)
      .where(eq(callerNumbers.phoneNumber, MAIN_LINE));
    // A caller dials the number: the ringing agent's call carries the number's name (the banner).
    const inbound = await send({
      method: 'POST',
      url: '/api/v1/sandbox/inbound',
      headers: API_KEY,
      payload: { from: newPhone(), to: MAIN_LINE },
    });
    const { call } = inbound.json<{ call: { id: number; agent_id: number } }>();
    const rung = agentById(call.agent_id);
    const loaded = await read<CallUserJson>(
      rung,
      `/api/v1/callusers/${await callUserOf(call.id, rung)}`,
    );
    await ignoreInTurn(call.id, call.agent_id);
    return [
      ['GET /api/v1/callerids name', data.find((n) => n.id === mainLine!.id)?.name],
      ['GET /api/v1/callusers call.number.name', loaded.call.number?.name],
    ];
  },
  async restore() {
    await this.set('Acme Solar main line');
  },
};

const tagName: SeededField = {
  name: 'tag name',
  async set(text) {
    await f.t.database.db
      .update(tags)
      .set({ name: text })
      .where(and(eq(tags.profileId, agent1Call.call.profileId!), eq(tags.key, 'follow-up')));
  },
  async readBack() {
    await send({
      method: 'POST',
      url: `/apps/webrtc/${agent1Call.call.id}/disposition2`,
      headers: f.auth(f.agent1),
      payload: { key: 'follow-up' },
    });
    const loaded = await read<CallUserJson>(f.agent1, `/api/v1/callusers/${agent1Call.callUserId}`);
    const row = await historyRow(f.agent1, agent1Call.call.id, 'oldest');
    return [
      [
        'GET /api/v1/callusers profile.tags[].name',
        loaded.call.profile!.tags.find((t) => t.key === 'follow-up')?.name,
      ],
      ['GET /api/v1/mycalls stage.name', row.stage?.name],
    ];
  },
  async restore() {
    await this.set('Follow up');
  },
};

describe.each(named([userFullName, teamName, callerIdName, tagName]))(
  '%s (seeded; no API writes it)',
  (_field, field) => {
    it.each(
      named([
        ...HOSTILE_TEXTS,
        { name: 'very long (10,000 characters)', text: hostileTextOfLength(10_000) },
      ]),
    )('%s: returned byte for byte everywhere', async (_name, { text }) => {
      await field.set(text);
      try {
        for (const [where, value] of await field.readBack(text)) expect(value, where).toBe(text);
      } finally {
        await field.restore();
      }
    });
  },
);
