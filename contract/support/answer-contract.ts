/**
 * The contract of one console request: the console sends it to the fake server and to the real
 * server, and both answers must have the same HTTP status, both must parse with the same zod
 * schema from `@leadline/contracts`, and their shapes must agree field by field
 * (`shape-diff.ts`). A difference fails with every field named.
 */
import type { z } from 'zod';
import { ApiError, SessionExpiredError, type ApiClient } from '../../apps/web/src/api/api-client';
import type { ConsoleSide, Exchange, SideName } from './console-side';
import { shapeDifferences } from './shape-diff';

/** The console on both servers. */
export interface SidePair {
  readonly fake: ConsoleSide;
  readonly server: ConsoleSide;
}

/** One request of the console, sent to both sides. */
export interface RequestContract {
  /** What it is, for the messages: `GET /api/v1/callusers/{id} (a lead rung to the agent)`. */
  readonly what: string;
  /** The schema both answers must parse with. */
  readonly schema: z.ZodType;
  /** The HTTP status both must answer with. */
  readonly status: number;
}

/** Both answers of one request, after they were held to its contract. */
export interface AnswerPair {
  readonly fake: Exchange;
  readonly server: Exchange;
}

/** A request, a schema or a shape did not hold; the message names every field that differs. */
export class ContractDriftError extends Error {
  override name = 'ContractDriftError';
}

const WHOSE: Record<SideName, string> = {
  fake: "the fake's answer",
  server: "the server's answer",
};

/**
 * Sends the console's request `send` on the fake side, then on the server side (refusals that
 * the console's client throws are part of the answer, not a failure), and holds the two answers
 * to `contract`. `send` gets the side's name to pick its ids. Resolves with both answers.
 */
export async function expectSameAnswer(
  sides: SidePair,
  contract: RequestContract,
  send: (api: ApiClient, side: SideName) => Promise<unknown>,
): Promise<AnswerPair> {
  const fake = await exchangeOf(sides.fake, send);
  const server = await exchangeOf(sides.server, send);
  const problems = answerProblems(contract, { fake, server });
  if (problems.length > 0) {
    throw new ContractDriftError(
      `${contract.what}: the fake server does not answer as the server does:\n` +
        problems.map((problem) => `  - ${problem}`).join('\n') +
        `\n${WHOSE.server}: ${JSON.stringify(server.body)}` +
        `\n${WHOSE.fake}: ${JSON.stringify(fake.body)}`,
    );
  }
  return { fake, server };
}

/** What is wrong with a pair of answers under `contract`, one sentence each; empty if nothing. */
export function answerProblems(contract: RequestContract, answers: AnswerPair): string[] {
  const problems: string[] = [];
  const { fake, server } = answers;
  if (
    fake.method !== server.method ||
    fake.path.split('/').length !== server.path.split('/').length
  ) {
    problems.push(
      `the sides sent different requests: ${fake.method} ${fake.path} to the fake, ` +
        `${server.method} ${server.path} to the server`,
    );
  }
  for (const [side, exchange] of [
    ['server', server],
    ['fake', fake],
  ] as const) {
    if (exchange.status !== contract.status) {
      problems.push(`HTTP ${exchange.status} in ${WHOSE[side]}, expected ${contract.status}`);
    }
    const parsed = contract.schema.safeParse(exchange.body);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) {
        const field = issue.path.length > 0 ? issue.path.join('.') : 'the answer';
        problems.push(`${field}: ${issue.message} (schema, in ${WHOSE[side]})`);
      }
    }
  }
  problems.push(
    ...shapeDifferences({
      expected: { name: WHOSE.server, value: server.body },
      actual: { name: WHOSE.fake, value: fake.body },
    }),
  );
  return problems;
}

/** Sends `send` on `side` and returns the one exchange it made. */
async function exchangeOf(
  side: ConsoleSide,
  send: (api: ApiClient, side: SideName) => Promise<unknown>,
): Promise<Exchange> {
  const before = side.exchanges.length;
  try {
    await send(side.api, side.name);
  } catch (error) {
    // A refusal is an answer like any other here; the console's client throws it.
    if (!(error instanceof ApiError || error instanceof SessionExpiredError)) throw error;
  }
  const made = side.exchanges.slice(before);
  if (made.length !== 1) {
    throw new ContractDriftError(
      `expected the console to send one request to the ${side.name} side, it sent ` +
        `${made.length}: ${made.map((e) => `${e.method} ${e.path}`).join(', ')}`,
    );
  }
  return made[0]!;
}
