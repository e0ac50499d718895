/**
 * Test support: Twilio as the product meets it, on loopback. The REST stand-in answers the
 * provider's requests; this adds what Twilio does *after* answering them: the status callbacks
 * of each participant's leg and of the conference, signed with the account's Auth Token over
 * `PUBLIC_BASE_URL` exactly as Twilio signs, posted to the product's real webhooks. A test plays
 * the people (an agent's browser answers, a lead picks up or is busy, someone hangs up) and the
 * cloud reports it; what the provider commands (remove a participant, end the conference, move
 * an inbound call) is reported back as Twilio would, including the callbacks a provider must
 * ignore (a removed party's end). Nothing here decides for the product: it only reports.
 *
 * Every callback is posted in order, one after another, after the REST answer that caused it;
 * `settled()` resolves once every callback so far has been answered by the product.
 */
import { jwtVerify } from 'jose';
import twilio from 'twilio';
import { waitUntil } from './wait-until';
import {
  STAND_IN_ACCOUNT_SID,
  type ApiRequest,
  type TwilioApiStandIn,
} from './twilio-api-stand-in';

/** A participant as the simulated Twilio knows it. */
export interface CloudParticipant {
  /** The conference's name: the Leadline call sid. */
  conference: string;
  label: string;
  /** Twilio's `CA…` sid of the leg. */
  callSid: string;
  to: string;
  from: string;
  /** Where its leg reports (the public URL, with the query the provider put there). */
  statusCallback: string | undefined;
  state: 'queued' | 'ringing' | 'in-progress' | 'ended';
  /** In the conference (joined and not left). */
  joined: boolean;
  /** The latest participant fields the provider set (Muted, Hold, Coaching, CallSidToCoach…). */
  fields: Record<string, string>;
  /** When the provider created it (`performance.now()`). */
  createdAt: number;
  /** When it ended (`performance.now()`), once it did. */
  endedAt?: number;
}

const PARTICIPANTS = /\/Conferences\/([^/]+)\/Participants\.json$/;
const PARTICIPANT = /\/Conferences\/([^/]+)\/Participants\/([^/]+)\.json$/;
const CONFERENCE = /\/Conferences\/([^/]+)\.json$/;
const CALL = /\/Calls\/([^/]+)\.json$/;
/** How many instances a callback is offered to before the cloud gives up on it. */
const UNREACHABLE_ATTEMPTS = 5;

/** The simulated cloud. */
export class TwilioCloud {
  readonly participants: CloudParticipant[] = [];
  /** Every callback posted: path and query, fields, the product's status. */
  readonly callbacks: Array<{ url: string; params: Record<string, string>; status: number }> = [];
  /** Callbacks posted and not answered yet: where to, and since when (`performance.now()`). */
  readonly inFlight = new Set<{
    url: string;
    params: Record<string, string>;
    to: string;
    since: number;
  }>();
  #chain: Promise<unknown> = Promise.resolve();
  /** With `parallelCalls`: each conference's callbacks in order, conferences side by side. */
  readonly #chains = new Map<string, Promise<unknown>>();
  readonly #participantListeners = new Set<(p: CloudParticipant) => void>();
  #sequence = new Map<string, number>();
  #nextCall = 1;
  readonly #unsubscribe: () => void;

  constructor(
    readonly standIn: TwilioApiStandIn,
    private readonly options: {
      authToken: string;
      /**
       * The API key's secret access tokens are signed with (`TWILIO_API_SECRET`): what
       * {@link TwilioCloud.connect} checks a browser's token with, as Twilio does.
       */
      apiSecret?: string;
      /** `PUBLIC_BASE_URL`: what Twilio signs over. */
      publicBaseUrl: string;
      /**
       * Where the product really listens (Twilio's requests reach it there); with several
       * instances, a load balancer's choice (asked again for each callback).
       */
      productUrl: () => string;
      /**
       * Callbacks of different conferences are posted side by side (each conference's in order),
       * as Twilio does; by default every callback waits for the one before.
       */
      parallelCalls?: boolean;
      /**
       * Each callback is also posted, at the same moment, to a second choice of `productUrl`
       * (Twilio retrying one it thought lost while the first is still being answered).
       */
      duplicate?: boolean;
    },
  ) {
    this.#unsubscribe = standIn.onRequest((request, answer) => this.#react(request, answer));
    standIn.participantKnown = (conference, labelOrSid) =>
      this.#participant(conference, labelOrSid) !== undefined;
  }

  /** Stops reacting to the stand-in's requests. */
  close(): void {
    this.#unsubscribe();
    this.standIn.participantKnown = undefined;
  }

