/**
 * The API document (issue 37 item 6): OpenAPI 3.1 made from the routes' own zod schemas, served
 * at /api/docs/openapi.json and as a page at /api/docs. Every route the application registers
 * is in it with a summary; every body a route parses is documented (routes parse only through
 * `parseRequest`, which insists on the declared schema); the JSON Schema it shows accepts and
 * refuses as the zod schema the route parses with; docs/openapi.json is the document as made.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDocumentedApp } from '../test-support/documented-app';
import { login, startTestApp, type TestApp } from '../test-support/test-app';
import { API_DOCS_JSON_PATH, API_DOCS_PATH } from './api-docs';

interface Operation {
  summary?: string;
  tags?: string[];
  security?: Array<Record<string, unknown>>;
  parameters?: Array<{ name: string; in: string; schema: object }>;
  requestBody?: { content: Record<string, { schema: object }> };
  responses: Record<string, unknown>;
}
interface Document {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
}

/** Fastify's `/a/:id` as OpenAPI writes it, `/a/{id}`. */
const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}');

/**
 * The routes that take no body (POST and PUT without one): any other route that changes
 * something must document its body. A new route lands here only on purpose.
 */
const NO_BODY = new Set([
  'POST /api/v1/user/logout',
  'POST /api/v1/user/logout-everywhere',
  'POST /api/v1/user/wrap-up/done',
  'POST /apps/webrtc/{id}/reject',
  'POST /apps/webrtc/check',
  'POST /api/v1/calls/{id}/listen',
  'POST /api/v1/calls/{id}/whisper',
  'POST /api/v1/calls/{id}/barge',
  'PUT /api/v1/calls/{id}/hold',
  'PUT /api/v1/calls/{id}/unhold',
  'POST /api/v1/sandbox/calls/{id}/hangup',
  // The providers' webhooks: their form or signed raw body is described in words.
  'POST /twilio/voice',
  'POST /twilio/status',
  'POST /twilio/recording',
  'POST /pusher/webhooks',
]);

const routes: RouteOptions[] = [];
let t: TestApp;
let doc: Document;

beforeAll(async () => {
  t = await startDocumentedApp({ onRoute: (route) => routes.push({ ...route }) });
  const res = await t.app.inject({ method: 'GET', url: API_DOCS_JSON_PATH });
  expect(res.statusCode).toBe(200);
  doc = res.json<Document>();
}, 60_000);
afterAll(async () => {
  await t?.close();
});

/** Every method and path the application serves (the HEAD twins of GETs left out). */
function servedOperations(): string[] {
  const all = routes.flatMap((route) =>
    [route.method].flat().map((method) => `${method} ${openApiPath(route.url)}`),
  );
  return all.filter((op) => !op.startsWith('HEAD ') || !all.includes(op.replace(/^HEAD /, 'GET ')));
}

