/**
 * Property: whatever arrives (random JSON, wrong types, malformed or oversize bodies, odd
 * queries and path ids), every endpoint answers without a 5xx, and a refused request (4xx)
 * changes no row. At least 2,000 generated requests per run.
 */
import fc from 'fast-check';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { installChangeCounter } from '../test-support/change-counter';
import { startFixture, type Fixture } from '../test-support/fixture';

let f: Fixture;
let rowChanges: () => Promise<number>;

beforeAll(async () => {
  f = await startFixture();
  rowChanges = await installChangeCounter(f.t.database.db);
});
afterAll(() => f.t.close());

/** Every route, with `:id` where a path id goes. */
const ROUTES: Array<[method: InjectOptions['method'], path: string]> = [
  ['POST', '/api/v1/user/login'],
  ['POST', '/api/v1/user/logout'],
  ['GET', '/api/v1/user'],
  ['PUT', '/api/v1/user/settings'],
  ['GET', '/api/v1/twilio/token2'],
  ['GET', '/api/v1/mycalls'],
  ['GET', '/api/v1/users/paginated'],
  ['GET', '/api/v1/teams'],
  ['GET', '/api/v1/callerids'],
  ['POST', '/api/v1/calls/conference'],
  ['POST', '/apps/webrtc/:id/reject'],
  ['POST', '/api/v1/pusher/auth'],
  ['POST', '/api/v1/calls/:id/transfer'],
  ['POST', '/api/v1/calls/:id/listen'],
  ['POST', '/api/v1/calls/:id/whisper'],
  ['POST', '/api/v1/calls/:id/barge'],
  ['PUT', '/api/v1/calls/:id/hold'],
  ['PUT', '/api/v1/calls/:id/unhold'],
  ['POST', '/apps/webrtc/:id/disposition'],
  ['POST', '/apps/webrtc/:id/disposition2'],
  ['POST', '/api/v1/notes'],
  ['POST', '/apps/webrtc/:id/sms'],
  ['POST', '/api/v1/calls/twilio'],
  ['POST', '/api/v1/calls/conferencelead'],
  ['POST', '/apps/webrtc/check'],
  ['GET', '/api/v1/callusers/:id'],
  ['GET', '/api/v1/calls/:id/recording'],
  ['GET', '/sounds/:id'],
  ['POST', '/api/v1/calls/twilio/outbound'],
  ['POST', '/twilio/debug/webrtc'],
  ['POST', '/api/v1/leads'],
  ['POST', '/api/v1/sandbox/inbound'],
];

/** Field names the endpoints read, so generated bodies reach the validators' deeper checks. */
const FIELDS = [
  'email',
  'password',
  'autoaccept',
  'user_id',
  'team_id',
  'call_user_id',
  'status',
  'key',
  'content',
  'call_id',
  'smsbody',
  'fname',
  'lname',
  'phone_number',
  'agent_id',
  'interface',
  'caller_id',
  'socket_id',
  'channel_name',
  'user',
  'conn_status',
  'company',
  'category',
  'source_id',
];

const scalar = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1e309',
    'NaN',
    '+15550100042',
    '(415) 555-0132',
    'agent1@example.com',
    'contacted',
    'hot',
    '123.456',
    "'; drop table users; --",
    '\u0000',
    'ä'.repeat(300),
  ),
);
const value = fc.oneof(
  { depthSize: 'small' },
  scalar,
  fc.array(scalar, { maxLength: 4 }),
  fc.dictionary(fc.string({ maxLength: 8 }), scalar, { maxKeys: 3 }),
);
const knownFields = fc.dictionary(fc.constantFrom(...FIELDS), value, { maxKeys: 6 });

/** A body: JSON of odd shapes, known fields with odd values, raw text, or nothing. */
const body = fc.oneof(
  knownFields.map((v) => ({ json: v })),
  fc.jsonValue().map((v) => ({ json: v })),
  fc.string({ maxLength: 200 }).map((raw) => ({ raw, type: 'application/json' })),
  fc.string({ maxLength: 50 }).map((raw) => ({
    raw,
    type: fc.sample(
      fc.constantFrom(
        'text/plain',
        'application/xml',
        'application/x-www-form-urlencoded',
        'multipart/form-data',
      ),
      1,
    )[0]!,
  })),
  fc.constant({ raw: 'x'.repeat(70_000), type: 'application/json' }),
  fc.constant(undefined),
);
const pathId = fc.oneof(
  fc.integer({ min: -5, max: 60 }).map(String),
  fc.constantFrom('0', '1.5', 'abc', '9999999999999', '1e3', '%20', '..%2F..', '-0', '00001'),
);
const query = fc.dictionary(
  fc.constantFrom('page', 'limit', 'status', 'search', 'team_id', 'time', 'x'),
  fc.oneof(fc.string({ maxLength: 20 }), fc.integer().map(String)),
  { maxKeys: 4 },
);

it('answers 2,000+ random and malformed requests without a 5xx; refused ones change nothing', async () => {
  let sent = 0;
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...ROUTES),
      pathId,
      body,
      query,
      fc.constantFrom(
        'agent1',
        'agent1',
        'agent1',
        'agent1',
        'basic',
        'basic',
        'none',
        'no-csrf',
        'api-key',
      ),
      async ([method, path], id, payload, q, who) => {
        const url = `${path.replace(':id', id)}?${new URLSearchParams(q).toString()}`;
        const headers: Record<string, string> =
          who === 'none'
            ? {}
            : who === 'api-key'
              ? { authorization: 'Bearer demo-api-key' }
              : f.auth(who === 'basic' ? f.basic : f.agent1, who !== 'no-csrf');
        const options: InjectOptions = { method, url, headers };
        if (payload && 'json' in payload && method !== 'GET')
          options.payload = payload.json as object;
        if (payload && 'raw' in payload && method !== 'GET') {
          options.payload = payload.raw;
          headers['content-type'] = payload.type;
        }
        const before = await rowChanges();
        const res = await f.t.app.inject(options);
        await f.t.flows.idle();
        sent++;
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        // A generated logout ends the session: give it a new one so later requests get past auth.
        if (path === '/api/v1/user/logout' && res.statusCode === 200) {
          await f.renew(who === 'basic' ? f.basic : f.agent1);
        }
        expect(res.statusCode, `${method} ${url} → ${res.body.slice(0, 200)}`).toBeLessThan(500);
        if (res.statusCode >= 400) {
          expect(
            await rowChanges(),
            `${method} ${url} was refused (${res.statusCode}) but changed rows`,
          ).toBe(before);
          const json = res.json<{ error?: unknown }>();
          expect(typeof json.error, `${method} ${url}: ${res.body}`).toBe('string');
        }
      },
    ),
    { numRuns: 2100, seed: Number(process.env.FUZZ_SEED ?? 20261122) },
  );
  expect(sent).toBeGreaterThanOrEqual(2000);
  console.info('statuses of the generated requests:', Object.fromEntries(statuses));
  // Most requests must get past authentication and CSRF, or the property proves little.
  const stoppedAtTheDoor = (statuses.get(401) ?? 0) + (statuses.get(403) ?? 0);
  expect(stoppedAtTheDoor / sent).toBeLessThan(0.4);
  expect(statuses.get(422) ?? 0).toBeGreaterThan(sent / 10);
}, 600_000);
