/**
 * Turns every error into a clear JSON answer: registry errors as they are, Fastify's own
 * parsing errors into registry errors, and anything unexpected into a logged 500.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import { AppError } from './errors';

/** Maps an error Fastify raised while reading the request to a registry error. */
function fromFastify(error: FastifyError): AppError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('UNSUPPORTED_MEDIA_TYPE');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('MALFORMED_JSON', 'The request body is empty but Content-Type is JSON.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new AppError('MALFORMED_JSON');
    default:
      break;
  }
  if (error instanceof SyntaxError || (error.statusCode === 400 && /JSON/i.test(error.message))) {
    return new AppError('MALFORMED_JSON');
  }
  return null;
}

/** Installs the error and not-found handlers. */
export function installErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const known = error instanceof AppError ? error : fromFastify(error);
    if (known) {
      if (known.retryAfterS !== undefined) {
        void reply.header('retry-after', String(Math.max(1, Math.ceil(known.retryAfterS))));
      }
      return reply.status(known.status).send(known.body());
    }
    if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
      return reply.status(error.statusCode).send({ error: error.message });
    }
    request.log.error({ err: error }, 'unhandled error');
    const internal = new AppError('INTERNAL');
    return reply.status(internal.status).send(internal.body());
  });
}
