/**
 * Test support: a stand-in for `https://api.twilio.com` on 127.0.0.1 (no test may reach the
 * internet). It records every request (method, path, form fields) and answers the REST calls the
 * conference provider makes with JSON shaped like Twilio's, enough for the `twilio` library to
 * read: participant create (a fresh `CA…` leg sid and one `CF…` conference sid per conference
 * name), participant update, participant remove (204), conference update, call update. A test can
 * make the next request whose path ends with a suffix fail with Twilio's error body.
 *
 * Point a client at it with {@link standInClient}: the production `twilioClient` with the
 * stand-in's URL as `TWILIO_API_BASE_URL` (its request client rewrites Twilio's origin).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type twilio from 'twilio';
import { twilioClient } from '../twilio/twilio-client';

/** One request the stand-in received. */
export interface ApiRequest {
  method: string;
  /** Path without the query, e.g. `/2010-04-01/Accounts/AC…/Conferences/CA1/Participants.json`. */
  path: string;
  /** Form fields; a repeated field (e.g. `StatusCallbackEvent`) has its values joined by spaces. */
  form: Record<string, string>;
}

/** A refusal the stand-in answers with, as Twilio's error body. */
export interface ApiFailure {
  status: number;
  code: number;
  message: string;
}

const PARTICIPANTS = /\/Conferences\/([^/]+)\/Participants\.json$/;
const PARTICIPANT = /\/Conferences\/([^/]+)\/Participants\/([^/]+)\.json$/;
const CONFERENCE = /\/Conferences\/([^/]+)\.json$/;
const CALL = /\/Calls\/([^/]+)\.json$/;
const MESSAGES = /\/Messages\.json$/;
const NUMBERS = /\/IncomingPhoneNumbers\.json$/;
const RECORDING_MEDIA = /\/Recordings\/(RE[0-9a-f]{32})\.wav$/;

/** The running stand-in. */
export class TwilioApiStandIn {
  readonly requests: ApiRequest[] = [];
  /** What it answered each request with (the JSON body; `undefined` for 204), in order. */
  readonly answers: unknown[] = [];
  readonly #failures = new Map<string, ApiFailure>();
  readonly #conferences = new Map<string, string>();
  readonly #waiters = new Set<() => void>();
  readonly #listeners = new Set<(request: ApiRequest, answer: unknown) => void>();
  readonly #recordings = new Map<string, Buffer>();
  #next = 1;
  /** The account's phone numbers, as `IncomingPhoneNumbers` lists them. */
  numbers: string[] = ['+15005550006'];
  /** Requests must carry this API key (HTTP basic, as the `twilio` library sends it); any when unset. */
  apiKey: string | undefined;
  #server: Server | undefined;
  /** Its base URL, e.g. `http://127.0.0.1:41234`. */
  url = '';

  private constructor() {}

