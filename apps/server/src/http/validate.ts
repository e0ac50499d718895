/**
 * Boundary parsing: every body, query and path parameter goes through its zod schema here.
 * A failure becomes a 422 with one clear sentence that names the field; so does text that
 * cannot be stored as given (NUL, an unpaired surrogate).
 */
import type { FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { AppError } from './errors';

/** Whether the top-level key of `path` is absent (or undefined) in `input`. */
function isMissing(input: unknown, path: PropertyKey[]): boolean {
  const key = path[0];
  if (key === undefined || typeof input !== 'object' || input === null) return false;
  return (input as Record<PropertyKey, unknown>)[key] === undefined;
}

/** One sentence describing the first problem of a failed parse of `input`. */
export function describeIssue(error: z.ZodError, where: string, input?: unknown): string {
  const issue = error.issues[0];
  if (!issue) return `The ${where} is invalid.`;
  const field = issue.path.join('.');
  if (issue.code === 'invalid_type' && field && isMissing(input, issue.path)) {
    return `The ${field.replaceAll('_', ' ')} field is required.`;
  }
  if (issue.code === 'invalid_type' && !field) return `The ${where} must be a JSON object.`;
  // Our schemas carry sentences; zod's defaults get the field name in front.
  const message = issue.message.endsWith('.') ? issue.message : `${issue.message}.`;
  return /^The /.test(message) || !field ? message : `The ${field} field: ${message}`;
}

/**
 * One sentence about the first string in `value` that cannot be stored as given, or null: one
 * with NUL (PostgreSQL's text type cannot hold it; the query would fail with a 500) or with a
 * UTF-16 surrogate outside a pair (UTF-8 cannot encode it; it would be stored as U+FFFD). Only
 * JSON escapes (`\u0000`, `\ud800`) carry them; all other text is stored as it came.
 */
function describeUnstorableText(
  value: unknown,
  where: string,
  path: readonly PropertyKey[] = [],
): string | null {
  if (typeof value === 'string') {
    const field = path.length > 0 ? path.map(String).join('.') : where;
    if (value.includes('\u0000')) return `The ${field} may not contain the NUL character.`;
    if (/\p{Cs}/u.test(value)) return `The ${field} is not valid Unicode text.`;
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  for (const [key, item] of Object.entries(value)) {
    const found = describeUnstorableText(item, where, [...path, key]);
    if (found) return found;
  }
  return null;
}

/** Parses `input` with `schema` or throws a 422 `AppError` naming the field. */
export function parseWith<S extends z.ZodType>(
  schema: S,
  input: unknown,
  where: 'body' | 'query' | 'path' = 'body',
): z.output<S> {
  const value = input ?? (where === 'body' ? undefined : {});
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new AppError('VALIDATION_FAILED', describeIssue(result.error, where, value));
  }
  // Only what the schema kept: unknown fields are dropped, never stored.
  const unstorable = describeUnstorableText(result.data, where);
  if (unstorable) throw new AppError('VALIDATION_FAILED', unstorable);
  return result.data;
}

/** The parts of a request a route declares schemas for, and how its sentences name them. */
const PARTS = { body: 'body', querystring: 'query', params: 'path' } as const;

/**
 * Parses the request's `part` with `schema`, which must be the very schema the route declares
 * for it (`schema.body`, `schema.querystring`, `schema.params` in its options, what the API
 * document shows: `api-docs.ts`): a route parsing with another one fails (500) rather than
 * document what it does not do. `absent` stands for a missing body.
 */
export function parseRequest<S extends z.ZodType>(
  request: FastifyRequest,
  part: keyof typeof PARTS,
  schema: S,
  absent?: unknown,
): z.output<S> {
  const declared = (request.routeOptions.schema as Record<string, unknown> | undefined)?.[part];
  if (declared !== schema) {
    throw new Error(
      `${request.method} ${request.routeOptions.url ?? ''} parses its ${part} with a schema its route options do not declare`,
    );
  }
  const input =
    part === 'body' ? request.body : part === 'querystring' ? request.query : request.params;
  return parseWith(schema, input ?? absent, PARTS[part]);
}
