/**
 * The reference of the API benchmark (`taskset -c 0 node --import tsx api/bare-host.ts`): a
 * bare Fastify server (the product's Fastify, default options, no plugins) answering
 * `GET /api/v1/user` and `GET /api/v1/users/paginated?page=n` with the JSON bodies the product
 * returned for the same requests, kept in memory as objects (so each answer is serialised, as
 * the product's are). `BODIES` names a JSON file `{user, pages: {"<n>": body}}`. Prints
 * `{"ready":true,"url":…}` when it listens.
 */
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

interface Bodies {
  user: unknown;
  pages: Record<string, unknown>;
}

const bodies = JSON.parse(readFileSync(process.env.BODIES!, 'utf8')) as Bodies;
const app = Fastify({ logger: false });
app.get('/api/v1/user', async () => bodies.user);
app.get<{ Querystring: { page?: string } }>(
  '/api/v1/users/paginated',
  async (request) => bodies.pages[request.query.page ?? '1'] ?? bodies.pages['1'],
);
const address = await app.listen({ host: '127.0.0.1', port: 0 });
console.log(JSON.stringify({ ready: true, url: address }));
const stop = (): void => void app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