  /** Resolves once every callback so far has been answered. */
  async settled(): Promise<void> {
    for (;;) {
      const pending = [this.#chain, ...this.#chains.values()];
      await Promise.all(pending);
      const now = [this.#chain, ...this.#chains.values()];
      if (now.length === pending.length && now.every((p, i) => p === pending[i])) return;
    }
  }

  /** Calls `listener` with each participant the provider creates; returns the unsubscribe. */
  onParticipant(listener: (p: CloudParticipant) => void): () => void {
    this.#participantListeners.add(listener);
    return () => this.#participantListeners.delete(listener);
  }

  /** Waits for a participant the provider created that matches `match`. */
  waitForParticipant(
    match: (p: CloudParticipant) => boolean,
    what: string,
    timeoutMs = 10_000,
  ): Promise<CloudParticipant> {
    return waitUntil(
      () => this.participants.find(match),
      what,
      timeoutMs,
      () =>
        `participants: ${this.participants.map((p) => `${p.conference}/${p.label}=${p.state}`).join(', ')}`,
    );
  }

  /** The agent's browser (`client:<identity>`) rung into `conference`. */
  agentRung(identity: string, conference?: string): Promise<CloudParticipant> {
    return this.waitForParticipant(
      (p) =>
        p.to.startsWith(`client:${identity}`) &&
        p.state !== 'ended' &&
        (conference === undefined || p.conference === conference),
      `client:${identity} to be rung${conference ? ` into ${conference}` : ''}`,
    );
  }

  /** The leg rings (Twilio: `ringing`). */
  ring(p: CloudParticipant): Promise<void> {
    p.state = 'ringing';
    return this.#leg(p, 'ringing');
  }

  /** The leg answers and joins the conference. */
  answer(p: CloudParticipant): Promise<void> {
    p.state = 'in-progress';
    p.joined = true;
    this.standIn.setConference(p.conference, 'in-progress');
    return Promise.all([this.#leg(p, 'in-progress'), this.#conference(p, 'participant-join')]).then(
      () => undefined,
    );
  }

  /** The leg ends before it answered: `busy`, `no-answer`, `failed` or `canceled`. */
  unanswered(
    p: CloudParticipant,
    status: 'busy' | 'no-answer' | 'failed' | 'canceled',
  ): Promise<void> {
    p.state = 'ended';
    p.endedAt = performance.now();
    this.#endedIfEmpty(p.conference);
    return this.#leg(p, status);
  }

  /** The person hangs up: they leave the conference and the leg completes. */
  hangUp(p: CloudParticipant): Promise<void> {
    return this.#end(p);
  }

  /**
   * Twilio posts a callback again (it retries one it thinks failed, and may tell the same fact
   * twice): the same URL and fields, signed again, after the callbacks before it.
   */
  repeat(callback: { url: string; params: Record<string, string> }): Promise<void> {
    return this.#queue(callback.url, { ...callback.params });
  }

  /**
   * A browser places a call with its access token (`device.connect({ params })`): Twilio checks
   * the token (signed with the API key's secret, not expired, a Voice grant with outgoing calls)
   * and asks the voice webhook with `From: client:<identity>`, the browser's `params` and the
   * token's outgoing parameters (`grants.voice.outgoing.params`; here they win a clash of names).
   * Resolves with the TwiML answered; rejects a token Twilio would refuse.
   */
  async connect(token: string, params: Record<string, string>): Promise<string> {
    if (this.options.apiSecret === undefined) {
      throw new Error('The cloud was made without the API secret to check tokens with.');
    }
    const { payload } = await jwtVerify(token, new TextEncoder().encode(this.options.apiSecret), {
      algorithms: ['HS256'],
    });
    const grants = payload.grants as
      | {
          identity?: string;
          voice?: { outgoing?: { application_sid?: string; params?: Record<string, string> } };
        }
      | undefined;
    const outgoing = grants?.voice?.outgoing;
    if (!grants?.identity || !outgoing?.application_sid) {
      throw new Error('The token grants no outgoing calls.');
    }
    return this.voice({
      ...params,
      ...outgoing.params,
      From: `client:${grants.identity}`,
      ApplicationSid: outgoing.application_sid,
    });
  }

  /** Twilio's voice webhook for a call (`From`, `To`, …); resolves with the TwiML answered. */
  async voice(params: Record<string, string>): Promise<string> {
    const callSid = params.CallSid ?? this.#newCallSid();
    const form = {
      AccountSid: STAND_IN_ACCOUNT_SID,
      CallSid: callSid,
      CallStatus: 'ringing',
      Direction: 'inbound',
      ...params,
    };
    const { text } = await this.#post('/twilio/voice', form);
    this.#joinFromTwiml(text, form);
    return text;
  }

  /** The conference's recording is ready: the recording callback with a recording the stand-in serves. */
  async recordingReady(conference: string, wav: Buffer, seconds: number): Promise<string> {
    const url = this.standIn.addRecording(wav);
    const sid = url.slice(url.lastIndexOf('/') + 1);
    await this.#queue('/twilio/recording', {
      AccountSid: STAND_IN_ACCOUNT_SID,
      ConferenceSid: this.standIn.conferenceSid(conference),
      FriendlyName: conference,
      RecordingSid: sid,
      RecordingUrl: url,
      RecordingStatus: 'completed',
      RecordingDuration: String(seconds),
      RecordingSource: 'StartConferenceRecordingAPI',
    });
    return url;
  }

  /**
   * Posts a callback as Twilio would (signed), after the ones before it (of its conference, with
   * `parallelCalls`).
   */
  #queue(pathAndQuery: string, params: Record<string, string>, conference?: string): Promise<void> {
    const key = this.options.parallelCalls ? conference : undefined;
    const previous = key === undefined ? this.#chain : (this.#chains.get(key) ?? Promise.resolve());
    const next = previous.then(() => this.#post(pathAndQuery, params));
    const settled = next.catch(() => undefined);
    if (key === undefined) this.#chain = settled;
    else this.#chains.set(key, settled);
    return next.then(() => undefined);
  }

  async #post(pathAndQuery: string, params: Record<string, string>) {
    if (this.options.duplicate) {
      const [first] = await Promise.all([
        this.#postOnce(pathAndQuery, params),
        this.#postOnce(pathAndQuery, params),
      ]);
      return first;
    }
    return this.#postOnce(pathAndQuery, params);
  }