  /** Starts a stand-in on a free loopback port. */
  static async start(): Promise<TwilioApiStandIn> {
    const standIn = new TwilioApiStandIn();
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const path = (request.url ?? '/').split('?')[0] ?? '/';
        const user = basicUser(request.headers.authorization);
        if (standIn.apiKey !== undefined && user !== standIn.apiKey) {
          response.writeHead(401, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ code: 20003, message: 'Authenticate', status: 401 }));
          return;
        }
        const media = RECORDING_MEDIA.exec(path);
        if (media) {
          const wav = standIn.#recordings.get(media[1]!);
          response.writeHead(wav ? 200 : 404, {
            'content-type': wav ? 'audio/x-wav' : 'application/json',
          });
          response.end(wav ?? JSON.stringify({ code: 20404, message: 'Not found', status: 404 }));
          return;
        }
        const answer = standIn.#answer({
          method: request.method ?? 'GET',
          path,
          form: formOf(body),
        });
        standIn.answers.push(answer.body);
        const received = standIn.requests[standIn.requests.length - 1];
        if (received)
          for (const listener of [...standIn.#listeners]) listener(received, answer.body);
        if (answer.body === undefined) {
          response.writeHead(answer.status);
          response.end();
        } else {
          response.writeHead(answer.status, { 'content-type': 'application/json' });
          response.end(JSON.stringify(answer.body));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    standIn.#server = server;
    standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return standIn;
  }

  /** Hears every request after it is answered (a simulated Twilio reacts to them); returns the unsubscribe. */
  onRequest(listener: (request: ApiRequest, answer: unknown) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Keeps a recording (`RE…` sid) that `GET …/Recordings/<sid>.wav` serves; returns its URL as Twilio gives it. */
  addRecording(wav: Buffer, accountSid = STAND_IN_ACCOUNT_SID): string {
    const sid = this.#sid('RE');
    this.#recordings.set(sid, wav);
    return `https://api.twilio.com/2010-04-01/Accounts/${accountSid}/Recordings/${sid}`;
  }

  /** Forgets the requests and answers so far (between tests). */
  reset(): void {
    this.requests.length = 0;
    this.answers.length = 0;
    this.#failures.clear();
  }

  /** The next request whose path ends with `pathSuffix` is refused with `failure`. */
  failNext(pathSuffix: string, failure: ApiFailure): void {
    this.#failures.set(pathSuffix, failure);
  }

  /** The `CF…` sid the stand-in gave the conference named `name` (created on first use). */
  conferenceSid(name: string): string {
    let sid = this.#conferences.get(name);
    if (sid === undefined) {
      sid = this.#sid('CF');
      this.#conferences.set(name, sid);
    }
    return sid;
  }

  /** Resolves once `count` requests have been received (tests wait on this, never sleep). */
  async received(count: number): Promise<ApiRequest[]> {
    while (this.requests.length < count) {
      await new Promise<void>((resolve) => this.#waiters.add(resolve));
    }
    return this.requests;
  }

  close(): Promise<void> {
    return new Promise((resolve) =>
      this.#server ? this.#server.close(() => resolve()) : resolve(),
    );
  }

  #answer(request: ApiRequest): { status: number; body?: unknown } {
    this.requests.push(request);
    for (const wake of [...this.#waiters]) {
      this.#waiters.delete(wake);
      wake();
    }
    for (const [suffix, failure] of this.#failures) {
      if (!request.path.endsWith(suffix)) continue;
      this.#failures.delete(suffix);
      return {
        status: failure.status,
        body: {
          code: failure.code,
          message: failure.message,
          more_info: `https://www.twilio.com/docs/errors/${failure.code}`,
          status: failure.status,
        },
      };
    }
    let match: RegExpExecArray | null;
    if (request.method === 'POST' && (match = PARTICIPANTS.exec(request.path))) {
      return {
        status: 201,
        body: this.#participant(this.#conferenceOf(match[1]!), this.#sid('CA'), request.form),
      };
    }
    if ((match = PARTICIPANT.exec(request.path))) {
      if (request.method === 'DELETE') return { status: 204 };
      return {
        status: 200,
        body: this.#participant(this.#conferenceOf(match[1]!), match[2]!, request.form),
      };
    }
    if ((match = CONFERENCE.exec(request.path))) {
      return {
        status: 200,
        body: { sid: match[1], status: request.form.Status ?? 'in-progress' },
      };
    }
    if (request.method === 'POST' && MESSAGES.test(request.path)) {
      const { To: to, From: from } = request.form;
      return { status: 201, body: { sid: this.#sid('SM'), status: 'queued', to, from } };
    }
    if (request.method === 'GET' && NUMBERS.test(request.path)) {
      return {
        status: 200,
        body: {
          incoming_phone_numbers: this.numbers.map((number, i) => ({
            sid: `PN${String(i + 1).padStart(32, '0')}`,
            phone_number: number,
            friendly_name: number,
          })),
          page: 0,
          page_size: 1000,
          next_page_uri: null,
        },
      };
    }
    if ((match = CALL.exec(request.path))) {
      return { status: 200, body: { sid: match[1], status: request.form.Status ?? 'in-progress' } };
    }
    return { status: 404, body: { code: 20404, message: 'Not found', status: 404 } };
  }

  /** A conference path segment is a `CF…` sid or a name (participant create by name). */
  #conferenceOf(segment: string): string {
    const name = decodeURIComponent(segment);
    return name.startsWith('CF') ? name : this.conferenceSid(name);
  }

  #participant(conferenceSid: string, callSid: string, form: Record<string, string>) {
    return {
      account_sid: 'AC' + '0'.repeat(32),
      call_sid: callSid,
      conference_sid: conferenceSid,
      label: form.Label ?? null,
      muted: form.Muted === 'true',
      hold: form.Hold === 'true',
      coaching: form.Coaching === 'true',
      call_sid_to_coach: form.CallSidToCoach ?? null,
      status: 'queued',
    };
  }

  #sid(prefix: string): string {
    return `${prefix}${String(this.#next++).padStart(32, '0')}`;
  }
}

/** The account the tests' client uses. */
export const STAND_IN_ACCOUNT_SID = 'AC' + 'a'.repeat(32);

/** The production REST client (`./twilio-client`), pointed at `standIn` as configuration does. */
export function standInClient(standIn: TwilioApiStandIn): twilio.Twilio {
  return twilioClient({
    accountSid: STAND_IN_ACCOUNT_SID,
    apiKey: 'SK' + 'b'.repeat(32),
    apiSecret: 'stand-in-secret',
    apiBaseUrl: standIn.url,
  });
}

/** The user of an HTTP basic `authorization` header. */
function basicUser(header: string | undefined): string | undefined {
  if (!header?.startsWith('Basic ')) return undefined;
  return Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8').split(':')[0];
}

function formOf(body: string): Record<string, string> {
  const form: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    form[key] = key in form ? `${form[key]} ${value}` : value;
  }
  return form;
}
