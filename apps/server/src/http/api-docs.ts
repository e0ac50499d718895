/**
 * The API's OpenAPI 3.1 document, made from the routes themselves (`@fastify/swagger`): each
 * route declares in its options what it does (`summary`, `description`, `tags`) and the zod
 * schemas of its body, query, path and answers (`schema.body`, `querystring`, `params`,
 * `response`), and parses its input with the same schema objects (`parseRequest`, validate.ts,
 * refuses to parse with a schema the route does not declare). The transform below turns the
 * zod schemas into JSON Schema (zod's own `z.toJSONSchema`, the request side as sent, the answer
 * side as returned), adds the route's authentication (`config.auth`) and the answers every such
 * route can give (401, the CSRF 403, the 422 of a bad input).
 *
 * Fastify neither validates nor serializes with these schemas: the validator compiler accepts
 * everything (the handlers' zod parse answers with our sentences) and the serializer is
 * `JSON.stringify`, as for a route without schemas.
 *
 * Served at `GET /api/docs` (a readable page, made here, no script, no remote asset, under the
 * product's Content-Security-Policy) and `GET /api/docs/openapi.json`; public in embedded mode,
 * a session (any role) in production (`docs/security.md`).
 */
import swagger from '@fastify/swagger';
import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import { ErrorResponseSchema, RefusalSchema } from '@leadline/contracts';
import { z } from 'zod';
import type { RouteAuth } from '../auth/auth-plugin';

/** The readable page. */
export const API_DOCS_PATH = '/api/docs';
/** The OpenAPI document (JSON). */
export const API_DOCS_JSON_PATH = '/api/docs/openapi.json';

/** Who may read the documentation: anyone, or any signed-in user (production). */
export type ApiDocsAccess = 'public' | 'session';

/** A JSON Schema object. */
type JsonSchema = Record<string, unknown>;

/** An answer without a body, or one of another media type: its description (and content). */
export interface DescribedResponse {
  description: string;
  content?: Record<string, { schema: JsonSchema }>;
}

/** What a route declares for the document. */
export interface RouteDocs extends FastifySchema {
  summary: string;
  description?: string;
  tags: string[];
  response?: Record<number, z.ZodType | DescribedResponse>;
}

const isZod = (value: unknown): value is z.ZodType => value instanceof z.ZodType;

/** The JSON Schema of a zod schema, as sent (`input`) or as answered (`output`). */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  }) as JsonSchema;
  delete json.$schema;
  return json;
}

/** Descriptions of the answers the routes give. */
const STATUS_TEXT: Record<number, string> = {
  200: 'OK',
  201: 'Created',
  204: 'No content',
  206: 'Partial content',
  302: 'Redirect',
  400: 'Bad request',
  401: 'Not signed in',
  403: 'Refused',
  404: 'Not found',
  409: 'Conflict',
  422: 'Invalid input: one sentence naming the field',
  429: 'Too many requests',
  502: 'The call service cannot be reached',
};

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The route's schema as the document shows it: JSON Schema, auth, the usual refusals. */
function documented(schema: FastifySchema | undefined, route: RouteOptions): JsonSchema {
  const auth: RouteAuth = route.config?.auth ?? 'session';
  const methods = [route.method].flat();
  const mutating = methods.some((method) => !SAFE_METHODS.has(method));
  const out: JsonSchema = { ...schema };
  for (const part of ['body', 'querystring', 'params'] as const) {
    const value = schema?.[part];
    if (isZod(value)) out[part] = jsonSchemaOf(value, 'input');
  }
  const declared = (schema?.response ?? {}) as Record<string, unknown>;
  const responses: Record<string, JsonSchema> = {};
  const add = (status: number, value: unknown) => {
    if (isZod(value)) {
      responses[status] = {
        description: value.description ?? STATUS_TEXT[status] ?? 'Answer',
        ...jsonSchemaOf(value, 'output'),
      };
    } else if (value && typeof value === 'object') {
      const described = value as DescribedResponse;
      // `type: 'null'` is @fastify/swagger's way of saying "no body" (204, a redirect); other
      // answers without a schema of ours are some JSON, described in words.
      const bodiless = status === 204 || (status >= 300 && status < 400);
      responses[status] =
        described.content || !bodiless ? { ...described } : { ...described, type: 'null' };
    }
  };
  for (const [status, value] of Object.entries(declared)) add(Number(status), value);
  const usual = (status: number, value: z.ZodType, description: string) => {
    if (!(status in responses)) add(status, value.describe(description));
  };
  if (auth === 'session') {
    usual(401, RefusalSchema, 'Not signed in (no session, or it has ended)');
    if (mutating) usual(403, ErrorResponseSchema, 'No X-CSRF-TOKEN, or not the session’s');
  }
  if (auth === 'api-key') usual(401, ErrorResponseSchema, 'No valid API key');
  if (schema?.body || schema?.querystring || schema?.params) {
    usual(422, ErrorResponseSchema, STATUS_TEXT[422]!);
  }
  if (Object.keys(responses).length > 0) out.response = responses;
  if (auth === 'session') out.security = [mutating ? { session: [], csrf: [] } : { session: [] }];
  if (auth === 'api-key') out.security = [{ apiKey: [] }];
  return out;
}

