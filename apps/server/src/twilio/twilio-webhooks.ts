/**
 * Twilio's webhooks for the conference provider, as one Fastify plugin: `POST /twilio/voice`
 * (the TwiML App's and the numbers' voice URL), `POST /twilio/status` (legs' and conferences'
 * status callbacks) and `POST /twilio/recording` (the conference recording's callback). Twilio
 * posts them form-encoded (the parser is registered inside the plugin, so it stays there) and
 * signs each with the account's Auth Token over the full URL it called and the form fields
 * (`X-Twilio-Signature`); every route checks that with the `twilio` library against
 * `publicBaseUrl` + the path and query as received, and answers 403 before doing anything when
 * it is missing or wrong. What the voice webhook answers is decided by the injected `voice`
 * callback ({@link voiceAnswer} builds the usual one).
 *
 * A signed status or recording callback is handled once, whichever instance it reaches and
 * however often Twilio sends it: its receipt ({@link statusReceiptKey}: the leg's CallSid, the
 * event and status, Twilio's SequenceNumber; {@link recordingReceiptKey}) is recorded in the
 * database first, and a repeat is answered 204 and changes nothing. The voice webhook is not
 * deduplicated: its answer is TwiML made for that request, and Twilio does not repeat it unless
 * its URL asks for retries.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import twilio from 'twilio';
import type { OutgoingCallDecision } from '@leadline/voice';
import type { RouteDocs } from '../http/api-docs';
import { receiptPart, type WebhookReceipts } from '../http/webhook-receipts';
import { refuseTwiml, waitTwiml } from './conference-twiml';
import type { TwilioTelephony } from './twilio-telephony';

/** What the routes need. */
export interface TwilioWebhookOptions {
  telephony: {
    handleStatus(
      query: Record<string, string>,
      params: Record<string, string>,
    ): Promise<void> | void;
    handleRecording(query: Record<string, string>, params: Record<string, string>): void;
  };
  authToken: string;
  /** Where Twilio reaches this server, without a trailing slash. */
  publicBaseUrl: string;
  /** The voice webhook's TwiML for Twilio's form fields. */
  voice: (params: Record<string, string>) => Promise<string>;
  /** The callbacks already handled, shared by the instances; absent: each is handled as sent. */
  receipts?: Pick<WebhookReceipts, 'firstTime'> | undefined;
}

/**
 * A status callback's receipt: which call of ours (`call`, the label), Twilio's leg (CallSid) or
 * conference, the event and status, and the SequenceNumber Twilio numbers each callback with.
 */
export function statusReceiptKey(
  query: Record<string, string>,
  params: Record<string, string>,
): string {
  return [
    'twilio-status',
    query.call ?? params.FriendlyName,
    query.label ?? params.ParticipantLabel,
    params.CallSid ?? params.ConferenceSid,
    params.StatusCallbackEvent,
    params.CallStatus,
    params.SequenceNumber,
  ]
    .map((part, i) => (i === 0 ? part : receiptPart(part)))
    .join(':');
}

/** A recording callback's receipt: the recording and its status. */
export function recordingReceiptKey(
  query: Record<string, string>,
  params: Record<string, string>,
): string {
  return [
    'twilio-recording',
    receiptPart(query.call ?? params.FriendlyName),
    receiptPart(params.RecordingSid ?? params.RecordingUrl),
    receiptPart(params.RecordingStatus),
  ].join(':');
}

/** What every Twilio webhook's description says. */
const SIGNED =
  "Mounted only when the server calls through Twilio (`docs/deployment.md`). Twilio posts it form-encoded and signs it with the account's Auth Token over `PUBLIC_BASE_URL` + path + query and the form fields (`X-Twilio-Signature`); a missing or wrong signature is 403 and reaches nothing.";

/** The error body of a request Twilio did not sign. */
export const INVALID_SIGNATURE = { error: 'Invalid Twilio signature.' } as const;

