/**
 * Serves the softphone's sounds at `/sounds/<name>.wav` (public: the login page may already ring
 * once the console loads), cached by the browser.
 */
import type { FastifyInstance } from 'fastify';
import { ErrorResponseSchema } from '@leadline/contracts';
import { z } from 'zod';
import type { RouteDocs } from '../http/api-docs';
import { AppError } from '../http/errors';
import { parseRequest } from '../http/validate';
import { makeSounds, SOUND_NAMES, SOUNDS_PATH, type SoundName } from './sounds';

const isSoundName = (name: string): name is SoundName =>
  (SOUND_NAMES as readonly string[]).includes(name);

/** The sounds' routes. */
export function soundsRoutes() {
  return async (app: FastifyInstance): Promise<void> => {
    const sounds = makeSounds();
    const sound = {
      summary: 'A softphone sound (WAV)',
      description:
        "The softphone's sounds, made by the product so neither SDK fetches a CDN: `incoming` (a 440 + 480 Hz ring, 2 s on, 4 s off, looped by the SDK), `outgoing`, `disconnect`, and `dtmf0`…`dtmf9`, `dtmfs` (*), `dtmfh` (#) as DTMF dual tones: `{file}` is `<name>.wav`. `GET /api/v1/user` lists their URLs in `softphone.sounds`. Unknown names are 404.",
      tags: ['Softphone'],
      params: z.object({ file: z.string().describe('`<name>.wav`, e.g. `dtmf5.wav`') }),
      response: {
        200: {
          description: 'The sound',
          content: { 'audio/wav': { schema: { type: 'string', contentMediaType: 'audio/wav' } } },
        },
        404: ErrorResponseSchema,
      },
    } satisfies RouteDocs;
    const route = { config: { auth: 'public' as const }, schema: sound };
    app.get(`${SOUNDS_PATH}/:file`, route, async (request, reply) => {
      const { file } = parseRequest(request, 'params', sound.params);
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