/** The document's frame: what the API is, how it authenticates. */
const OPENAPI = {
  openapi: '3.1.0',
  info: {
    title: 'Leadline API',
    version: '1',
    description:
      'The HTTP API of Leadline, a browser softphone and call center. Sessions: the cookie of ' +
      '`POST /api/v1/user/login` (`leadline_session`; `__Host-leadline_session` in production), ' +
      'and on every request that changes something the `csrf_token` of `GET /api/v1/user` as ' +
      '`X-CSRF-TOKEN`. Lead intake takes an API key (`Authorization: Bearer <key>`). Bad input ' +
      'is 422 `{ "error": "<one sentence naming the field>" }` and changes nothing; conventions, ' +
      'idempotency keys and dialling rules: docs/api.md.',
  },
  components: {
    securitySchemes: {
      session: {
        type: 'apiKey',
        in: 'cookie',
        name: 'leadline_session',
        description: 'The session cookie (`__Host-leadline_session` in production).',
      },
      csrf: {
        type: 'apiKey',
        in: 'header',
        name: 'X-CSRF-TOKEN',
        description: 'The session’s `csrf_token` (GET /api/v1/user), on every mutating request.',
      },
      apiKey: {
        type: 'http',
        scheme: 'bearer',
        description: 'An API key of the account (lead intake).',
      },
    },
  },
} as const;

/**
 * Registers the document's machinery on `app`, before any route: the compilers that leave input
 * and output to the handlers, and @fastify/swagger collecting every route registered after.
 */
export async function registerApiDocs(app: FastifyInstance): Promise<void> {
  app.setValidatorCompiler(() => () => true);
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  await app.register(swagger, {
    openapi: OPENAPI as unknown as Record<string, unknown>,
    transform: ({ schema, url, route }) => ({
      schema: documented(schema, route),
      url,
    }),
  });
}

/** The routes serving the document and its page; `access` says who may read them. */
export function apiDocsRoutes(access: ApiDocsAccess) {
  return async (app: FastifyInstance): Promise<void> => {
    const config = { auth: access };
    app.get(
      API_DOCS_JSON_PATH,
      {
        config,
        schema: {
          summary: 'This document: the API as OpenAPI 3.1',
          description:
            'Made from the routes’ own schemas as the server runs. Public in embedded mode; in ' +
            'production a session (any role) is needed. Offline: `npm run api-docs -w ' +
            '@leadline/server` writes it to docs/openapi.json.',
          tags: ['Documentation'],
        } satisfies RouteDocs,
      },
      async () => app.swagger(),
    );
    app.get(
      API_DOCS_PATH,
      {
        config,
        schema: {
          summary: 'This document as a readable page (HTML)',
          tags: ['Documentation'],
          response: {
            200: {
              description: 'The page',
              content: { 'text/html': { schema: { type: 'string' } } },
            },
          },
        } satisfies RouteDocs,
      },
      async (_request, reply) =>
        reply
          .type('text/html; charset=utf-8')
          .send(renderApiPage(app.swagger() as unknown as OpenApiDocument)),
    );
  };
}

/** The parts of the document the page shows. */
interface OpenApiDocument {
  info: { title: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
}

interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Array<Record<string, unknown>>;
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: unknown }>;
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses?: Record<
    string,
    { description?: string; content?: Record<string, { schema: unknown }> }
  >;
}

