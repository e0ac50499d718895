/**
 * The media leader's side of the relay: requests and socket upgrades that say another instance
 * relayed them (`relay/relay-signature.ts`) are believed only when their signature holds, for
 * this leader's epoch, once. What a signature that holds vouches for (the browser's address,
 * counted already) goes into `request.relayed` (`http/client-address.ts`); a header that does
 * not hold is refused (401, or 421 for another leader's epoch) before anything else runs.
 */
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { SocketRateLimit } from '../http/anonymous-rate-limit';
import { decorateRelayed, type RelayedBy } from '../http/client-address';
import { AppError } from '../http/errors';
import {
  RELAY_HEADER,
  RELAY_REFUSED_HEADER,
  RelayVerifier,
  bodyHolds,
  type RelayVerdict,
  type VerifiedRelay,
} from './relay-signature';

/** What an upgrade's relay header says: none, a relay that holds, or a refusal. */
export type UpgradeRelay =
  | { kind: 'direct' }
  | { kind: 'relayed'; relayed: RelayedBy }
  | { kind: 'refused'; status: 401 | 421 };

/** Options of {@link RelayReception}. */
export interface RelayReceptionOptions {
  /** The instances' shared secret (`TOKEN_SECRET`). */
  secret: string;
  /** This leader's epoch now (null: a leader without a lease, PGlite or a fixed media URL). */
  epoch: () => number | null;
  now?: () => number;
}

/** Believes relayed requests on the instance they are relayed to. */
export class RelayReception {
  readonly #verifier: RelayVerifier | null;
  readonly #epoch: () => number | null;
  /** The body hash each relayed request was signed with, until its body is read. */
  readonly #bodies = new WeakMap<object, VerifiedRelay>();

  /** `options` undefined: this instance receives no relays and refuses every relay header. */
  constructor(options?: RelayReceptionOptions) {
    this.#verifier = options ? new RelayVerifier(options.secret, options.now) : null;
    this.#epoch = options?.epoch ?? (() => null);
  }

  /** Checks every request of `app` that carries the header: register before the rate limit. */
  register(app: FastifyInstance): void {
    decorateRelayed(app);
    app.addHook('onRequest', async (request, reply) => {
      const verdict = this.#verdictOf(request.raw);
      if (verdict === null) return;
      if (!verdict.ok) {
        reply.header(RELAY_REFUSED_HEADER, verdict.reason);
        throw refusalOf(verdict.reason);
      }
      this.#bodies.set(request.raw, verdict.relay);
      request.relayed = { client: verdict.relay.client, counted: verdict.relay.counted };
    });
    // The body is read after onRequest: it must be the one the relaying instance signed.
    app.addHook('preValidation', async (request: FastifyRequest, reply) => {
      const relay = this.#bodies.get(request.raw);
      if (relay === undefined) return;
      const body = request.body === undefined ? '' : JSON.stringify(request.body);
      if (!bodyHolds(relay, body)) {
        reply.header(RELAY_REFUSED_HEADER, 'invalid');
        throw new AppError('RELAY_SIGNATURE_INVALID');
      }
    });
  }

  /** What a socket upgrade's header says (an upgrade has no body). */
  ofUpgrade(request: IncomingMessage): UpgradeRelay {
    const verdict = this.#verdictOf(request);
    if (verdict === null) return { kind: 'direct' };
    if (!verdict.ok)
      return { kind: 'refused', status: verdict.reason === 'misdirected' ? 421 : 401 };
    if (!bodyHolds(verdict.relay, '')) return { kind: 'refused', status: 401 };
    return {
      kind: 'relayed',
      relayed: { client: verdict.relay.client, counted: verdict.relay.counted },
    };
  }

  #verdictOf(request: IncomingMessage): RelayVerdict | null {
    const header = request.headers[RELAY_HEADER];
    if (header === undefined) return null;
    if (this.#verifier === null) return { ok: false, reason: 'invalid' };
    return this.#verifier.verify(
      header,
      { method: request.method ?? 'GET', target: request.url ?? '' },
      this.#epoch(),
    );
  }
}

function refusalOf(reason: 'invalid' | 'misdirected'): AppError {
  return new AppError(reason === 'misdirected' ? 'RELAY_MISDIRECTED' : 'RELAY_SIGNATURE_INVALID');
}

/**
 * The upgrade screen and admission of an instance (`http/instance-http.ts`): a relay header that
 * does not hold refuses the upgrade; one that holds says whose it is and whether it was counted.
 */
export function upgradeGate(
  reception: RelayReception,
  limit: SocketRateLimit,
): {
  screen: (request: IncomingMessage) => number | null;
  admit: (request: IncomingMessage) => Promise<number | null>;
} {
  const relayed = new WeakMap<IncomingMessage, RelayedBy>();
  return {
    screen: (request) => {
      const said = reception.ofUpgrade(request);
      if (said.kind === 'refused') return said.status;
      if (said.kind === 'relayed') relayed.set(request, said.relayed);
      return null;
    },
    admit: (request) => limit.admit(request, relayed.get(request) ?? null),
  };
}
