/**
 * Twilio's webhooks (`TELEPHONY_PROVIDER=twilio`): `POST /twilio/voice` (the TwiML App's voice
 * URL), `POST /twilio/status` (call and conference status callbacks) and `POST /twilio/recording`.
 * Twilio posts them form-encoded and signs each with the account's Auth Token over the full URL
 * it called and the sorted form fields (`X-Twilio-Signature`); every route checks that with the
 * `twilio` library against `PUBLIC_BASE_URL` + the path and query as received, and refuses a
 * missing or wrong signature with 403 before anything is done. What each webhook means is the
 * handlers' business (the provider); this module is only their door.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import twilio from 'twilio';

/** The webhook paths. */
export const TWILIO_WEBHOOK_PATHS = {
  voice: '/twilio/voice',
  status: '/twilio/status',
  recording: '/twilio/recording',
} as const;

/** What a webhook answers: TwiML (voice) or nothing (callbacks: 204). */
export type WebhookAnswer = { twiml: string } | { empty: true };

/** The handlers behind the signed doors. */
export interface TwilioWebhookHandlers {
  voice(params: Record<string, string>): Promise<WebhookAnswer>;
  status(params: Record<string, string>): Promise<WebhookAnswer>;
  recording(params: Record<string, string>): Promise<WebhookAnswer>;
}

/** The routes, as a Fastify plugin (its form body parser stays inside it). */
export function twilioWebhookRoutes(deps: {
  authToken: string;
  /** Where Twilio reaches this server, without a trailing slash. */
  publicBaseUrl: string;
  handlers: TwilioWebhookHandlers;
}) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    const reply = (res: FastifyReply, answer: WebhookAnswer) =>
      'twiml' in answer ? res.type('text/xml').send(answer.twiml) : res.code(204).send();
    for (const name of ['voice', 'status', 'recording'] as const) {
      app.post(TWILIO_WEBHOOK_PATHS[name], { config: { auth: 'public' } }, async (request, res) => {
        const params =
          typeof request.body === 'object' && request.body !== null
            ? (request.body as Record<string, string>)
            : {};
        const signature = request.headers['x-twilio-signature'];
        const signed =
          typeof signature === 'string' &&
          twilio.validateRequest(
            deps.authToken,
            signature,
            `${deps.publicBaseUrl}${request.url}`,
            params,
          );
        if (!signed) return res.code(403).send({ error: 'Invalid Twilio signature.' });
        return reply(res, await deps.handlers[name](params));
      });
    }
  };
}
