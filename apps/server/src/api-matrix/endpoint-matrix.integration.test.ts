/**
 * Every endpoint of the spec's section 7 × the cases of issue 3: happy path, validation error,
 * missing permission (where one is needed), missing CSRF (mutating requests), through
 * `fastify.inject` against a real database. The test names form the endpoint × case table
 * (other accounts' ids: cross-account.integration.test.ts).
 */
import { createHmac } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calls, callUsers, notes, smsMessages, users } from '../db/schema';
import { fingerprint } from '../test-support/db-fingerprint';
import { startFixture, type Fixture } from '../test-support/fixture';
import { TEST_API_KEY, TEST_PUSHER } from '../test-support/test-app';

let f: Fixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(() => f.t.close());

const inject = (options: InjectOptions): Promise<LightMyRequestResponse> => f.t.app.inject(options);

/** Sends a request that must be refused with `status` and change no row. */
async function refused(options: InjectOptions, status: number): Promise<Record<string, unknown>> {
  const before = await fingerprint(f.t.database.db);
  const res = await inject(options);
  await f.t.flows.idle();
  expect(res.statusCode, res.body).toBe(status);
  expect(await fingerprint(f.t.database.db)).toBe(before);
  return res.json();
}

/** The CSRF case of a mutating endpoint. */
const csrfCase = (build: () => Promise<InjectOptions> | InjectOptions) => async () => {
  const options = await build();
  const { 'x-csrf-token': _dropped, ...headers } = options.headers as Record<string, string>;
  const body = await refused({ ...options, headers }, 403);
  expect(String(body.error)).toMatch(/CSRF token mismatch/);
  // End any call the case set up, so later cases find their agents free.
  for (const live of await f.t.database.db
    .select()
    .from(calls)
    .where(eq(calls.status, 'in-progress'))) {
    await f.endCall(live);
  }
};

/**
 * The agents of account A ignore a ringing call one after another, starting with `firstUserId`
 * (whoever it rings next ignores it next); resolves with the call's status each answer gave.
 */
async function ignoreInTurn(callId: number, firstUserId: number): Promise<string[]> {
  const byId = new Map([f.agent1, f.agent2, f.supervisor, f.basic].map((a) => [a.userId, a]));
  const statuses: string[] = [];
  let ringing = byId.get(firstUserId);
  while (ringing && statuses.length <= byId.size) {
    const res = await inject({
      method: 'POST',
      url: `/apps/webrtc/${callId}/reject`,
      headers: f.auth(ringing),
    });
    const answer = res.json<{ success: boolean; call: { id: number; status: string } }>();
    expect(answer).toMatchObject({ success: true, call: { id: callId } });
    statuses.push(answer.call.status);
    const [next] = await f.t.database.db
      .select()
      .from(callUsers)
      .where(and(eq(callUsers.callId, callId), eq(callUsers.outcome, 'ringing')));
    ringing = next ? byId.get(next.userId) : undefined;
  }
  return statuses;
}

