/**
 * Test support: a stand-in for `https://api.twilio.com` on 127.0.0.1 (no test may reach the
 * internet). It records every request (method, path, form fields) and answers the REST calls the
 * conference provider makes with JSON shaped like Twilio's, enough for the `twilio` library to
 * read: participant create (a fresh `CA…` leg sid and one `CF…` conference sid per conference
 * name), participant update, participant remove (204), conference update, call update, and the
 * conference list (`GET …/Conferences.json?FriendlyName=…&Status=…`, paged as Twilio pages). A
 * test can make the next request whose path ends with a suffix fail with Twilio's error body.
 *
 * Conferences: a participant create starts its conference (`init`, as Twilio's is until someone
 * joins), a conference update to `completed` ends it; {@link TwilioApiStandIn.setConference}
 * says what Twilio would report of one (a simulated cloud tells joins and ends, a test a crash's
 * leftovers). Twilio lists a conference's name once per conference; here a name has one
 * conference, whose last status is listed.
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
  /** The query's fields (a list's filters: `FriendlyName`, `Status`, `PageSize`, `Page`), if any. */
  query?: Record<string, string>;
}

/** A conference's status as Twilio reports it. */
export type ConferenceStatus = 'init' | 'in-progress' | 'completed';

/** What the stand-in knows of a conference (by its name). */
interface StandInConference {
  sid: string;
  status: ConferenceStatus;
  created: Date;
  updated: Date;
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
const CONFERENCES = /^\/2010-04-01\/Accounts\/(AC[^/]+)\/Conferences\.json$/;
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
  readonly #conferences = new Map<string, StandInConference>();
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
  /**
   * Whether a live participant of the conference (path segment: `CF…` sid or name) has that label
   * or leg sid: a simulated cloud that knows its participants sets it, and removing one it does
   * not know is answered 404 as Twilio does. Unset: every remove succeeds.
   */
  participantKnown: ((conference: string, labelOrSid: string) => boolean) | undefined;

  private constructor() {}

  /** Starts a stand-in on a free loopback port. */
  static async start(): Promise<TwilioApiStandIn> {
    const standIn = new TwilioApiStandIn();
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const [path = '/', search = ''] = (request.url ?? '/').split('?');
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
          ...(search ? { query: formOf(search) } : {}),
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
    return this.#conference(name).sid;
  }

  /**
   * What Twilio reports of the conference named `name` from now on (its list, `Status`), as of
   * `at` (its `date_updated`; now when left out). Created with that status if it never was.
   */
  setConference(name: string, status: ConferenceStatus, at = new Date()): void {
    const conference = this.#conference(name, status, at);
    conference.status = status;
    conference.updated = at;
  }

  /** The status Twilio would list the conference named `name` with; undefined if it never was. */
  conferenceStatus(name: string): ConferenceStatus | undefined {
    return this.#conferences.get(name)?.status;
  }

  #conference(name: string, status: ConferenceStatus = 'init', at = new Date()): StandInConference {
    let conference = this.#conferences.get(name);
    if (conference === undefined) {
      conference = { sid: this.#sid('CF'), status, created: at, updated: at };
      this.#conferences.set(name, conference);
    }
    return conference;
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
      const conferenceSid = this.#conferenceOf(match[1]!);
      // Twilio starts a conference a participant is created in (a new one once it completed).
      const name = this.#nameOf(conferenceSid);
      if (name !== undefined && this.conferenceStatus(name) === 'completed') {
        this.setConference(name, 'init');
      }
      return {
        status: 201,
        body: this.#participant(conferenceSid, this.#sid('CA'), request.form),
      };
    }
    if (request.method === 'GET' && (match = CONFERENCES.exec(request.path))) {
      return { status: 200, body: this.#conferencePage(match[1]!, request.query ?? {}) };
    }
    if ((match = PARTICIPANT.exec(request.path))) {
      if (request.method === 'DELETE') {
        const known = this.participantKnown?.(
          decodeURIComponent(match[1]!),
          decodeURIComponent(match[2]!),
        );
        if (known === false) {
          return { status: 404, body: { code: 20404, message: 'Not found', status: 404 } };
        }
        return { status: 204 };
      }
      return {
        status: 200,
        body: this.#participant(this.#conferenceOf(match[1]!), match[2]!, request.form),
      };
    }
    if ((match = CONFERENCE.exec(request.path))) {
      const name = this.#nameOf(decodeURIComponent(match[1]!));
      if (name !== undefined && request.form.Status === 'completed') {
        this.setConference(name, 'completed');
      }
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

  /** The name of the conference whose sid is `sid`. */
  #nameOf(sid: string): string | undefined {
    for (const [name, conference] of this.#conferences) if (conference.sid === sid) return name;
    return undefined;
  }

  /**
   * A page of the account's conferences as Twilio's list answers (`conferences` and the paging
   * fields), filtered by `FriendlyName` and `Status` (Twilio's default: `in-progress`), newest
   * first, `PageSize` (default 50) a page, `Page` from 0.
   */
  #conferencePage(accountSid: string, query: Record<string, string>) {
    const status = query.Status ?? 'in-progress';
    const matching = [...this.#conferences]
      .filter(
        ([name, c]) =>
          c.status === status && (query.FriendlyName === undefined || query.FriendlyName === name),
      )
      .sort(([, a], [, b]) => b.created.getTime() - a.created.getTime());
    const pageSize = Math.min(1000, Math.max(1, Number(query.PageSize ?? 50) || 50));
    const page = Math.max(0, Number(query.Page ?? 0) || 0);
    const uri = `/2010-04-01/Accounts/${accountSid}/Conferences.json`;
    const pageUri = (n: number) => {
      const params = new URLSearchParams({ ...query, PageSize: String(pageSize), Page: String(n) });
      return `${uri}?${params.toString()}`;
    };
    const start = page * pageSize;
    const rows = matching.slice(start, start + pageSize);
    return {
      conferences: rows.map(([name, c]) => ({
        account_sid: accountSid,
        api_version: '2010-04-01',
        call_sid_ending_conference: null,
        date_created: c.created.toUTCString().replace('GMT', '+0000'),
        date_updated: c.updated.toUTCString().replace('GMT', '+0000'),
        friendly_name: name,
        reason_conference_ended: c.status === 'completed' ? 'conference-ended-via-api' : null,
        region: 'us1',
        sid: c.sid,
        status: c.status,
        subresource_uris: {
          participants: `${uri.replace('.json', '')}/${c.sid}/Participants.json`,
          recordings: `${uri.replace('.json', '')}/${c.sid}/Recordings.json`,
        },
        uri: `${uri.replace('.json', '')}/${c.sid}.json`,
      })),
      end: start + rows.length - 1,
      first_page_uri: pageUri(0),
      next_page_uri: start + pageSize < matching.length ? pageUri(page + 1) : null,
      page,
      page_size: pageSize,
      previous_page_uri: page > 0 ? pageUri(page - 1) : null,
      start,
      uri: pageUri(page),
    };
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