/** The routes. */
export function twilioWebhookRoutes(options: TwilioWebhookOptions) {
  return async (app: FastifyInstance): Promise<void> => {
    app.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string' },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    const signed = (request: FastifyRequest) => {
      const signature = request.headers['x-twilio-signature'];
      return (
        typeof signature === 'string' &&
        twilio.validateRequest(
          options.authToken,
          signature,
          `${options.publicBaseUrl}${request.url}`,
          formOf(request),
        )
      );
    };
    /** A webhook's options: public to the session layer (the signature is checked here). */
    const route = (summary: string, description: string, answers: RouteDocs['response']) => {
      const schema: RouteDocs = {
        summary,
        description: `${description} ${SIGNED}`,
        tags: ['Provider webhooks'],
        consumes: ['application/x-www-form-urlencoded'],
        response: { ...answers, 403: { description: '`{"error":"Invalid Twilio signature."}`' } },
      };
      return { config: { auth: 'public' as const }, schema };
    };
    const voice = route(
      'Twilio’s voice webhook (TwiML)',
      "The TwiML App's and the numbers' voice URL. An agent's browser placing a call (`From: client:<user id>`, with the console's `call_user_id` or `network_test` parameters): answered with `<Dial><Conference participantLabel=\"agent-<id>\" …>CA…</Conference></Dial>` and the lead dialled into that conference, or, refused, `<Say>` the reason and `<Hangup/>` (the dial guard's sentences, see Dialling rules; 'Your login has ended: log in again to place calls.' for a browser whose user has no login left, its access token living on for its hour). A phone calling one of an account's caller numbers: the call is offered to the account's agents; the caller waits (`<Pause>`) until an agent answers, then joins the conference. A number no account has: `<Reject/>`.",
      {
        200: {
          description: 'TwiML',
          content: { 'text/xml': { schema: { type: 'string' } } },
        },
      },
    );
    app.post('/twilio/voice', voice, async (request, reply) => {
      if (!signed(request)) return reply.code(403).send(INVALID_SIGNATURE);
      return reply.type('text/xml').send(await options.voice(formOf(request)));
    });
    /** Whether this callback is its first delivery (a repeat is answered and not handled). */
    const firstTime = async (key: string) => (await options.receipts?.firstTime(key)) ?? true;
    const status = route(
      'Twilio’s status callbacks',
      "Status callbacks of each participant's leg (`?call=<call sid>&label=<label>`; `CallSid`, `CallStatus`) and of the conference (`StatusCallbackEvent` `participant-join`, `participant-leave`, `conference-end`; `FriendlyName` the call sid, `ParticipantLabel`). 204. A repeat (same leg or conference, event, status and `SequenceNumber`), on whichever instance, is answered 204 and changes nothing (webhook receipts, see Rate limits).",
      {
        204: { description: 'Handled (or a repeat, not handled again)' },
      },
    );
    app.post('/twilio/status', status, async (request, reply) => {
      if (!signed(request)) return reply.code(403).send(INVALID_SIGNATURE);
      const [query, form] = [queryOf(request), formOf(request)];
      if (await firstTime(statusReceiptKey(query, form))) {
        await options.telephony.handleStatus(query, form);
      }
      return reply.code(204).send();
    });
    const recording = route(
      'Twilio’s recording callback',
      "The conference recording's status callback (`RecordingStatus=completed`, `RecordingUrl`, `RecordingDuration`): the call's recording becomes playable at `GET /api/v1/calls/{id}/recording`, which streams it from Twilio with the API key. 204; a repeat changes nothing.",
      {
        204: { description: 'Handled (or a repeat, not handled again)' },
      },
    );
    app.post('/twilio/recording', recording, async (request, reply) => {
      if (!signed(request)) return reply.code(403).send(INVALID_SIGNATURE);
      const [query, form] = [queryOf(request), formOf(request)];
      if (await firstTime(recordingReceiptKey(query, form))) {
        options.telephony.handleRecording(query, form);
      }
      return reply.code(204).send();
    });
  };
}

/** What the usual voice answer needs. */
export interface VoiceAnswerOptions {
  telephony: Pick<
    TwilioTelephony,
    'placeOutgoing' | 'callerWaiting' | 'answerCaller' | 'forgetCaller'
  >;
  /** An agent's browser placed a call (`From: client:<identity>`): connect or refuse it. */
  authorizeOutgoing: (
    identity: string,
    params: Record<string, string>,
  ) => Promise<OutgoingCallDecision>;
  /**
   * A phone called one of the account's numbers: the flows take it (calling `addCaller`).
   * Resolves `false` when no account has the number called (the call is rejected).
   */
  inbound: (params: Record<string, string>) => Promise<boolean | void>;
  /** How long an inbound caller not yet placed waits before Twilio hangs up (s). */
  inboundWaitS?: number;
}

/** Twilio's `<Pause>` allows at most this (s); `addCaller` moves the call before. */
const DEFAULT_INBOUND_WAIT_S = 60;

/**
 * The voice webhook's decision: an outgoing client call is authorized and joined to its call's
 * conference (the number dialled into it), or refused with the error's message spoken; an
 * inbound call is handed to the flows and joined when they placed it, else kept waiting.
 */
export function voiceAnswer(options: VoiceAnswerOptions) {
  return async (params: Record<string, string>): Promise<string> => {
    const from = params.From ?? '';
    if (from.startsWith('client:')) {
      const decision = await options.authorizeOutgoing(from.slice('client:'.length), params);
      if ('error' in decision) return refuseTwiml(decision.error.message);
      return options.telephony.placeOutgoing(
        decision.callSid,
        from.slice('client:'.length),
        decision.from === undefined
          ? { to: decision.dial }
          : { to: decision.dial, from: decision.from },
      );
    }
    if (!params.CallSid) return refuseTwiml();
    await options.telephony.callerWaiting(params);
    if ((await options.inbound(params)) === false) {
      await options.telephony.forgetCaller(params.CallSid);
      return refuseTwiml();
    }
    const answer = await options.telephony.answerCaller(params.CallSid);
    if (answer === null) return waitTwiml(options.inboundWaitS ?? DEFAULT_INBOUND_WAIT_S);
    return 'join' in answer ? answer.join : refuseTwiml();
  };
}

function formOf(request: FastifyRequest): Record<string, string> {
  const body = request.body;
  return typeof body === 'object' && body !== null ? (body as Record<string, string>) : {};
}

function queryOf(request: FastifyRequest): Record<string, string> {
  const query = request.query;
  return typeof query === 'object' && query !== null ? (query as Record<string, string>) : {};
}
