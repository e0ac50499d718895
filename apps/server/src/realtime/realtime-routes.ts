/**
 * The realtime service's HTTP routes, registered with it: hosted Pusher's presence webhooks
 * (`POST /pusher/webhooks`) and, with the embedded target, the Pusher-protocol events API that
 * the publisher (`pusher` library) of every instance sends to.
 */
import type { FastifyInstance } from 'fastify';
import type { WebhookReceipts } from '../http/webhook-receipts';
import { pusherEventsRoutes } from './embedded/events-api';
import { presenceWebhookRoutes } from './presence-webhooks';
import { RealtimeService, type RealtimeServiceOptions } from './realtime-service';

/** Builds the realtime service and registers its HTTP routes on `app` (before it listens). */
export async function registerRealtime(
  app: FastifyInstance,
  options: RealtimeServiceOptions & {
    /** The presence webhooks already handled (hosted Pusher), shared by the instances. */
    receipts?: WebhookReceipts | undefined;
  },
): Promise<RealtimeService> {
  const service = RealtimeService.create(options);
  // Hosted Pusher tells presence through its webhooks; the embedded endpoint tells it itself.
  if (options.target.kind !== 'embedded' && options.onPresence) {
    await app.register(
      presenceWebhookRoutes({
        credentials: options.credentials,
        onPresence: options.onPresence,
        receipts: options.receipts,
      }),
    );
  }
  const endpoint = service.fannedEndpoint;
  if (endpoint) {
    await app.register(pusherEventsRoutes({ credentials: options.credentials, endpoint }));
  }
  return service;
}
