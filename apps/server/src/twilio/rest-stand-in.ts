/**
 * A stand-in for Twilio's REST API on 127.0.0.1, for tests (no test may call the internet): it
 * records every request (method, path, form fields, the Basic user) and answers with JSON shaped
 * as Twilio's, enough for the `twilio` library to read. A test can make the next request to a
 * path fail with Twilio's error body.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the stand-in received. */
export interface StandInRequest {
  method: string;
  path: string;
  /** The form fields (a repeated field: its values joined by spaces). */
  form: Record<string, string>;
  /** The Basic auth user (the API key SID). */
  user: string;
}

/** A Twilio error the stand-in answers with. */
export interface StandInFailure {
  status: number;
  code: number;
  message: string;
}

/** The running stand-in. */
export class TwilioRestStandIn {
  readonly requests: StandInRequest[] = [];
  readonly #failures = new Map<string, StandInFailure>();
  #next = 1;
  #server: Server | undefined;
  /** Its base URL (`TWILIO_API_BASE_URL`). */
  url = '';

  private constructor() {}

  static async start(): Promise<TwilioRestStandIn> {
    const standIn = new TwilioRestStandIn();
    const server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const answer = standIn.#answer({
          method: request.method ?? 'GET',
          path: (request.url ?? '/').split('?')[0]!,
          form: formOf(body),
          user: basicUser(request.headers.authorization),
        });
        response.writeHead(answer.status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    standIn.#server = server;
    standIn.url = `http://127.0.0.1:${port}`;
    return standIn;
  }

  /** The next request whose path ends with `pathSuffix` fails with `failure`. */
  failNext(pathSuffix: string, failure: StandInFailure): void {
    this.#failures.set(pathSuffix, failure);
  }

  close(): Promise<void> {
    return new Promise((resolve) =>
      this.#server ? this.#server.close(() => resolve()) : resolve(),
    );
  }

  #answer(request: StandInRequest): { status: number; body: unknown } {
    this.requests.push(request);
    for (const [suffix, failure] of this.#failures) {
      if (!request.path.endsWith(suffix)) continue;
      this.#failures.delete(suffix);
      return {
        status: failure.status,
        body: { code: failure.code, message: failure.message, status: failure.status },
      };
    }
    const sid = (prefix: string) => `${prefix}${String(this.#next++).padStart(32, '0')}`;
    if (request.path.endsWith('/Messages.json')) {
      return {
        status: 201,
        body: { sid: sid('SM'), status: 'queued', to: request.form.To, from: request.form.From },
      };
    }
    if (request.path.endsWith('/Participants.json')) {
      return {
        status: 201,
        body: { call_sid: sid('CA'), label: request.form.Label ?? null, status: 'queued' },
      };
    }
    if (request.path.endsWith('/Calls.json')) {
      return { status: 201, body: { sid: sid('CA'), status: 'queued' } };
    }
    return { status: 200, body: {} };
  }
}

function formOf(body: string): Record<string, string> {
  const form: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    form[key] = key in form ? `${form[key]} ${value}` : value;
  }
  return form;
}

function basicUser(header: string | undefined): string {
  if (!header?.startsWith('Basic ')) return '';
  return Buffer.from(header.slice(6), 'base64').toString().split(':')[0] ?? '';
}
