/**
 * Serves the softphone's sounds at `/sounds/<name>.wav` (public: the login page may already ring
 * once the console loads), cached by the browser.
 */
import type { FastifyInstance } from 'fastify';
import { AppError } from '../http/errors';
import { makeSounds, SOUND_NAMES, SOUNDS_PATH, type SoundName } from './sounds';

const isSoundName = (name: string): name is SoundName =>
  (SOUND_NAMES as readonly string[]).includes(name);

/** The sounds' routes. */
export function soundsRoutes() {
  return async (app: FastifyInstance): Promise<void> => {
    const sounds = makeSounds();
    app.get(`${SOUNDS_PATH}/:file`, { config: { auth: 'public' } }, async (request, reply) => {
      const { file } = request.params as { file: string };
      const name = file.replace(/\.wav$/, '');
      if (!file.endsWith('.wav') || !isSoundName(name)) {
        throw new AppError('NOT_FOUND', 'No such sound.');
      }
      return reply
        .type('audio/wav')
        .header('cache-control', 'public, max-age=86400')
        .send(Buffer.from(sounds.get(name)!));
    });
  };
}