const operationOf = (key: string): Operation | undefined => {
  const [method = '', path = ''] = key.split(' ');
  return doc.paths[path]?.[method.toLowerCase()];
};

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('has every route the application serves, each with a summary and a tag', () => {
    const served = servedOperations();
    // The routes of every part: the admin API, the calls, the webhooks, the docs themselves.
    expect(served).toEqual(
      expect.arrayContaining([
        'POST /api/v1/user/login',
        'POST /api/v1/leads',
        'GET /api/v1/admin/users',
        'POST /twilio/voice',
        'POST /apps/{appId}/events',
        'POST /pusher/webhooks',
        'GET /api/docs',
      ]),
    );
    const missing = served.filter((key) => !operationOf(key));
    expect(missing).toEqual([]);
    const undocumented = served.filter((key) => {
      const operation = operationOf(key)!;
      return !operation.summary?.trim() || !operation.tags?.length;
    });
    expect(undocumented).toEqual([]);
    // And nothing it does not serve.
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.filter((key) => !served.includes(key))).toEqual([]);
  });

  it('documents the body of every route that takes one', () => {
    for (const route of routes) {
      const declared = route.schema?.body;
      for (const method of [route.method].flat()) {
        const key = `${method} ${openApiPath(route.url)}`;
        const body = operationOf(key)?.requestBody;
        if (declared) {
          expect(body, key).toBeDefined();
          for (const media of Object.values(body!.content)) {
            // An object's schema, or a choice of them (a union body).
            const shape = Object.keys(media.schema).filter((k) => /^(type|anyOf|oneOf)$/.test(k));
            expect(shape, key).not.toEqual([]);
          }
        } else if (['POST', 'PUT', 'PATCH'].includes(method)) {
          expect(NO_BODY.has(key), `${key} parses no documented body`).toBe(true);
        }
      }
    }
  });

  it('shows who may call each route', () => {
    expect(operationOf('POST /api/v1/user/login')!.security).toBeUndefined();
    expect(operationOf('GET /api/v1/user')!.security).toEqual([{ session: [] }]);
    expect(operationOf('PUT /api/v1/user/status')!.security).toEqual([{ session: [], csrf: [] }]);
    expect(operationOf('POST /api/v1/leads')!.security).toEqual([{ apiKey: [] }]);
    // A route with input answers 422 with a sentence; a session route 401.
    expect(Object.keys(operationOf('PUT /api/v1/user/status')!.responses)).toEqual(
      expect.arrayContaining(['200', '401', '403', '422']),
    );
  });

  /** The document's JSON Schema of a route's body, compiled. */
  const bodyValidator = (key: string) => {
    const schema = operationOf(key)!.requestBody!.content['application/json']!.schema;
    // Formats unchecked: zod writes its own patterns beside them (an e-mail's, for one).
    return new Ajv2020({ strict: false, validateFormats: false }).compile(schema);
  };

  it.each([
    [
      'POST /api/v1/user/login',
      [
        [{ email: 'agent1@example.com', password: 'leadline-demo' }, true],
        [{ email: 'agent1@example.com' }, false],
        [{ email: 'not an e-mail', password: 'x' }, false],
        [{ email: 'agent1@example.com', password: '' }, false],
        [{ email: 42, password: 'x' }, false],
      ],
    ],
    [
      'PUT /api/v1/user/status',
      [
        [{ status: 'available' }, true],
        [{ status: 'away' }, true],
        [{ status: 'on_call' }, false],
        [{}, false],
      ],
    ],
    [
      'POST /apps/webrtc/{id}/disposition',
      [
        [{ status: 'contacted' }, true],
        [{ status: 'voicemail' }, true],
        [{ status: 'maybe' }, false],
        [{ status: 1 }, false],
      ],
    ],
  ] as const)(
    '%s: the documented schema accepts and refuses as the route does',
    async (key, samples) => {
      const validate = bodyValidator(key);
      const [method = '', path = ''] = key.split(' ');
      const route = routes.find(
        (r) => [r.method].flat().includes(method as never) && openApiPath(r.url) === path,
      )!;
      const zodSchema = (route.schema as { body: { safeParse(v: unknown): { success: boolean } } })
        .body;
      for (const [sample, expected] of samples) {
        expect(validate(sample), JSON.stringify(sample)).toBe(expected);
        expect(zodSchema.safeParse(sample).success, JSON.stringify(sample)).toBe(expected);
      }
    },
  );

  it('is the same as docs/openapi.json (npm run api-docs -w @leadline/server writes it)', () => {
    const file = fileURLToPath(new URL('../../../../docs/openapi.json', import.meta.url));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(doc);
  });
});

describe('parsing only what the route declares', () => {
  /** Non-test source files of the server. */
  const sources = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return sources(path);
      return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) && !path.includes('test-support')
        ? [path]
        : [];
    });

  it('no route parses its input past its declaration (parseWith on request.*)', () => {
    const root = fileURLToPath(new URL('..', import.meta.url));
    const offenders = sources(root).filter((file) =>
      /parseWith\(\s*[\w.]+,\s*request\.(body|query|params)/.test(readFileSync(file, 'utf8')),
    );
    expect(offenders).toEqual([]);
  });

  it('a route parsing with a schema it does not declare fails rather than document a lie', async () => {
    const { default: Fastify } = await import('fastify');
    const { parseRequest } = await import('./validate');
    const { LoginBody, UserStatusBody } = await import('@leadline/contracts');
    const app = Fastify();
    app.setValidatorCompiler(() => () => true);
    app.post('/x', { schema: { body: LoginBody } }, async (request) =>
      parseRequest(request, 'body', UserStatusBody),
    );
    const res = await app.inject({ method: 'POST', url: '/x', payload: { status: 'away' } });
    expect(res.statusCode).toBe(500);
    await app.close();
  });
});

describe('the readable page and who may read the document', () => {
  it('is HTML under the product CSP, with no script, listing every operation', async () => {
    const res = await t.app.inject({ method: 'GET', url: API_DOCS_PATH });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toContain("script-src 'self'");
    expect(res.body).not.toMatch(/<script|<style|style=|https?:\/\/(?!calls\.example)/i);
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        expect(res.body).toContain(`${method.toUpperCase()} ${path.replaceAll('&', '&amp;')}`);
      }
    }
    // Text is escaped: the descriptions' `<name>.wav` shows as text.
    expect(res.body).toContain('&lt;name&gt;.wav');
  });

  it('is public in embedded mode', async () => {
    const res = await t.app.inject({ method: 'GET', url: API_DOCS_JSON_PATH });
    expect(res.statusCode).toBe(200);
  });

  it('needs a session (any role) in production', async () => {
    const prod = await startTestApp({ apiDocs: 'session' });
    try {
      for (const url of [API_DOCS_PATH, API_DOCS_JSON_PATH]) {
        const anonymous = await prod.app.inject({ method: 'GET', url });
        expect(anonymous.statusCode, url).toBe(401);
        const agent = await login(prod.app);
        const signedIn = await prod.app.inject({
          method: 'GET',
          url,
          headers: { cookie: agent.cookie },
        });
        expect(signedIn.statusCode, url).toBe(200);
      }
    } finally {
      await prod.close();
    }
  });
});
