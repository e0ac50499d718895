/**
 * Boundary parsing: every body, query and path parameter goes through its zod schema here.
 * A failure becomes a 422 with one clear sentence that names the field.
 */
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
  return result.data;
}
