/**
 * POST /api/v1/pusher/auth: pusher-js asks to join the user's presence channel
 * (`presence-user-<id>`, spec section 7) or the account's private channel
 * (`private-account-<id>`: teammates' status). Any other channel is refused.
 */
import type { FastifyInstance } from 'fastify';
import { PusherAuthBody } from '@leadline/contracts';
import { sessionOf } from '../auth/auth-plugin';
import { AppError } from '../http/errors';
import { parseWith } from '../http/validate';
import { accountChannelOf, userChannelOf } from './channels';
import type { SocketAccess } from '../auth/socket-access';
import { signChannel, type PusherCredentials } from './pusher-auth';

/** The channel-auth route. pusher-js posts it form-encoded, so that body type is accepted here. */
export function pusherRoutes(deps: {
  pusher: PusherCredentials;
  sockets?: SocketAccess | undefined;
}) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    app.post('/api/v1/pusher/auth', async (request) => {
      const { user, sessionId } = sessionOf(request);
      const body = parseWith(PusherAuthBody, request.body);
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