  /**
   * One post; an instance that cannot be reached (killed) is left for the next choice of
   * `productUrl`, as a load balancer does, a few times.
   */
  async #postOnce(pathAndQuery: string, params: Record<string, string>) {
    const signature = twilio.getExpectedTwilioSignature(
      this.options.authToken,
      `${this.options.publicBaseUrl}${pathAndQuery}`,
      params,
    );
    let response: Response | undefined;
    for (let attempt = 1; !response; attempt++) {
      const to = this.options.productUrl();
      const flight = { url: pathAndQuery, params, to, since: performance.now() };
      this.inFlight.add(flight);
      try {
        response = await fetch(`${to}${pathAndQuery}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'x-twilio-signature': signature,
          },
          body: new URLSearchParams(params).toString(),
        });
      } catch (error) {
        if (attempt >= UNREACHABLE_ATTEMPTS) throw error;
      } finally {
        this.inFlight.delete(flight);
      }
    }
    const reading = {
      url: pathAndQuery,
      params,
      to: 'reading the answer',
      since: performance.now(),
    };
    this.inFlight.add(reading);
    const text = await response.text().finally(() => this.inFlight.delete(reading));
    this.callbacks.push({ url: pathAndQuery, params, status: response.status });
    if (response.status >= 300) {
      throw new Error(`${pathAndQuery} answered ${response.status}: ${text}`);
    }
    return { text };
  }

  #leg(p: CloudParticipant, status: string): Promise<void> {
    if (!p.statusCallback) return Promise.resolve();
    const url = new URL(p.statusCallback);
    return this.#queue(
      `${url.pathname}${url.search}`,
      {
        AccountSid: STAND_IN_ACCOUNT_SID,
        CallSid: p.callSid,
        CallStatus: status,
        From: p.from,
        To: p.to,
        SequenceNumber: String(this.#nextSequence(p.callSid)),
      },
      p.conference,
    );
  }

  #conference(p: CloudParticipant, event: string): Promise<void> {
    return this.#queue(
      '/twilio/status',
      {
        AccountSid: STAND_IN_ACCOUNT_SID,
        ConferenceSid: this.standIn.conferenceSid(p.conference),
        FriendlyName: p.conference,
        StatusCallbackEvent: event,
        CallSid: p.callSid,
        ParticipantLabel: p.label,
        SequenceNumber: String(this.#nextSequence(p.conference)),
      },
      p.conference,
    );
  }

  async #end(p: CloudParticipant, status = 'completed'): Promise<void> {
    if (p.state === 'ended') return;
    const wasJoined = p.joined;
    const wasAnswered = p.state === 'in-progress';
    p.state = 'ended';
    p.endedAt = performance.now();
    p.joined = false;
    this.#endedIfEmpty(p.conference);
    const posts: Array<Promise<void>> = [];
    if (wasJoined) posts.push(this.#conference(p, 'participant-leave'));
    posts.push(this.#leg(p, wasAnswered ? status : 'canceled'));
    await Promise.all(posts);
  }

  /** What Twilio does after answering the provider's request. */
  #react(request: ApiRequest, answer: unknown): void {
    let match: RegExpExecArray | null;
    if (request.method === 'POST' && (match = PARTICIPANTS.exec(request.path))) {
      const created = answer as { call_sid?: string } | undefined;
      if (!created?.call_sid) return;
      const p: CloudParticipant = {
        conference: decodeURIComponent(match[1]!),
        label: request.form.Label ?? created.call_sid,
        callSid: created.call_sid,
        to: request.form.To ?? '',
        from: request.form.From ?? '',
        statusCallback: request.form.StatusCallback,
        state: 'queued',
        joined: false,
        fields: { ...request.form },
        createdAt: performance.now(),
      };
      this.participants.push(p);
      for (const listener of [...this.#participantListeners]) listener(p);
      return;
    }
    if ((match = PARTICIPANT.exec(request.path))) {
      const p = this.#participant(decodeURIComponent(match[1]!), decodeURIComponent(match[2]!));
      if (!p) return;
      if (request.method === 'DELETE') void this.#end(p).catch(() => undefined);
      else Object.assign(p.fields, request.form);
      return;
    }
    if ((match = CONFERENCE.exec(request.path)) && request.form.Status === 'completed') {
      const name = this.#conferenceName(decodeURIComponent(match[1]!));
      const inIt = this.participants.filter((p) => p.conference === name && p.state !== 'ended');
      void Promise.all(inIt.map((p) => this.#end(p)))
        .then(() =>
          this.#queue(
            '/twilio/status',
            {
              AccountSid: STAND_IN_ACCOUNT_SID,
              ConferenceSid: this.standIn.conferenceSid(name),
              FriendlyName: name,
              StatusCallbackEvent: 'conference-end',
              SequenceNumber: String(this.#nextSequence(name)),
            },
            name,
          ),
        )
        .catch(() => undefined);
      return;
    }
    if ((match = CALL.exec(request.path))) {
      const sid = decodeURIComponent(match[1]!);
      const p = this.participants.find((q) => q.callSid === sid && q.state !== 'ended');
      if (request.form.Twiml) {
        this.#joinFromTwiml(request.form.Twiml, { CallSid: sid });
      } else if (p && (request.form.Status === 'completed' || request.form.Status === 'canceled')) {
        void this.#end(p).catch(() => undefined);
      }
    }
  }

  /** A call answered with a conference join (TwiML) joins it as the labelled participant. */
  #joinFromTwiml(text: string, form: Record<string, string>): void {
    const conference = /<Conference[^>]*>([^<]+)<\/Conference>/.exec(text)?.[1];
    const label = /participantLabel="([^"]+)"/.exec(text)?.[1];
    if (!conference || !label || !form.CallSid) return;
    const p: CloudParticipant = {
      conference,
      label,
      callSid: form.CallSid,
      to: form.To ?? '',
      from: form.From ?? '',
      statusCallback: undefined,
      state: 'in-progress',
      joined: true,
      fields: {},
      createdAt: performance.now(),
    };
    this.participants.push(p);
    this.standIn.setConference(conference, 'in-progress');
    void this.#conference(p, 'participant-join').catch(() => undefined);
  }

  /** Twilio ends a conference once nobody is in it or on the way to it. */
  #endedIfEmpty(conference: string): void {
    if (this.participants.some((q) => q.conference === conference && q.state !== 'ended')) return;
    this.standIn.setConference(conference, 'completed');
  }

  #participant(conference: string, labelOrSid: string): CloudParticipant | undefined {
    const name = this.#conferenceName(conference);
    return this.participants.find(
      (p) =>
        p.conference === name &&
        p.state !== 'ended' &&
        (p.label === labelOrSid || p.callSid === labelOrSid),
    );
  }

  /** A conference path segment is its `CF…` sid or its name. */
  #conferenceName(segment: string): string {
    if (!segment.startsWith('CF')) return segment;
    const names = new Set(this.participants.map((p) => p.conference));
    for (const name of names) if (this.standIn.conferenceSid(name) === segment) return name;
    return segment;
  }

  #nextSequence(key: string): number {
    const next = (this.#sequence.get(key) ?? 0) + 1;
    this.#sequence.set(key, next);
    return next;
  }

  #newCallSid(): string {
    return `CA${'c'.repeat(24)}${String(this.#nextCall++).padStart(8, '0')}`;
  }
}