type Case = [name: string, run: () => Promise<void>];
const ENDPOINTS: Array<[endpoint: string, cases: Case[]]> = [
  [
    'POST /api/v1/user/login',
    [
      [
        'happy path',
        async () => {
          const res = await inject({
            method: 'POST',
            url: '/api/v1/user/login',
            payload: { email: 'agent2@example.com', password: 'leadline-demo' },
          });
          expect(res.statusCode).toBe(200);
          expect(res.json()).toEqual({ success: true });
        },
      ],
      [
        'validation error',
        async () => {
          expect(
            await refused(
              { method: 'POST', url: '/api/v1/user/login', payload: { email: 'x' } },
              422,
            ),
          ).toEqual({
            error: 'The email must be a valid email address.',
          });
        },
      ],
      [
        'wrong password',
        async () => {
          expect(
            await refused(
              {
                method: 'POST',
                url: '/api/v1/user/login',
                payload: { email: 'agent2@example.com', password: 'no' },
              },
              401,
            ),
          ).toEqual({ success: false, error: 'Your login credentials are invalid.' });
        },
      ],
    ],
  ],
  [
    'POST /api/v1/user/logout',
    [
      [
        'happy path',
        async () => {
          const res = await inject({
            method: 'POST',
            url: '/api/v1/user/login',
            payload: { email: 'agent2@example.com', password: 'leadline-demo' },
          });
          const cookie = `leadline_session=${res.cookies[0]!.value}`;
          const me = await inject({ method: 'GET', url: '/api/v1/user', headers: { cookie } });
          const out = await inject({
            method: 'POST',
            url: '/api/v1/user/logout',
            headers: { cookie, 'x-csrf-token': me.json<{ csrf_token: string }>().csrf_token },
          });
          expect(out.json()).toEqual({ success: true });
          expect(
            (await inject({ method: 'GET', url: '/api/v1/user', headers: { cookie } })).statusCode,
          ).toBe(401);
        },
      ],
      [
        'missing CSRF',
        csrfCase(() => ({ method: 'POST', url: '/api/v1/user/logout', headers: f.auth(f.agent1) })),
      ],
      [
        'no session',
        async () => {
          await refused({ method: 'POST', url: '/api/v1/user/logout' }, 401);
        },
      ],
    ],
  ],
  [
    'GET /api/v1/user',
    [
      [
        'happy path',
        async () => {
          const res = await inject({
            method: 'GET',
            url: '/api/v1/user?time=1',
            headers: f.auth(f.agentB, false),
          });
          expect(res.json()).toMatchObject({
            success: true,
            user: {
              account_id: 6671,
              settings: { hide_lead_email: true, history_shows_lead_name: true },
            },
          });
        },
      ],
      [
        'no session',
        async () => {
          await refused({ method: 'GET', url: '/api/v1/user' }, 401);
        },
      ],
    ],
  ],
  [
    'PUT /api/v1/user/settings',
    [
      [
        'happy path',
        async () => {
          const res = await inject({
            method: 'PUT',
            url: '/api/v1/user/settings',
            headers: f.auth(f.agent2),
            payload: { autoaccept: true },
          });
          expect(res.json()).toEqual({ success: true, autoaccept: true });
          const me = await inject({
            method: 'GET',
            url: '/api/v1/user',
            headers: f.auth(f.agent2, false),
          });
          expect(me.json()).toMatchObject({ user: { autoaccept: true } });
          await inject({
            method: 'PUT',
            url: '/api/v1/user/settings',
            headers: f.auth(f.agent2),
            payload: { autoaccept: false },
          });
        },
      ],
      [
        'validation error',
        async () => {
          expect(
            await refused(
              {
                method: 'PUT',
                url: '/api/v1/user/settings',
                headers: f.auth(f.agent2),
                payload: { autoaccept: 'yes' },
              },
              422,
            ),
          ).toEqual({
            error: 'The autoaccept field must be true or false.',
          });
        },
      ],
      [
        'missing permission',
        async () => {
          expect(
            await refused(
              {
                method: 'PUT',
                url: '/api/v1/user/settings',
                headers: f.auth(f.basic),
                payload: { autoaccept: true },
              },
              403,
            ),
          ).toEqual({
            success: false,
            error: 'You need the app-autoaccept permission to change Auto Accept.',
          });
        },
      ],
      [
        'missing CSRF',
        csrfCase(() => ({
          method: 'PUT',
          url: '/api/v1/user/settings',
          headers: f.auth(f.agent2),
          payload: { autoaccept: true },
        })),
      ],
    ],
  ],
  [
    'GET /api/v1/twilio/token2',
    [
      [
        'happy path',
        async () => {
          const res = await inject({
            method: 'GET',
            url: '/api/v1/twilio/token2?time=5',
            headers: f.auth(f.agent1, false),
          });
          expect(res.json<{ token: string }>().token.split('.')).toHaveLength(3);
        },
      ],
      [
        'no session',
        async () => {
          await refused({ method: 'GET', url: '/api/v1/twilio/token2' }, 401);
        },
      ],
    ],
  ],
  [
    'GET /api/v1/mycalls',
    [
      [
        'happy path',
        async () => {
          const { call } = await f.liveCall(f.agent1);
          f.clock.advance(65_000);
          await f.endCall(call);
          // What the agent recorded after the call shows in the row.
          for (const [url, payload] of [
            [`/apps/webrtc/${call.id}/disposition2`, { key: 'quote-sent' }],
            ['/api/v1/notes', { content: 'Call back on Tuesday', call_id: call.id }],
          ] as const) {
            const saved = await inject({ method: 'POST', url, headers: f.auth(f.agent1), payload });
            expect(saved.json()).toMatchObject({ success: true });
          }
          const res = await inject({
            method: 'GET',
            url: '/api/v1/mycalls?limit=5&page=1',
            headers: f.auth(f.agent1, false),
          });
          const body = res.json<{
            data: Array<Record<string, unknown>>;
            meta: Record<string, number>;
          }>();
          expect(body.meta).toMatchObject({ current_page: 1, per_page: 5 });
          expect(body.data[0]).toMatchObject({
            id: call.id,
            status: 'completed',
            status_display: '01:05',
            seconds: 65,
            duration: '01:05',
            retry: true,
            user: { name: 'Alex Rivera' },
            lead: { fname: 'Lee', lname: 'Lead', label: 'Lee Lead' },
            stage: { key: 'quote-sent', name: 'Quote sent', color: '#f29900' },
            notes: [
              {
                id: expect.any(Number) as number,
                content: 'Call back on Tuesday',
                created_at: expect.any(String) as string,
              },
            ],
          });
        },
      ],
      [
        'validation error',
        async () => {
          expect(
            await refused(
              { method: 'GET', url: '/api/v1/mycalls?limit=0', headers: f.auth(f.agent1, false) },
              422,
            ),
          ).toEqual({
            error: 'The limit must be at least 1.',
          });
          expect(
            await refused(
              { method: 'GET', url: '/api/v1/mycalls?page=abc', headers: f.auth(f.agent1, false) },
              422,
            ),
          ).toEqual({
            error: 'The page must be a number.',
          });
        },
      ],
    ],
  ],
  [
    'GET /api/v1/users/paginated',
    [
      [
        'happy path',
        async () => {
          const online = await inject({
            method: 'GET',
            url: '/api/v1/users/paginated?page=1',
            headers: f.auth(f.agent1, false),
          });
          const body = online.json<{
            data: Array<{ full_name: string; is_online_app: boolean }>;
            meta: Record<string, number>;
          }>();
          expect(body.meta).toMatchObject({ current_page: 1, last_page: 1 });
          expect(body.data.map((a) => a.full_name)).toEqual([
            'Basil Basic',
            'Blake Chen',
            'Sam Okafor',
          ]);
          const search = await inject({
            method: 'GET',
            url: '/api/v1/users/paginated?status=all&search=oka',
            headers: f.auth(f.agent1, false),
          });
          expect(
            search.json<{ data: Array<{ full_name: string }> }>().data.map((a) => a.full_name),
          ).toEqual(['Sam Okafor']);
          const { call } = await f.liveCall(f.agent2);
          const onCall = await inject({
            method: 'GET',
            url: '/api/v1/users/paginated?status=on_call',
            headers: f.auth(f.supervisor, false),
          });
          expect(onCall.json()).toMatchObject({
            data: [{ full_name: 'Blake Chen', on_call_id: call.id }],
          });
          const available = await inject({
            method: 'GET',
            url: '/api/v1/users/paginated?status=available',
            headers: f.auth(f.supervisor, false),
          });
          expect(
            available.json<{ data: Array<{ full_name: string }> }>().data.map((a) => a.full_name),
          ).toEqual(['Alex Rivera', 'Basil Basic']);
          await f.endCall(call);
        },
      ],
      [
        'team filter',
        async () => {
          const teams = await inject({
            method: 'GET',
            url: '/api/v1/teams',
            headers: f.auth(f.agent1, false),
          });
          const support = teams
            .json<{ data: Array<{ id: number; name: string }> }>()
            .data.find((t) => t.name === 'Support')!;
          const res = await inject({
            method: 'GET',
            url: `/api/v1/users/paginated?status=all&team_id=${support.id}`,
            headers: f.auth(f.agent1, false),
          });
          expect(
            res.json<{ data: Array<{ full_name: string }> }>().data.map((a) => a.full_name),
          ).toEqual(['Blake Chen']);
        },
      ],
      [
        'validation error',
        async () => {
          expect(
            await refused(
              {
                method: 'GET',
                url: '/api/v1/users/paginated?status=sleeping',
                headers: f.auth(f.agent1, false),
              },
              422,
            ),
          ).toEqual({
            error: 'The status must be one of online, all, available, on_call.',
          });
        },
      ],
    ],
  ],
  [
    'GET /api/v1/teams',
    [
      [
        'happy path',
        async () => {
          const res = await inject({
            method: 'GET',
            url: '/api/v1/teams',
            headers: f.auth(f.agent1, false),
          });
          expect(res.json()).toEqual({
            data: [
              { id: expect.any(Number) as number, name: 'Sales', is_available: true },
              { id: expect.any(Number) as number, name: 'Support', is_available: true },
            ],
          });
        },
      ],
    ],
  ],
  [
    'GET /api/v1/callerids',
    [
      [
        'happy path',
        async () => {
          const res = await inject({
            method: 'GET',
            url: '/api/v1/callerids',
            headers: f.auth(f.agent1, false),
          });
          expect(
            res.json<{ data: Array<{ name: string; phone_number_formatted: string }> }>().data,
          ).toEqual([
            {
              id: expect.any(Number) as number,
              name: 'Acme Solar main line',
              phone_number_formatted: '+1 555 014 2000',
            },
            {
              id: expect.any(Number) as number,
              name: 'Acme Solar spring campaign',
              phone_number_formatted: '+1 555 014 2010',
            },
          ]);
        },
      ],
    ],
  ],
  [
    'POST /api/v1/calls/conference',
    [
      [
        'happy path',
        async () => {
          const { call } = await f.liveCall(f.agent1);
          const res = await inject({
            method: 'POST',
            url: '/api/v1/calls/conference',
            headers: f.auth(f.agent1),
            payload: { user_id: f.agent2.userId },
          });
          expect(res.json()).toEqual({ success: true });
          expect(f.t.telephony.ops('ringAgent').at(-1)).toMatchObject({
            callSid: call.sid,
            identity: String(f.agent2.userId),
            role: 'conference',
          });
          const [cu] = await f.t.database.db
            .select()
            .from(callUsers)
            .where(eq(callUsers.userId, f.agent2.userId))
            .orderBy(callUsers.id);
          expect(cu).toBeDefined();
          await f.endCall(call);
        },
      ],
      [
        'validation error',
        async () => {
          expect(
            await refused(
              {
                method: 'POST',
                url: '/api/v1/calls/conference',
                headers: f.auth(f.agent1),
                payload: { user_id: 'me' },
              },
              422,
            ),
          ).toEqual({
            error: 'The user id field is required.',
          });
        },
      ],
      [
        'not on a call',
        async () => {
          expect(
            await refused(
              {
                method: 'POST',
                url: '/api/v1/calls/conference',
                headers: f.auth(f.agent1),
                payload: { user_id: f.agent2.userId },
              },
              409,
            ),
          ).toEqual({
            success: false,
            error: 'You are not on a call.',
          });
        },
      ],
      [
        'missing CSRF',
        csrfCase(() => ({
          method: 'POST',
          url: '/api/v1/calls/conference',
          headers: f.auth(f.agent1),
          payload: { user_id: f.agent2.userId },
        })),
      ],
    ],
  ],
  [
    'POST /apps/webrtc/{id}/reject',
    [
      [
        'happy path',
        async () => {
          const { call } = await f.t.flows.retry(await f.userOf(f.agent1), {
            fname: 'R',
            lname: '',
            phone_number: '+15550100301',
          });
          // Each Ignore moves the call to the next agent; after the last, it is missed.
          expect(await ignoreInTurn(call.id, f.agent1.userId)).toEqual([
            'ringing',
            'ringing',
            'ringing',
            'missed',
          ]);
          const [row] = await f.t.database.db.select().from(calls).where(eq(calls.id, call.id));
          expect(row).toMatchObject({ status: 'missed', reason: 'no-agent-answered' });
          // Ignoring a call that does not ring for you any more is refused.
          expect(
            await refused(
              { method: 'POST', url: `/apps/webrtc/${call.id}/reject`, headers: f.auth(f.agent1) },
              409,
            ),
          ).toEqual({ success: false, error: 'This call is not ringing for you.' });
        },
      ],
      [
        'validation error',
        async () => {
          expect(
            await refused(
              { method: 'POST', url: '/apps/webrtc/abc/reject', headers: f.auth(f.agent1) },
              422,
            ),
          ).toEqual({
            error: 'The id must be a number.',
          });
        },
      ],
      [
        'missing CSRF',
        csrfCase(() => ({
          method: 'POST',
          url: '/apps/webrtc/1/reject',
          headers: f.auth(f.agent1),
        })),
      ],
    ],
  ],
  [
    'POST /api/v1/pusher/auth',
    [
      [
        'happy path (form-encoded, as pusher-js sends it)',
        async () => {
          const channel = `presence-user-${f.agent1.userId}`;
          const res = await inject({
            method: 'POST',
            url: '/api/v1/pusher/auth',
            headers: { ...f.auth(f.agent1), 'content-type': 'application/x-www-form-urlencoded' },
            payload: `socket_id=123.456&channel_name=${channel}`,
          });
          const body = res.json<{ auth: string; channel_data: string }>();
          const expected = createHmac('sha256', TEST_PUSHER.secret)
            .update(`123.456:${channel}:${body.channel_data}`)
            .digest('hex');
          expect(body.auth).toBe(`${TEST_PUSHER.key}:${expected}`);
          expect(JSON.parse(body.channel_data)).toEqual({
            user_id: String(f.agent1.userId),
            user_info: { name: 'Alex Rivera' },
          });
        },
      ],
      [
        'validation error',
        async () => {
          expect(
            await refused(
              {
                method: 'POST',
                url: '/api/v1/pusher/auth',
                headers: f.auth(f.agent1),
                payload: { socket_id: 'x', channel_name: 'a' },
              },
              422,
            ),
          ).toEqual({
            error: 'The socket_id is not a valid socket id.',
          });
        },
      ],
      [
        "another user's channel",
        async () => {
          await refused(
            {
              method: 'POST',
              url: '/api/v1/pusher/auth',
              headers: f.auth(f.agent1),
              payload: { socket_id: '1.2', channel_name: `presence-user-${f.agent2.userId}` },
            },
            403,
          );
        },
      ],
      [
        'missing CSRF',
        csrfCase(() => ({
          method: 'POST',
          url: '/api/v1/pusher/auth',
          headers: f.auth(f.agent1),
          payload: { socket_id: '1.2', channel_name: `presence-user-${f.agent1.userId}` },
        })),
      ],
    ],
  ],
  [
    'POST /api/v1/calls/{id}/transfer',
    [
      [
        'happy path (to a user: the new agent takes over)',
        async () => {
          const { call, callUserId } = await f.liveCall(f.agent1);
          const res = await inject({
            method: 'POST',
            url: `/api/v1/calls/${call.id}/transfer`,
            headers: f.auth(f.agent1),
            payload: { user_id: f.agent2.userId, call_user_id: callUserId },
          });
          expect(res.json()).toEqual({ success: true });
          expect(f.t.telephony.ops('ringAgent').at(-1)).toMatchObject({
            identity: String(f.agent2.userId),
            role: 'agent',
          });
          f.t.telephony.emit({
            type: 'agent.answered',
            callSid: call.sid,
            identity: String(f.agent2.userId),
          });
          await f.t.flows.idle();
          expect(f.t.telephony.ops('removeAgent').at(-1)).toEqual({
            op: 'removeAgent',
            callSid: call.sid,
            identity: String(f.agent1.userId),
          });
          const [row] = await f.t.database.db.select().from(calls).where(eq(calls.id, call.id));
          expect(row).toMatchObject({ status: 'in-progress', userId: f.agent2.userId });
          await f.endCall(call);
        },
      ],
      [
        'happy path (to a team)',
        async () => {
          const { call, callUserId } = await f.liveCall(f.agent1);
          const teams = (
            await inject({ method: 'GET', url: '/api/v1/teams', headers: f.auth(f.agent1, false) })
          ).json<{ data: Array<{ id: number; name: string }> }>().data;
          const support = teams.find((t) => t.name === 'Support')!;
          const res = await inject({
            method: 'POST',
            url: `/api/v1/calls/${call.id}/transfer`,
            headers: f.auth(f.agent1),
            payload: { team_id: support.id, call_user_id: callUserId },
          });
          expect(res.json()).toEqual({ success: true });
          expect(f.t.telephony.ops('ringAgent').at(-1)).toMatchObject({
            identity: String(f.agent2.userId),
          });
          await f.endCall(call);
        },
      ],
      [
        'validation error',
        async () => {
          const { call } = await f.liveCall(f.agent1);
          expect(
            await refused(
              {
                method: 'POST',
                url: `/api/v1/calls/${call.id}/transfer`,
                headers: f.auth(f.agent1),
                payload: { user_id: f.agent2.userId },
              },
              422,
            ),
          ).toEqual({
            error: 'Give user_id or team_id, and call_user_id.',
          });
          await f.endCall(call);
        },
      ],
      [
        'target not available',
        async () => {
          const { call, callUserId } = await f.liveCall(f.agent1);
          const busy = await f.liveCall(f.agent2);
          expect(
            await refused(
              {
                method: 'POST',
                url: `/api/v1/calls/${call.id}/transfer`,
                headers: f.auth(f.agent1),
                payload: { user_id: f.agent2.userId, call_user_id: callUserId },
              },
              409,
            ),
          ).toEqual({
            success: false,
            error: 'This agent is not available.',
          });
          await f.endCall(call);
          await f.endCall(busy.call);
        },
      ],
      [
        'missing CSRF',
        csrfCase(async () => {
          const { call, callUserId } = await f.liveCall(f.agent1);
          return {
            method: 'POST',
            url: `/api/v1/calls/${call.id}/transfer`,
            headers: f.auth(f.agent1),
            payload: { user_id: f.agent2.userId, call_user_id: callUserId },
          };
        }),
      ],
    ],
  ],
  ...(['listen', 'whisper', 'barge'] as const).map((mode): [string, Case[]] => [
    `POST /api/v1/calls/{id}/${mode}`,
    [
      [
        'happy path',
        async () => {
          const { call } = await f.liveCall(f.agent2);
          const res = await inject({
            method: 'POST',
            url: `/api/v1/calls/${call.id}/${mode}`,
            headers: f.auth(f.supervisor),
          });
          expect(res.json()).toEqual({ success: true });
          expect(f.t.telephony.ops('ringAgent').at(-1)).toMatchObject({
            callSid: call.sid,
            identity: String(f.supervisor.userId),
            role: mode,
          });
          const cuId = Number(f.t.telephony.ops('ringAgent').at(-1)!.params.From!.slice(7));
          const cu = await inject({
            method: 'GET',
            url: `/api/v1/callusers/${cuId}`,
            headers: f.auth(f.supervisor, false),
          });
          expect(cu.json()).toMatchObject({ type: mode, autoaccept: true, call: { id: call.id } });
          await f.endCall(call);
        },
      ],
      [
        'validation error',
        async () => {
          await refused(
            { method: 'POST', url: `/api/v1/calls/0/${mode}`, headers: f.auth(f.supervisor) },
            422,
          );
        },
      ],
      [
        'missing permission',
        async () => {
          const { call } = await f.liveCall(f.agent2);
          expect(
            await refused(
              {
                method: 'POST',
                url: `/api/v1/calls/${call.id}/${mode}`,
                headers: f.auth(f.agent1),
              },
              403,
            ),
          ).toEqual({
            success: false,
            error: `You need the ${mode} permission to ${mode} ${mode === 'barge' ? 'into' : 'to'} calls.`,
          });
          await f.endCall(call);
        },
      ],
      [
        'missing CSRF',
        csrfCase(async () => {
          const { call } = await f.liveCall(f.agent2);
          return {
            method: 'POST',
            url: `/api/v1/calls/${call.id}/${mode}`,
            headers: f.auth(f.supervisor),
          };
        }),
      ],
    ],
  ]),
  ...(['hold', 'unhold'] as const).map((path): [string, Case[]] => [
    `PUT /api/v1/calls/{id}/${path}`,
    [
      [
        'happy path',
        async () => {
          const { call } = await f.liveCall(f.agent1);
          const res = await inject({
            method: 'PUT',
            url: `/api/v1/calls/${call.id}/${path}`,
            headers: f.auth(f.agent1),
          });
          expect(res.json()).toEqual({ success: true, held: path === 'hold' });
          expect(f.t.telephony.commands.at(-1)).toEqual({ op: path, callSid: call.sid });
          await f.endCall(call);
        },
      ],
      [
        'validation error',
        async () => {
          await refused(
            { method: 'PUT', url: `/api/v1/calls/-3/${path}`, headers: f.auth(f.agent1) },
            422,
          );
        },
      ],
      [
        'not on this call',
        async () => {
          const { call } = await f.liveCall(f.agent2);
          expect(
            await refused(
              { method: 'PUT', url: `/api/v1/calls/${call.id}/${path}`, headers: f.auth(f.agent1) },
              409,
            ),
          ).toEqual({
            success: false,
            error: 'You are not on this call.',
          });
          await f.endCall(call);
        },
      ],
      [
        'missing CSRF',
        csrfCase(async () => {
          const { call } = await f.liveCall(f.agent1);
          return {
            method: 'PUT',
            url: `/api/v1/calls/${call.id}/${path}`,
            headers: f.auth(f.agent1),
          };
        }),
      ],
    ],
  ]),
  [
    'GET /sounds/{name}.wav',
    [
      [
        'happy path (public: no session needed)',
        async () => {
          const me = await inject({
            method: 'GET',
            url: '/api/v1/user',
            headers: f.auth(f.agent1, false),
          });
          const { softphone } = me.json<{
            softphone: { sdk: string; sounds: Record<string, string> };
          }>();
          expect(softphone.sdk).toBe('leadline');
          expect(Object.keys(softphone.sounds)).toHaveLength(15);
          for (const url of Object.values(softphone.sounds)) {
            const res = await inject({ method: 'GET', url });
            expect(res.statusCode, url).toBe(200);
            expect(res.headers['content-type']).toBe('audio/wav');
            expect(res.rawPayload.subarray(0, 4).toString()).toBe('RIFF');
          }
        },
      ],
      [
        'unknown sound',
        async () => {
          for (const url of [
            '/sounds/ring.wav',
            '/sounds/dtmf1.mp3',
            '/sounds/..%2Fpackage.json',
          ]) {
            expect(await refused({ method: 'GET', url }, 404)).toEqual({ error: 'No such sound.' });
          }
        },
      ],
    ],
  ],
  [
    'GET /api/v1/calls/{id}/recording',
    [
      [
        'happy path',
        async () => {
          const { call } = await f.liveCall(f.agent1);
          await f.endCall(call);
          const wav = await f.recordCall(call);
          const history = await inject({
            method: 'GET',
            url: '/api/v1/mycalls?limit=5&page=1',
            headers: f.auth(f.agent1, false),
          });
          const row = history
            .json<{ data: Array<{ id: number; recording_url: string | null }> }>()
            .data.find((r) => r.id === call.id);
          expect(row?.recording_url).toBe(`/api/v1/calls/${call.id}/recording`);
          const res = await inject({
            method: 'GET',
            url: row!.recording_url!,
            headers: f.auth(f.agent1, false),
          });
          expect(res.statusCode).toBe(200);
          expect(res.headers['content-type']).toMatch(/^audio\/(wav|x-wav|wave)/);
          expect(res.rawPayload.equals(wav)).toBe(true);
          // The history's player seeks with ranges.
          const part = await inject({
            method: 'GET',
            url: row!.recording_url!,
            headers: { ...f.auth(f.agent1, false), range: 'bytes=0-43' },
          });
          expect(part.statusCode).toBe(206);
          expect(part.rawPayload.equals(wav.subarray(0, 44))).toBe(true);
          // Any user of the account may listen, not only the agent of the call.
          const other = await inject({
            method: 'GET',
            url: row!.recording_url!,
            headers: f.auth(f.supervisor, false),
          });
          expect(other.statusCode).toBe(200);
        },
      ],
      [
        'no recording (yet)',
        async () => {
          const { call } = await f.liveCall(f.agent1);
          await f.endCall(call);
          expect(
            await refused(
              {
                method: 'GET',
                url: `/api/v1/calls/${call.id}/recording`,
                headers: f.auth(f.agent1, false),
              },
              404,
            ),
          ).toEqual({ error: 'Recording not found.' });
        },
      ],
      [
        'validation error',
        async () => {
          expect(
            await refused(
              {
                method: 'GET',
                url: '/api/v1/calls/abc/recording',
                headers: f.auth(f.agent1, false),
              },
              422,
            ),
          ).toMatchObject({ error: expect.stringMatching(/id/) as unknown });
        },
      ],
      [
        'no session',
        async () => {
          await refused({ method: 'GET', url: '/api/v1/calls/1/recording' }, 401);
        },
      ],
    ],
  ],
  [
    'POST /apps/webrtc/{id}/disposition',
    [
      [
        'happy path',
        async () => {
          const { call } = await f.liveCall(f.agent1);
          await f.endCall(call);
          const res = await inject({
            method: 'POST',
            url: `/apps/webrtc/${call.id}/disposition`,
            headers: f.auth(f.agent1),
            payload: { status: 'voicemail' },
          });
          expect(res.json()).toEqual({ success: true });
          expect(
            (await f.t.database.db.select().from(calls).where(eq(calls.id, call.id)))[0]!
              .disposition,
          ).toBe('voicemail');
        },
      ],
      [
        'validation error',
        async () => {
          expect(
            await refused(
              {
                method: 'POST',
                url: '/apps/webrtc/1/disposition',
                headers: f.auth(f.agent1),
                payload: {},
              },
              422,
            ),
          ).toEqual({
            error: 'The status must be one of contacted, voicemail, missed, removed.',
          });
        },
      ],
      [
        'missing CSRF',
        csrfCase(() => ({
          method: 'POST',
          url: '/apps/webrtc/1/disposition',
          headers: f.auth(f.agent1),
          payload: { status: 'missed' },
        })),
      ],
    ],
  ],
  [
    'POST /apps/webrtc/{id}/disposition2',
    [
      [
        'happy path',
        async () => {
          const { call } = await f.liveCall(f.agent1);
          await f.endCall(call);
          const res = await inject({
            method: 'POST',
            url: `/apps/webrtc/${call.id}/disposition2`,
            headers: f.auth(f.agent1),
            payload: { key: 'quote-sent' },
          });
          expect(res.json()).toEqual({ success: true });
          expect(
            (await f.t.database.db.select().from(calls).where(eq(calls.id, call.id)))[0]!.stageKey,
          ).toBe('quote-sent');
        },
      ],
      [
        'validation error',
        async () => {
          expect(
            await refused(
              {
                method: 'POST',
                url: '/apps/webrtc/1/disposition2',
                headers: f.auth(f.agent1),
                payload: { key: 'no-such-tag' },
              },
              422,
            ),
          ).toEqual({
            error: "The key is not a tag of this call's profile.",
          });
        },
      ],
      [
        'missing CSRF',
        csrfCase(() => ({
          method: 'POST',
          url: '/apps/webrtc/1/disposition2',
          headers: f.auth(f.agent1),
          payload: { key: 'hot' },
        })),
      ],
    ],
  ],
  [
    'POST /api/v1/notes',
    [
      [
        'happy path',
        async () => {
          const res = await inject({
            method: 'POST',
            url: '/api/v1/notes',
            headers: f.auth(f.agent1),
            payload: { content: 'Call back Friday', call_id: 1 },
          });
          expect(res.statusCode).toBe(201);
          expect(
            await f.t.database.db.select().from(notes).where(eq(notes.content, 'Call back Friday')),
          ).toHaveLength(1);
        },
      ],
      [
        'validation error',
        async () => {
          expect(
            await refused(
              {
                method: 'POST',
                url: '/api/v1/notes',
                headers: f.auth(f.agent1),
                payload: { content: '   ', call_id: 1 },
              },
              422,
            ),
          ).toEqual({
            error: 'The content field is required.',
          });
        },
      ],
      [
        'missing CSRF',
        csrfCase(() => ({
          method: 'POST',
          url: '/api/v1/notes',
          headers: f.auth(f.agent1),
          payload: { content: 'x', call_id: 1 },
        })),
      ],
    ],
  ],
  [
    'POST /apps/webrtc/{id}/sms',
    [
      [
        'happy path',
        async () => {
          const res = await inject({
            method: 'POST',
            url: '/apps/webrtc/1/sms',
            headers: f.auth(f.agent1),
            payload: { smsbody: "Sorry we couldn't reach you!" },
          });
          expect(res.json()).toEqual({ success: true });
          expect(await f.t.database.db.select().from(smsMessages)).toHaveLength(1);
        },
      ],
      [
        'validation error',
        async () => {
          expect(
            await refused(
              {
                method: 'POST',
                url: '/apps/webrtc/1/sms',
                headers: f.auth(f.agent1),
                payload: { smsbody: 'x'.repeat(1601) },
              },
              422,
            ),
          ).toEqual({
            error: 'The smsbody may not be longer than 1600 characters.',
          });
        },
      ],
      [
        'missing permission',
        async () => {
          expect(
            await refused(
              {
                method: 'POST',
                url: '/apps/webrtc/1/sms',
                headers: f.auth(f.basic),
                payload: { smsbody: 'hi' },
              },
              403,
            ),
          ).toEqual({
            success: false,
            error: 'You need the app-sms permission to send an SMS.',
          });
        },
      ],
      [
        'missing CSRF',
        csrfCase(() => ({
          method: 'POST',
          url: '/apps/webrtc/1/sms',
          headers: f.auth(f.agent1),
          payload: { smsbody: 'hi' },
        })),
      ],
    ],
  ],
  [
    'POST /api/v1/calls/twilio (retry)',
    [
      [
        'happy path',
        async () => {
          const res = await inject({
            method: 'POST',
            url: '/api/v1/calls/twilio',
            headers: f.auth(f.agent1),
            payload: { fname: 'Jordan', lname: 'Miles', phone_number: '+15550100042' },
          });
          expect(res.json()).toMatchObject({
            success: true,
            call: { lead: { fname: 'Jordan', phone_number: '+15550100042' } },
          });
          // Rung to the agent who asked first; the others follow if they ignore it.
          expect(f.t.telephony.ops('ringAgent').at(-1)).toMatchObject({
            identity: String(f.agent1.userId),
          });
          expect(res.json()).toMatchObject({
            call: { status: 'ringing', agent_id: f.agent1.userId },
          });
          const callId = res.json<{ call: { id: number } }>().call.id;
          expect(await ignoreInTurn(callId, f.agent1.userId)).toEqual([
            'ringing',
            'ringing',
            'ringing',
            'missed',
          ]);
        },
      ],
      [
        'validation error',
        async () => {
          expect(
            await refused(
              {
                method: 'POST',
                url: '/api/v1/calls/twilio',
                headers: f.auth(f.agent1),
                payload: { fname: 'A' },
              },
              422,
            ),
          ).toEqual({
            error: 'The phone number field is required.',
          });
        },
      ],
      [
        'missing permission',
        async () => {
          await refused(
            {
              method: 'POST',
              url: '/api/v1/calls/twilio',
              headers: f.auth(f.basic),
              payload: { phone_number: '+15550100042' },
            },
            403,
          );
        },
      ],
      [
        'missing CSRF',
        csrfCase(() => ({
          method: 'POST',
          url: '/api/v1/calls/twilio',
          headers: f.auth(f.agent1),
          payload: { phone_number: '+15550100042' },
        })),
      ],
    ],
  ],
  [
    'POST /api/v1/calls/conferencelead',
    [
      [
        'happy path',
        async () => {
          const { call } = await f.liveCall(f.agent1);
          await f.t.database.db.update(calls).set({ leadId: null }).where(eq(calls.id, call.id));
          const dialled = f.t.telephony.ops('dial').length;
          const pending = inject({
            method: 'POST',
            url: '/api/v1/calls/conferencelead',
            headers: f.auth(f.agent1),
            payload: { call_id: call.id, fname: 'Nia', lname: 'New', phone_number: '+15550100321' },
          });
          // The answer waits for the added lead's phone: it answers.
          await expect.poll(() => f.t.telephony.ops('dial').length).toBe(dialled + 1);
          const added = f.t.telephony.ops('dial').at(-1)!;
          expect(added).toMatchObject({
            callSid: call.sid,
            number: '+15550100321',
            from: '+15550142000',
          });
          f.t.telephony.emit({
            type: 'phone.answered',
            callSid: call.sid,
            participantId: added.participantId,
          });
          const res = await pending;
          expect(res.json()).toMatchObject({
            success: true,
            outcome: 'answered',
            call: { id: call.id, lead: { fname: 'Nia' } },
            lead: { phone_number: '+15550100321' },
          });
          await f.endCall(call);
        },
      ],
      [
        'validation error',
        async () => {
          expect(
            await refused(
              {
                method: 'POST',
                url: '/api/v1/calls/conferencelead',
                headers: f.auth(f.agent1),
                payload: { phone_number: '+15550100321' },
              },
              422,
            ),
          ).toEqual({
            error: 'The call id field is required.',
          });
        },
      ],
      [
        'call already has a lead',
        async () => {
          const { call } = await f.liveCall(f.agent1);
          expect(
            await refused(
              {
                method: 'POST',
                url: '/api/v1/calls/conferencelead',
                headers: f.auth(f.agent1),
                payload: { call_id: call.id, phone_number: '+15550100321' },
              },
              409,
            ),
          ).toEqual({
            success: false,
            error: 'This call already has a lead.',
          });
          await f.endCall(call);
        },
      ],
      [
        'missing CSRF',
        csrfCase(() => ({
          method: 'POST',
          url: '/api/v1/calls/conferencelead',
          headers: f.auth(f.agent1),
          payload: { call_id: 1, phone_number: '+15550100321' },
        })),
      ],
    ],
  ],
  [
    'POST /apps/webrtc/check',
    [
      [
        'happy path',
        async () => {
          // Only agent1 is online, and wrapping up after a call: a web lead waits in the queue.
          const others = [f.agent2, f.supervisor, f.basic];
          for (const id of others)
            f.t.telephony.emit({ type: 'device.offline', identity: String(id.userId) });
          await f.t.flows.idle();
          await f.t.flows.presence.startWrapUp(f.agent1.userId, 60);
          const intake = await inject({
            method: 'POST',
            url: '/api/v1/leads',
            headers: { authorization: `Bearer ${TEST_API_KEY}` },
            payload: { fname: 'Wanda', phone_number: '+15550100555' },
          });
          expect(intake.json()).toMatchObject({
            call: { status: 'queued', agent_id: null, reason: 'all-agents-busy' },
          });
          const callId = intake.json<{ call: { id: number } }>().call.id;
          // 'Check for lead': agent1 is done wrapping up and is rung with the waiting lead.
          const res = await inject({
            method: 'POST',
            url: '/apps/webrtc/check',
            headers: f.auth(f.agent1),
          });
          expect(res.json()).toEqual({ success: true, call: { id: callId, status: 'ringing' } });
          expect(f.t.telephony.ops('ringAgent').at(-1)).toMatchObject({
            identity: String(f.agent1.userId),
            params: { To: '+15550100555' },
          });
          // They ignore it: nobody else can take it, so it is missed and nothing waits.
          await inject({
            method: 'POST',
            url: `/apps/webrtc/${callId}/reject`,
            headers: f.auth(f.agent1),
          });
          const [row] = await f.t.database.db.select().from(calls).where(eq(calls.id, callId));
          expect(row).toMatchObject({ status: 'missed', reason: 'no-agent-answered' });
          const again = await inject({
            method: 'POST',
            url: '/apps/webrtc/check',
            headers: f.auth(f.agent1),
          });
          expect(again.statusCode).toBe(200);
          expect(again.json()).toEqual({ success: false, error: 'No leads waiting.' });
          for (const id of others)
            f.t.telephony.emit({ type: 'device.online', identity: String(id.userId) });
          await f.t.flows.idle();
        },
      ],
      [
        'missing CSRF',
        csrfCase(() => ({ method: 'POST', url: '/apps/webrtc/check', headers: f.auth(f.agent1) })),
      ],
    ],
  ],
  [
    'GET /api/v1/callusers/{id}',
    [
      [
        'happy path',
        async () => {
          const { call, callUserId } = await f.liveCall(f.agent1);
          const res = await inject({
            method: 'GET',
            url: `/api/v1/callusers/${callUserId}`,
            headers: f.auth(f.agent1, false),
          });
          expect(res.json()).toMatchObject({
            type: 'lead',
            autoaccept: false,
            call: { id: call.id, direction: 'outbound', held: false },
          });
          await f.endCall(call);
        },
      ],
      [
        'validation error',
        async () => {
          await refused(
            { method: 'GET', url: '/api/v1/callusers/1.5', headers: f.auth(f.agent1, false) },
            422,
          );
        },
      ],
    ],
  ],
  [
    'POST /api/v1/calls/twilio/outbound',
    [
      [
        'happy path',
        async () => {
          const res = await inject({
            method: 'POST',
            url: '/api/v1/calls/twilio/outbound',
            headers: f.auth(f.agent1),
            payload: {
              fname: 'Olu',
              lname: 'Out',
              phone_number: '(555) 010-0777',
              agent_id: f.agent1.userId,
              interface: 'desktop',
            },
          });
          const body = res.json<{
            success: boolean;
            call_user_id: number;
            call: { id: number; phone_number: string };
          }>();
          expect(body).toMatchObject({
            success: true,
            call: { phone_number: '+15550100777', lead: { fname: 'Olu' } },
          });
          const decision = await f.t.flows.authorizeOutgoing(String(f.agent1.userId), {
            call_user_id: String(body.call_user_id),
            To: '+15550100777',
          });
          const [row] = await f.t.database.db
            .select()
            .from(calls)
            .where(eq(calls.id, body.call.id));
          // Dialled from the account's main line (no caller ID was chosen).
          expect(decision).toEqual({
            callSid: row!.sid,
            dial: '+15550100777',
            from: '+15550142000',
          });
          expect(row).toMatchObject({
            status: 'in-progress',
            userId: f.agent1.userId,
            direction: 'outbound',
          });
          // The engine dials the number itself and reports its phone party: it answers, then
          // hangs up, and the call is over.
          for (const type of ['phone.answered', 'phone.left'] as const) {
            f.t.telephony.emit({ type, callSid: row!.sid, participantId: `${row!.sid}.phone.1` });
          }
          await f.t.flows.idle();
          const [ended] = await f.t.database.db.select().from(calls).where(eq(calls.id, row!.id));
          expect(ended).toMatchObject({ status: 'completed' });
          await f.endCall(row!);
        },
      ],
      [
        'validation error',
        async () => {
          expect(
            await refused(
              {
                method: 'POST',
                url: '/api/v1/calls/twilio/outbound',
                headers: f.auth(f.agent1),
                payload: { phone_number: '+15550100777', agent_id: f.agent2.userId },
              },
              422,
            ),
          ).toEqual({
            error: 'The agent id must be your own user id.',
          });
          expect(
            await refused(
              {
                method: 'POST',
                url: '/api/v1/calls/twilio/outbound',
                headers: f.auth(f.agent1),
                payload: { phone_number: 'call me', agent_id: f.agent1.userId },
              },
              422,
            ),
          ).toEqual({
            error: 'The phone number is not a valid phone number.',
          });
        },
      ],
      [
        'missing CSRF',
        csrfCase(() => ({
          method: 'POST',
          url: '/api/v1/calls/twilio/outbound',
          headers: f.auth(f.agent1),
          payload: { phone_number: '+15550100777', agent_id: f.agent1.userId },
        })),
      ],
    ],
  ],
  [
    'POST /twilio/debug/webrtc',
    [
      [
        'happy path',
        async () => {
          const res = await inject({
            method: 'POST',
            url: '/twilio/debug/webrtc',
            headers: f.auth(f.agent1),
            payload: { user: f.agent1.userId, conn_status: 'failed' },
          });
          expect(res.json()).toEqual({ success: true });
        },
      ],
      [
        'validation error',
        async () => {
          await refused(
            {
              method: 'POST',
              url: '/twilio/debug/webrtc',
              headers: f.auth(f.agent1),
              payload: { conn_status: 'x'.repeat(300) },
            },
            422,
          );
        },
      ],
      [
        'missing CSRF',
        csrfCase(() => ({
          method: 'POST',
          url: '/twilio/debug/webrtc',
          headers: f.auth(f.agent1),
          payload: {},
        })),
      ],
    ],
  ],
  [
    'POST /api/v1/sandbox/inbound',
    [
      [
        'happy path',
        async () => {
          const res = await inject({
            method: 'POST',
            url: '/api/v1/sandbox/inbound',
            headers: { authorization: `Bearer ${TEST_API_KEY}` },
            payload: { from: '(555) 010-0777', to: '+15550142000' },
          });
          expect(res.statusCode, res.body).toBe(201);
          const { call } = res.json<{ call: { id: number; sid: string; phone_number: string } }>();
          expect(call.phone_number).toBe('+15550100777');
          await f.t.flows.idle();
          // The caller is on the line (the fake names the party; its id is the flows' business).
          const { participantId: _party, ...added } = f.t.telephony.ops('addCaller').at(-1)!;
          expect(added).toEqual({
            op: 'addCaller',
            callSid: call.sid,
            from: '+15550100777',
            to: '+15550142000',
          });
          const [row] = await f.t.database.db.select().from(calls).where(eq(calls.id, call.id));
          expect(row).toMatchObject({ direction: 'inbound', phoneNumber: '+15550100777' });
          // An available agent is rung for it, and sees the caller's number formatted.
          const ring = f.t.telephony.ops('ringAgent').at(-1)!;
          expect(ring).toMatchObject({ callSid: call.sid });
          const rung = [f.agent1, f.agent2, f.supervisor].find(
            (a) => String(a.userId) === ring.identity,
          )!;
          const callUserId = ring.params.From!.replace('client:', '');
          const loaded = await inject({
            method: 'GET',
            url: `/api/v1/callusers/${callUserId}`,
            headers: f.auth(rung, false),
          });
          expect(loaded.json()).toMatchObject({
            call: {
              direction: 'inbound',
              lead: null,
              phone_number: '+15550100777',
              phone_number_formatted: '+1 555 010 0777',
              number: { name: 'Acme Solar main line' },
            },
          });
          await f.endCall(row!);
        },
      ],
      [
        'validation error',
        async () => {
          expect(
            await refused(
              {
                method: 'POST',
                url: '/api/v1/sandbox/inbound',
                headers: { authorization: `Bearer ${TEST_API_KEY}` },
                payload: { from: '12', to: '+15550142000' },
              },
              422,
            ),
          ).toEqual({ error: 'The from number is not a valid phone number.' });
        },
      ],
      [
        'not a caller number of the account',
        async () => {
          for (const to of ['+15550100999', '+15550156671']) {
            expect(
              await refused(
                {
                  method: 'POST',
                  url: '/api/v1/sandbox/inbound',
                  headers: { authorization: `Bearer ${TEST_API_KEY}` },
                  payload: { from: '+15550100777', to },
                },
                404,
              ),
            ).toEqual({ error: `${to} is not one of this account's caller numbers.` });
          }
        },
      ],
      [
        'missing API key',
        async () => {
          await refused(
            {
              method: 'POST',
              url: '/api/v1/sandbox/inbound',
              payload: { from: '+15550100777', to: '+15550142000' },
            },
            401,
          );
        },
      ],
    ],
  ],
  [
    'POST /api/v1/leads',
    [
      [
        'happy path',
        async () => {
          const res = await inject({
            method: 'POST',
            url: '/api/v1/leads',
            headers: { authorization: `Bearer ${TEST_API_KEY}` },
            payload: { fname: 'Ida', phone_number: '+15550100888' },
          });
          expect(res.statusCode).toBe(201);
          const { call } = res.json<{ call: { id: number; status: string; agent_id: number } }>();
          expect(call).toMatchObject({ status: 'ringing', reason: null });
          // Each agent ignores it in turn; the answers say where the call went.
          expect(await ignoreInTurn(call.id, call.agent_id)).toEqual([
            'ringing',
            'ringing',
            'ringing',
            'missed',
          ]);
        },
      ],
      [
        'validation error',
        async () => {
          await refused(
            {
              method: 'POST',
              url: '/api/v1/leads',
              headers: { authorization: `Bearer ${TEST_API_KEY}` },
              payload: { phone_number: '+15550100888' },
            },
            422,
          );
        },
      ],
      [
        'missing API key',
        async () => {
          await refused(
            {
              method: 'POST',
              url: '/api/v1/leads',
              payload: { fname: 'Ida', phone_number: '+15550100888' },
            },
            401,
          );
        },
      ],
    ],
  ],
];

for (const [endpoint, cases] of ENDPOINTS) {
  describe(endpoint, () => {
    for (const [name, run] of cases) it(name, run);
  });
}

it('rate-limits logins after 10 failures (429) and tells when to retry', async () => {
  for (let i = 0; i < 10; i++) {
    await inject({
      method: 'POST',
      url: '/api/v1/user/login',
      payload: { email: 'basic@example.com', password: 'wrong' },
    });
  }
  const res = await inject({
    method: 'POST',
    url: '/api/v1/user/login',
    payload: { email: 'basic@example.com', password: 'leadline-demo' },
  });
  expect(res.statusCode).toBe(429);
  expect(res.json()).toEqual({
    success: false,
    error: 'Too many login attempts. Try again in 15 minutes.',
  });
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(800);
  const [row] = await f.t.database.db
    .select()
    .from(users)
    .where(eq(users.email, 'basic@example.com'));
  expect(row).toBeDefined();
});
