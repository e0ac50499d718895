/**
 * DTMF digits are never logged (issue 36 item 6): keypad digits are card numbers and PINs. On the
 * real product (voice engine, sandbox network) with every log line kept at `trace`, an agent on a
 * call sends digits over signalling; the lead receives them (the sandbox's call record keeps them:
 * the product needs them there, and tests read them), the flows log that digits were sent and how
 * many, and no log line of the server or the engine carries a digit of them.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { AgentClient } from '../test-support/agent-client';
import { startRealLeadline, type RealLeadline } from '../test-support/real-engine';
import { waitUntil } from '../test-support/wait-until';

/** Digits no other log line would carry by chance. */
const DIGITS = '#*#9*0#';

const lines: string[] = [];
let product: RealLeadline;

beforeAll(async () => {
  product = await startRealLeadline({
    env: { LOG_LEVEL: 'trace' },
    logDestination: { write: (line: string) => void lines.push(line) },
  });
}, 120_000);
afterAll(() => product?.close(), 60_000);

/** The keys of a log line's object, at any depth. */
function keysOf(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)]);
}

it('a call’s keypad digits reach the lead and no log line', async () => {
  const agent = await AgentClient.login(product, 'agent1@example.com');
  const placed = await agent.placeOutbound({
    fname: 'Dee',
    lname: 'Tmf',
    phone_number: '+15550100077',
  });
  agent.signal.send('dtmf', { callsid: placed.callSid, dtmf: DIGITS });
  const received = await waitUntil(async () => {
    const log = await agent.api<{ data: Array<{ call_id: number; digits: string }> }>(
      'GET',
      '/api/v1/sandbox/calls',
    );
    const entry = log.body.data.find((c) => c.call_id === placed.response.call.id);
    return entry && entry.digits.length >= DIGITS.length ? entry.digits : undefined;
  }, 'the lead to receive the digits');
  expect(received).toBe(DIGITS);
  await agent.hangup();
  await product.waitForCall(placed.response.call.id);
  await product.flows.idle();

  const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
  // The flows did log the keypad use, at info: how many digits, not which.
  expect(parsed).toContainEqual(
    expect.objectContaining({ msg: 'dtmf', source: 'agent', digitCount: DIGITS.length }),
  );
  expect(lines.filter((line) => line.includes(DIGITS))).toEqual([]);
  expect(
    parsed.filter((line) => keysOf(line).some((key) => /^(digits?|dtmf)$/i.test(key))),
  ).toEqual([]);
});
