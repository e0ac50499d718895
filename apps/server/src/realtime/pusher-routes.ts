/**
 * POST /api/v1/pusher/auth: pusher-js asks to join the user's presence channel
 * (`presence-user-<id>`, spec section 7) or the account's private channel
 * (`private-account-<id>`: teammates' status, floor changes). Any other channel is refused.
 *
 * Grants are bounded: a login may ask {@link PUSHER_AUTH_PER_MINUTE} times a minute (counted in
 * the database, so on every instance together; a console asks twice per connection), and it keeps
 * at most `MAX_REALTIME_SOCKETS_PER_LOGIN` sockets let in (`SocketAccess`: authorising one more
 * withdraws its oldest).
 */
import type { FastifyInstance } from 'fastify';
import { PusherAuthBody, RefusalSchema } from '@leadline/contracts';
import { sessionOf } from '../auth/auth-plugin';
import { AppError } from '../http/errors';
import type { RouteDocs } from '../http/api-docs';
import { parseRequest } from '../http/validate';
import { accountChannelOf, userChannelOf } from './channels';
import { sessionTagOf, type SocketAccess } from '../auth/socket-access';
import type { RateLimitHits } from '../http/rate-limit-hits';
import { RATE_LIMIT_WINDOW_MS } from '../http/rate-limit-settings';
import { signChannel, type PusherCredentials } from './pusher-auth';

/** Channel authorisations one login may ask for per minute (two per connection of a console). */
export const PUSHER_AUTH_PER_MINUTE = 30;

/** The refusal's sentence for a wait of `seconds`. */
export const tooManyGrantsMessage = (seconds: number): string =>
  `Too many realtime channel authorisations for this login. Try again in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`;

/** The channel-auth route. pusher-js posts it form-encoded, so that body type is accepted here. */
export function pusherRoutes(deps: {
  pusher: PusherCredentials;
  sockets?: SocketAccess | undefined;
  /** The shared counts the per-login limit is kept in; absent: not limited. */
  hits?: RateLimitHits | undefined;
}) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    const channelAuth = {
      summary: 'Realtime channel authorisation (pusher-js)',
      description:
        "Pusher-protocol channel auth (pusher-js posts it form-encoded): only the user's own presence channel `presence-user-<user id>` and the account's private channel `private-account-<account id>` (the two `channels` of `GET /api/v1/user`); any other is 403 and names those two. `auth` is `<key>:<HMAC-SHA256>`; the presence channel's answer adds `channel_data`, the member. Bounded per login: 30 a minute (every instance counting together), then 429 `{ success: false, error: 'Too many realtime channel authorisations for this login. Try again in N seconds.' }` with `Retry-After`; and a login keeps 8 sockets let in, the 9th authorised closing its oldest (4009).",
      tags: ['Realtime'],
      consumes: ['application/x-www-form-urlencoded', 'application/json'],
      body: PusherAuthBody,
      response: {
        200: { description: '`{ auth }`, and `channel_data` for the presence channel' },
        403: RefusalSchema,
        429: RefusalSchema,
      },
    } satisfies RouteDocs;
    app.post('/api/v1/pusher/auth', { schema: channelAuth }, async (request, reply) => {
      const { user, sessionId } = sessionOf(request);
      const counted = await deps.hits?.hit(
        `pusher-auth:${sessionTagOf(sessionId)}`,
        RATE_LIMIT_WINDOW_MS,
      );
      if (counted && counted.hits > PUSHER_AUTH_PER_MINUTE) {
        const seconds = Math.max(1, Math.ceil(counted.ttlMs / 1000));
        reply.header('retry-after', String(seconds));
        throw new AppError('RATE_LIMITED', tooManyGrantsMessage(seconds));
      }
      const body = parseRequest(request, 'body', channelAuth.body);
      const own = userChannelOf(user.id);
      const account = accountChannelOf(user.accountId);
      if (body.channel_name !== own && body.channel_name !== account) {
        throw new AppError(
          'FORBIDDEN',
          `You may subscribe only to your own channels, ${own} and ${account}.`,
        );
      }
      // The socket is let in under this login: it closes when the login ends.
      deps.sockets?.realtimeAuthorised(body.socket_id, user.id, sessionId);
      if (body.channel_name === account) {
        return signChannel(deps.pusher, body.socket_id, body.channel_name);
      }
      return signChannel(deps.pusher, body.socket_id, body.channel_name, {
        user_id: String(user.id),
        user_info: { name: user.fullName },
      });
    });
  };
}
