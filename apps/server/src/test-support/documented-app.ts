/**
 * The application with every route it can serve, for its API document: the test application
 * (embedded mode, the sandbox network) plus what only other set-ups mount: Twilio's webhooks
 * (`TELEPHONY_PROVIDER=twilio`), the embedded realtime endpoint's events API and hosted Pusher's
 * presence webhooks (both registered by `registerRealtime` after the app is built). The providers
 * are inert stand-ins: only the routes matter here. Used by the document's test and by
 * `scripts/write-openapi.ts`, which writes docs/openapi.json from it.
 */
import type { RouteOptions } from 'fastify';
import { pusherEventsRoutes } from '../realtime/embedded/events-api';
import { presenceWebhookRoutes } from '../realtime/presence-webhooks';
import { twilioWebhookRoutes } from '../twilio/twilio-webhooks';
import { startTestApp, TEST_PUSHER, type TestApp } from './test-app';

/** Starts it; `onRoute` hears every route as it is registered. */
export async function startDocumentedApp(
  options: { onRoute?: (route: RouteOptions) => void } = {},
): Promise<TestApp> {
  const t = await startTestApp({
    ...(options.onRoute ? { onRoute: options.onRoute } : {}),
    webhooks: twilioWebhookRoutes({
      telephony: { handleStatus: () => undefined, handleRecording: () => undefined },
      authToken: 'documented-app-auth-token',
      publicBaseUrl: 'https://calls.example.com',
      voice: async () => '<Response/>',
    }),
  });
  await t.app.register(
    pusherEventsRoutes({ credentials: TEST_PUSHER, endpoint: { publish() {} } }),
  );
  await t.app.register(
    presenceWebhookRoutes({ credentials: TEST_PUSHER, onPresence: () => undefined }),
  );
  await t.app.ready();
  return t;
}
