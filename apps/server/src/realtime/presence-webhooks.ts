/**
 * Presence from a hosted Pusher Channels app (or a Pusher-protocol server with webhooks, such as
 * Soketi): Pusher posts `member_added` and `member_removed` for presence channels to
 * `POST /pusher/webhooks` (configured in the app's Webhooks settings), signed with the app's
 * secret over the raw body (`X-Pusher-Key`, `X-Pusher-Signature`). The `pusher` library checks
 * the signature; an unsigned or forged post is refused with 401 and changes nothing. With the
 * embedded endpoint the same facts come from the endpoint itself (`ChannelRegistry`).
 *
 * A signed post is handled once, whichever instance it reaches and however often Pusher sends it
 * (Pusher retries a webhook it got no 2xx for): its receipt, the digest of its body (which carries
 * Pusher's `time_ms`), is recorded in the database first (`http/webhook-receipts.ts`); a repeat
 * is answered 200 and told to nobody.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import Pusher from 'pusher';
import type { RouteDocs } from '../http/api-docs';
import type { WebhookReceipts } from '../http/webhook-receipts';
import { PUSHER_WEBHOOK_PATH, type PresenceListener, type PusherCredentials } from './pusher-auth';

export { PUSHER_WEBHOOK_PATH };

/** The error body of a webhook Pusher did not sign. */
export const INVALID_PUSHER_WEBHOOK = { error: 'Invalid Pusher webhook signature.' } as const;

/** The route; `onPresence` hears each member event. */
export function presenceWebhookRoutes(options: {
  credentials: PusherCredentials;
  onPresence: PresenceListener;
  /** The webhooks already handled, shared by the instances; absent: each is handled as sent. */
  receipts?: Pick<WebhookReceipts, 'firstTime'> | undefined;
}) {
  const pusher = new Pusher({
    appId: options.credentials.appId,
    key: options.credentials.key,
    secret: options.credentials.secret,
    cluster: options.credentials.cluster,
  });
  return async (app: FastifyInstance): Promise<void> => {
    // The signature is over the raw body: keep it (this plugin's scope only).
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
      done(null, body),
    );
    const webhook = {
      summary: 'Hosted Pusher’s presence webhooks',
      description:
        'With `REALTIME_PROVIDER=pusher` and Twilio: the Channels app\'s presence webhooks (`member_added`, `member_removed`), signed with the app secret over the raw body (`X-Pusher-Key`, `X-Pusher-Signature`); they say which agents have their console open (online). An unsigned or forged post is 401 `{"error":"Invalid Pusher webhook signature."}`. 200 `{"ok":true}`; a repeat of a post (the same body) changes nothing.',
      tags: ['Provider webhooks'],
      response: {
        200: { description: '`{"ok":true}`' },
        401: { description: '`{"error":"Invalid Pusher webhook signature."}`' },
      },
    } satisfies RouteDocs;
    const route = { config: { auth: 'public' as const }, schema: webhook };
    app.post(PUSHER_WEBHOOK_PATH, route, async (request, reply) => {
      const rawBody = typeof request.body === 'string' ? request.body : '';
      const webhook = pusher.webhook({ headers: request.headers, rawBody });
      // The library throws on a missing signature header rather than answering false.
      const valid = (() => {
        try {
          return webhook.isValid();
        } catch {
          return false;
        }
      })();
      if (!valid) return reply.code(401).send(INVALID_PUSHER_WEBHOOK);
      const digest = createHash('sha256').update(rawBody).digest('hex');
      const first = (await options.receipts?.firstTime(`pusher-webhook:${digest}`)) ?? true;
      if (!first) return reply.code(200).send({ ok: true });
      for (const event of webhook.getEvents() as Array<{
        name: string;
        channel: string;
        user_id?: string;
      }>) {
        if (event.user_id === undefined) continue;
        if (event.name === 'member_added') options.onPresence(event.channel, event.user_id, true);
        if (event.name === 'member_removed') {
          options.onPresence(event.channel, event.user_id, false);
        }
      }
      return reply.code(200).send({ ok: true });
    });
  };
}
