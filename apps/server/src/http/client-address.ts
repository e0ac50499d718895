/**
 * Whose request this is, by address: the browser's. Fastify's `request.ip` follows
 * `TRUST_PROXY` (the balancer in front); a request another instance of the install relayed
 * carries the browser's address inside its signed relay header instead
 * (`relay/relay-signature.ts`), which the receiving instance puts in `request.relayed` once the
 * signature holds. The login throttle and the anonymous rate limits count this address.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** What a verified relay header vouches for. */
export interface RelayedBy {
  /** The browser's address as the relaying instance found it. */
  client: string;
  /** Whether the relaying instance counted the request in the anonymous rate limit. */
  counted: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set when another instance relayed this request and its signature held; else null. */
    relayed: RelayedBy | null;
  }
}

/** Decorates `app`'s requests with `relayed` (null until a relay header is verified). */
export function decorateRelayed(app: FastifyInstance): void {
  if (!app.hasRequestDecorator('relayed')) app.decorateRequest('relayed', null);
}

/** The browser's address: the one a verified relay vouches for, else `request.ip`. */
export function requestClientAddress(request: FastifyRequest): string {
  return request.relayed?.client ?? request.ip;
}
