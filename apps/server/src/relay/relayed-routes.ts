/**
 * An instance without the voice engine (`VOICE_MEDIA_URL` set) serves sign-in, the user, the
 * history, the console, the realtime endpoint and channel auth itself, and forwards every route
 * that drives calls (leads, call users, dispositions, call control, outbound calls, the network
 * test, the agent's status and the agent lists, the sandbox) to the media instance, which runs
 * the calls (`docs/deployment.md`, several instances). Requests go as they came: method, path,
 * query, body, the session cookie, the CSRF and Idempotency-Key headers; answers come back as
 * they were given. The signalling WebSocket is relayed by `signal-relay.ts`.
 */
import replyFrom from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../http/errors';
import { mediaTargetOf, type MediaTarget } from './media-target';
import { wasCounted } from '../http/anonymous-rate-limit';
import { RELAY_PROOF_HEADER, relayProof } from './relay-proof';

/** The routes that drive calls: what the media instance answers. Paths as Fastify matches them. */
export const RELAYED_ROUTES: ReadonlyArray<{ method: 'GET' | 'POST' | 'PUT'; url: string }> = [
  { method: 'POST', url: '/api/v1/leads' },
  { method: 'GET', url: '/api/v1/calls/:id/recording' },
  { method: 'POST', url: '/api/v1/calls/*' },
  { method: 'PUT', url: '/api/v1/calls/*' },
  { method: 'GET', url: '/api/v1/callusers/:id' },
  { method: 'POST', url: '/apps/webrtc/*' },
  { method: 'POST', url: '/api/v1/notes' },
  { method: 'POST', url: '/twilio/debug/webrtc' },
  { method: 'POST', url: '/api/v1/network-test' },
  { method: 'PUT', url: '/api/v1/user/status' },
  { method: 'POST', url: '/api/v1/user/wrap-up/done' },
  { method: 'GET', url: '/api/v1/users/paginated' },
  { method: 'GET', url: '/api/v1/teams' },
  { method: 'GET', url: '/api/v1/callerids' },
];

/**
 * How long a relayed request waits for a media instance during a failover (ms): the issue's
 * bound for a follower to take over (10 s) and some.
 */
export const FAILOVER_WAIT_MS = 15_000;

/** Whether reply-from's `error` is a connection the media instance refused (nothing sent). */
function connectionRefused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return cause?.code === 'ECONNREFUSED';
}

/** The sandbox network's routes (embedded mode). */
export const RELAYED_SANDBOX_ROUTES: ReadonlyArray<{ method: 'GET' | 'POST'; url: string }> = [
  { method: 'GET', url: '/api/v1/sandbox/*' },
  { method: 'POST', url: '/api/v1/sandbox/*' },
];

/**
 * The forwarding routes, as a Fastify plugin. `to` is the media instance's URL, or a target
 * that names the current one (the media lease's leader) at each request.
 */
export function relayedRoutes(options: {
  to: string | MediaTarget;
  sandbox: boolean;
  /** The instances' shared secret: each request carries the proof that it was relayed. */
  proofSecret?: string;
}) {
  const proofSecret = options.proofSecret;
  const target = mediaTargetOf(options.to);
  return async (app: FastifyInstance): Promise<void> => {
    // No fixed base: each request goes to the media instance known at that moment.
    await app.register(replyFrom);
    const refuse = (reply: FastifyReply) => {
      const refusal = new AppError('CALL_SERVICE_UNREACHABLE');
      return reply.code(refusal.status).send(refusal.body());
    };
    /**
     * Sends `request` on to `base`. A refused connection reached nothing, so it may go again:
     * to the leader the target names next, until `deadline` (a failover takes a few seconds:
     * the row may name the dead leader until its heartbeat is stale, and the directory passes
     * over a leader that refused for a while, so the same base is tried at most that often).
     */
    const send = (request: FastifyRequest, reply: FastifyReply, base: string, deadline: number) =>
      reply.from(new URL(request.url, base).toString(), {
        // The media instance may trust these (TRUST_PROXY) to know the browser's address.
        rewriteRequestHeaders: (incoming, headers) => {
          const { [RELAY_PROOF_HEADER]: _fromTheBrowser, ...rest } = headers;
          return {
            ...rest,
            'x-forwarded-for': incoming.ip,
            'x-forwarded-proto': incoming.protocol,
            'x-forwarded-host': incoming.host,
            // Counted here already (the anonymous rate limit): the media instance need not.
            ...(proofSecret && wasCounted(incoming)
              ? {
                  [RELAY_PROOF_HEADER]: relayProof(
                    proofSecret,
                    incoming.method,
                    incoming.url,
                    Date.now(),
                  ),
                }
              : {}),
          };
        },
        onError: (failed, { error }) => {
          failed.log.warn({ err: error }, 'the media instance could not be reached');
          target.unreachable(base);
          const left = deadline - Date.now();
          if (target.fixed || !connectionRefused(error) || left <= 0) {
            return void refuse(failed as FastifyReply);
          }
          void target.next(left).then((next) => {
            if (next === null) return void refuse(failed as FastifyReply);
            void send(request, failed as FastifyReply, next, deadline);
          });
        },
      });
    const forward = async (request: FastifyRequest, reply: FastifyReply) => {
      const deadline = Date.now() + FAILOVER_WAIT_MS;
      // A failover under way: wait for the new leader rather than refuse at once.
      const base = target.current() ?? (await target.next(FAILOVER_WAIT_MS));
      if (base === null) return refuse(reply);
      send(request, reply, base, deadline);
      return reply;
    };
    const routes = options.sandbox
      ? [...RELAYED_ROUTES, ...RELAYED_SANDBOX_ROUTES]
      : RELAYED_ROUTES;
    for (const { method, url } of routes) {
      // Public here: the media instance checks the session, the CSRF header and the API key. The
      // media instance's API document describes them (`/api/docs`); this one leaves them out.
      app.route({
        method,
        url,
        config: { auth: 'public' },
        schema: { hide: true },
        handler: forward,
      });
    }
  };
}