const escapeHtml = (text: string): string =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** Escaped text with its `code` spans as <code>. */
const prose = (text: string): string =>
  text
    .split('`')
    .map((part, i) => (i % 2 === 1 ? `<code>${escapeHtml(part)}</code>` : escapeHtml(part)))
    .join('');

const json = (value: unknown): string => `<pre>${escapeHtml(JSON.stringify(value, null, 2))}</pre>`;

const authOf = (operation: Operation): string => {
  const schemes = Object.keys(operation.security?.[0] ?? {});
  if (schemes.includes('apiKey')) return 'API key (Authorization: Bearer)';
  if (schemes.includes('csrf')) return 'session + X-CSRF-TOKEN';
  if (schemes.includes('session')) return 'session';
  return 'public';
};

const anchorOf = (method: string, path: string) =>
  `${method}-${path}`.replace(/[^A-Za-z0-9]+/g, '-').replace(/-$/, '');

/** One operation: heading, auth, text, parameters, body and answers. */
function renderOperation(method: string, path: string, operation: Operation): string {
  const parts = [
    `<section id="${anchorOf(method, path)}">`,
    `<h3><code>${method.toUpperCase()} ${escapeHtml(path)}</code></h3>`,
    `<p><strong>${prose(operation.summary ?? '')}</strong></p>`,
    `<p>Auth: ${authOf(operation)}</p>`,
  ];
  if (operation.description) parts.push(`<p>${prose(operation.description)}</p>`);
  if (operation.parameters?.length) {
    parts.push('<h4>Parameters</h4><ul>');
    for (const p of operation.parameters) {
      parts.push(
        `<li><code>${escapeHtml(p.name)}</code> (${escapeHtml(p.in)}${p.required ? ', required' : ''}): <code>${escapeHtml(JSON.stringify(p.schema ?? {}))}</code></li>`,
      );
    }
    parts.push('</ul>');
  }
  for (const [type, media] of Object.entries(operation.requestBody?.content ?? {})) {
    parts.push(`<details><summary>Request body (${escapeHtml(type)})</summary>`);
    parts.push(`${json(media.schema)}</details>`);
  }
  for (const [status, answer] of Object.entries(operation.responses ?? {})) {
    const media = Object.entries(answer.content ?? {});
    const title = `${escapeHtml(status)}: ${prose(answer.description ?? '')}`;
    if (media.length === 0) {
      parts.push(`<p>Answer ${title}</p>`);
      continue;
    }
    for (const [type, content] of media) {
      parts.push(`<details><summary>Answer ${title} (${escapeHtml(type)})</summary>`);
      parts.push(`${json(content.schema)}</details>`);
    }
  }
  parts.push('</section>');
  return parts.join('\n');
}

/** The readable page: every operation by tag, with its schemas; nothing but HTML. */
export function renderApiPage(document: OpenApiDocument): string {
  const byTag = new Map<string, string[]>();
  const index = new Map<string, string[]>();
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const tag = operation.tags?.[0] ?? 'Other';
      byTag.set(tag, [...(byTag.get(tag) ?? []), renderOperation(method, path, operation)]);
      index.set(tag, [
        ...(index.get(tag) ?? []),
        `<li><a href="#${anchorOf(method, path)}"><code>${method.toUpperCase()} ${escapeHtml(path)}</code></a> ${prose(operation.summary ?? '')}</li>`,
      ]);
    }
  }
  const tags = [...byTag.keys()];
  const slug = (tag: string) => `tag-${tag.replace(/[^A-Za-z0-9]+/g, '-')}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(document.info.title)}</title>
</head>
<body>
<header>
<h1>${escapeHtml(document.info.title)}</h1>
<p>${prose(document.info.description ?? '')}</p>
<p>The same as OpenAPI 3.1 JSON: <a href="${API_DOCS_JSON_PATH}">${API_DOCS_JSON_PATH}</a>.</p>
</header>
<nav aria-label="Operations">
${tags.map((tag) => `<h2><a href="#${slug(tag)}">${escapeHtml(tag)}</a></h2>\n<ul>\n${index.get(tag)!.join('\n')}\n</ul>`).join('\n')}
</nav>
<main>
${tags.map((tag) => `<h2 id="${slug(tag)}">${escapeHtml(tag)}</h2>\n${byTag.get(tag)!.join('\n')}`).join('\n')}
</main>
</body>
</html>
`;
}
