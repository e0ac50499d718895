/**
 * Serves the built console (apps/web/dist) at `/`, with the SPA's index for unknown pages.
 * API paths that match nothing get a JSON 404.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { AppError } from '../http/errors';

const API_PREFIXES = ['/api/', '/apps/', '/twilio/', '/signal', '/healthz'];

/** Static hosting of the web app, if it has been built. */
export function webRoutes(distDir: string) {
  return async (app: FastifyInstance): Promise<void> => {
    const hasIndex = existsSync(join(distDir, 'index.html'));
    // The console's files are public; every API route stays session-only by default. They are
    // files, not the API: the API document (`/api/docs`) leaves them out.
    app.addHook('onRoute', (route) => {
      route.config = { ...route.config, auth: 'public' };
      route.schema = { ...route.schema, hide: true };
    });
    if (hasIndex) {
      await app.register(fastifyStatic, { root: distDir, wildcard: false, index: 'index.html' });
    }
    app.setNotFoundHandler(async (request, reply) => {
      const isApi = API_PREFIXES.some((p) => request.url.startsWith(p));
      if (isApi || request.method !== 'GET') throw new AppError('NOT_FOUND');
      if (!hasIndex) {
        return reply
          .status(404)
          .type('text/plain')
          .send('The console is not built: run `npm run build` (npm start does it for you).');
      }
      return reply.type('text/html').sendFile('index.html');
    });
  };
}
