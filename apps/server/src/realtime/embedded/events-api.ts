/**
 * The Pusher HTTP events API on the embedded endpoint: `POST /apps/{app_id}/events` and
 * `POST /apps/{app_id}/batch_events`, signed as the `pusher` npm library signs them
 * (`request-signature.ts`), delivered to the endpoint's subscribers. Answers as hosted Pusher:
 * 200 `{}`, 400 bad body, 401 bad signature, 404 unknown app, 413 data too large. The routes
 * are `public` to the session layer: the request signature is their authentication.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  PusherBatchBody,
  PusherTriggerBody,
  type PusherBatchBody as BatchBody,
  type PusherTriggerBody as TriggerBody,
} from '@leadline/contracts/realtime';
import { z } from 'zod';
import type { RouteDocs } from '../../http/api-docs';
import type { PusherCredentials } from '../pusher-auth';
import { MAX_EVENT_DATA_BYTES } from './constants';
import type { EmbeddedPusher, PusherDelivery } from './embedded-pusher';
import { verifySignedRequest } from './request-signature';

/** What the routes need. */
export interface PusherEventsApiDeps {
  credentials: Pick<PusherCredentials, 'appId' | 'key' | 'secret'>;
  /** Where events go: the endpoint, or the endpoint joined to the other instances'. */
  endpoint: Pick<EmbeddedPusher, 'publish'> & { fits?(delivery: PusherDelivery): boolean };
  /** The clock, in ms since the epoch (default `Date.now`). */
  now?: () => number;
}

const SOCKET_ID = /^\d+\.\d+$/;

const TAGS = ['Realtime'];
const PUBLIC = { config: { auth: 'public' as const } };
const AppParams = z.object({ appId: z.string().describe('The Pusher app id (`PUSHER_APP_ID`)') });
const EVENTS_DOCS =
  "The embedded realtime endpoint's Pusher HTTP events API, for the `pusher` npm library of any instance: signed as Pusher signs (`auth_key`, `auth_timestamp`, `auth_version`, `body_md5`, `auth_signature`; the signature is the authentication, no session), delivered to the endpoint's subscribers on every instance. Answers as hosted Pusher: 200 `{}`, 400 bad body, 401 bad signature, 404 unknown app, 413 data too large.";
const ANSWERS = {
  200: { description: '`{}`' },
  400: { description: '`{ error }`: not JSON, or not an event' },
  401: { description: '`{ error }`: the signature' },
  404: { description: '`{ error: "Unknown app." }`' },
  413: { description: '`{ error }`: the event is too large' },
};

/** The events API routes, as a Fastify plugin (its raw-JSON body parser stays inside it). */
export function pusherEventsRoutes(deps: PusherEventsApiDeps) {
  const now = deps.now ?? Date.now;
  return async (app: FastifyInstance): Promise<void> => {
    // The signature covers the body's MD5, so the handler needs the body as it came.
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) =>
      done(null, body),
    );

    /** Verifies the request; returns the parsed JSON body, or undefined once it has replied. */
    function authorised(request: FastifyRequest, reply: FastifyReply): unknown {
      const { appId } = request.params as { appId: string };
      if (appId !== deps.credentials.appId) {
        void reply.code(404).send({ error: 'Unknown app.' });
        return undefined;
      }
      const [path = '', query = ''] = request.url.split('?', 2);
      const body = typeof request.body === 'string' ? request.body : '';
      const verdict = verifySignedRequest(deps.credentials, {
        method: request.method,
        path,
        query,
        body,
        nowS: Math.floor(now() / 1000),
      });
      if (verdict !== 'ok') {
        void reply.code(401).send({ error: `Unauthorized: ${verdict}.` });
        return undefined;
      }
      try {
        return JSON.parse(body) as unknown;
      } catch {
        void reply.code(400).send({ error: 'The body is not JSON.' });
        return undefined;
      }
    }

    /** Delivers the events, or replies 400/413 for a bad one. */
    function deliver(reply: FastifyReply, deliveries: PusherDelivery[]): unknown {
      for (const delivery of deliveries) {
        if (Buffer.byteLength(delivery.data) > MAX_EVENT_DATA_BYTES) {
          return reply.code(413).send({ error: 'Event data too large.' });
        }
        if (delivery.exceptSocketId !== undefined && !SOCKET_ID.test(delivery.exceptSocketId)) {
          return reply.code(400).send({ error: 'Invalid socket_id.' });
        }
        if (deps.endpoint.fits && !deps.endpoint.fits(delivery)) {
          return reply.code(413).send({ error: 'Event too large to reach the other instances.' });
        }
      }
      for (const delivery of deliveries) deps.endpoint.publish(delivery);
      return reply.code(200).send({});
    }

    const trigger = {
      summary: 'Pusher HTTP API: triggers an event (embedded realtime)',
      description: EVENTS_DOCS,
      tags: TAGS,
      params: AppParams,
      body: PusherTriggerBody,
      response: ANSWERS,
    } satisfies RouteDocs;
    app.post('/apps/:appId/events', { ...PUBLIC, schema: trigger }, async (request, reply) => {
      const json = authorised(request, reply);
      if (json === undefined) return reply;
      const parsed = trigger.body.safeParse(json);
      const channels = parsed.success ? channelsOf(parsed.data) : [];
      if (!parsed.success || channels.length === 0) {
        return reply.code(400).send({ error: 'Expected { name, data, channels | channel }.' });
      }
      const { name, data, socket_id: exceptSocketId } = parsed.data;
      return deliver(reply, [{ channels, event: name, data, exceptSocketId }]);
    });

    const batch = {
      summary: 'Pusher HTTP API: triggers a batch of events (embedded realtime)',
      description: EVENTS_DOCS,
      tags: TAGS,
      params: AppParams,
      body: PusherBatchBody,
      response: ANSWERS,
    } satisfies RouteDocs;
    app.post('/apps/:appId/batch_events', { ...PUBLIC, schema: batch }, async (request, reply) => {
      const json = authorised(request, reply);
      if (json === undefined) return reply;
      const parsed = batch.body.safeParse(json);
      if (!parsed.success) return reply.code(400).send({ error: 'Expected { batch: [...] }.' });
      return deliver(reply, parsed.data.batch.map(toDelivery));
    });
  };
}

function channelsOf(body: TriggerBody): string[] {
  return body.channels ?? (body.channel === undefined ? [] : [body.channel]);
}

function toDelivery(event: BatchBody['batch'][number]): PusherDelivery {
  return {
    channels: [event.channel],
    event: event.name,
    data: event.data,
    exceptSocketId: event.socket_id,
  };
}
