import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { GatewayMessage } from '@leadline/contracts/signalling';
import { parseGatewayFrame } from './gateway-frames';

/** Values that exercise every check: right and wrong types, empty strings, missing keys. */
const value = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.constant(''),
  fc.string({ maxLength: 4 }),
  fc.integer(),
  fc.constant(Number.NaN),
  fc.constant(Number.POSITIVE_INFINITY),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
  fc.dictionary(fc.constantFrom('a', 'CallSid'), fc.oneof(fc.string(), fc.integer())),
  fc.record({
    code: fc.oneof(fc.integer(), fc.string()),
    message: fc.oneof(fc.string(), fc.integer()),
  }),
  fc.record({
    identity: fc.oneof(fc.string(), fc.integer()),
    ttl: fc.oneof(fc.integer(), fc.string()),
  }),
);

const KEYS = [
  'region',
  'edge',
  'home',
  'token',
  'callsid',
  'sdp',
  'parameters',
  'reconnect',
  'error',
  'acktype',
  'voiceeventsid',
  'content',
  'contenttype',
  'messagetype',
] as const;

const TYPES = [
  'connected',
  'ready',
  'offline',
  'invite',
  'ringing',
  'answer',
  'cancel',
  'hangup',
  'ack',
  'message',
  'error',
  'listen',
  'bogus',
];

/** Valid payloads of every gateway frame, which the generator then breaks in places. */
const VALID: Record<string, Record<string, unknown>> = {
  connected: { region: 'local', edge: 'local', token: { identity: '7', ttl: 60 } },
  ready: {},
  offline: {},
  invite: { callsid: 'CA1', sdp: 'v=0', parameters: { From: 'client:1' }, reconnect: 'r' },
  ringing: { callsid: 'CA1', sdp: 'v=0' },
  answer: { callsid: 'CA1', sdp: 'v=0', reconnect: 'r' },
  cancel: { callsid: 'CA1' },
  hangup: { callsid: 'CA1', error: { code: 31486, message: 'busy' } },
  ack: { acktype: 'message', callsid: 'CA1', voiceeventsid: 'KX1' },
  message: {
    callsid: 'CA1',
    content: { a: 1 },
    messagetype: 'user-defined-message',
    voiceeventsid: 'KX1',
  },
  error: { callsid: 'CA1', error: { code: 31205, message: 'expired' } },
};

const mutated = fc
  .record({
    type: fc.constantFrom(...Object.keys(VALID)),
    version: fc.oneof(fc.constant('1.6'), fc.constant('1.6'), fc.integer()),
    changes: fc.array(fc.tuple(fc.constantFrom(...KEYS), fc.boolean(), value), { maxLength: 2 }),
  })
  .map(({ type, version, changes }) => {
    const payload: Record<string, unknown> = { ...VALID[type] };
    for (const [key, remove, v] of changes) {
      if (remove) delete payload[key];
      else payload[key] = v;
    }
    return { type, version, payload };
  });

const random = fc.record(
  {
    type: fc.oneof(fc.constantFrom(...TYPES), fc.integer()),
    version: fc.oneof(fc.constant('1.6'), fc.integer()),
    payload: fc.oneof(
      fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 8 }),
      fc.constant(null),
      fc.constant([]),
    ),
  },
  { requiredKeys: ['type'] },
);

const frame = fc.oneof(mutated, mutated, random);

describe('gateway frames without zod', () => {
  it('accepts and refuses exactly what the contract schema does', () => {
    const accepted = new Set<string>();
    let refused = 0;
    fc.assert(
      fc.property(frame, (f) => {
        const text = JSON.stringify(f);
        const ours = parseGatewayFrame(text);
        const zod = GatewayMessage.safeParse(JSON.parse(text));
        expect(ours.ok).toBe(zod.success);
        if (zod.success) accepted.add(zod.data.type);
        else refused += 1;
      }),
      { numRuns: 20_000 },
    );
    // The run covered accepted frames of every type, and refused ones.
    expect([...accepted].sort()).toEqual(Object.keys(VALID).sort());
    expect(refused).toBeGreaterThan(1000);
  });

  it.each([
    [
      {
        type: 'connected',
        version: '1.6',
        payload: { region: 'local', token: { identity: '7', ttl: 60 } },
      },
      true,
    ],
    [
      {
        type: 'invite',
        version: '1.6',
        payload: { callsid: 'CA1', sdp: 'v=0', parameters: { From: 'x' } },
      },
      true,
    ],
    [{ type: 'invite', version: '1.6', payload: { callsid: 'CA1', parameters: {} } }, false],
    [
      { type: 'invite', version: '1.6', payload: { callsid: '', sdp: 'v=0', parameters: {} } },
      false,
    ],
    [
      {
        type: 'hangup',
        version: '1.6',
        payload: { callsid: 'CA1', error: { code: 31486, message: 'busy' } },
      },
      true,
    ],
    [
      { type: 'hangup', version: '1.6', payload: { callsid: 'CA1', error: { code: '31486' } } },
      false,
    ],
    [{ type: 'ready', version: '1.6', payload: {} }, true],
    [{ type: 'ready', version: '1.6' }, false],
    [{ type: 'listen', version: '1.6', payload: { token: 'x' } }, false],
  ])('frame %j → %s', (f, ok) => {
    expect(parseGatewayFrame(JSON.stringify(f)).ok).toBe(ok);
    expect(GatewayMessage.safeParse(f).success).toBe(ok);
  });

  it('names the type and the field of a refused frame', () => {
    expect(parseGatewayFrame('{')).toEqual({ ok: false, type: null, reason: 'not JSON' });
    expect(
      parseGatewayFrame(
        JSON.stringify({
          type: 'invite',
          version: '1.6',
          payload: { callsid: 'CA1', parameters: {} },
        }),
      ),
    ).toEqual({ ok: false, type: 'invite', reason: 'payload.sdp is invalid' });
  });
});
