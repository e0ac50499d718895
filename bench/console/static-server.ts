/**
 * The app-load bench's server for the hello world (`node --import tsx console/static-server.ts`):
 * Fastify with `@fastify/static`, registered with the options the product's web routes use
 * (apps/server/src/web/web-routes.ts: `{ root, wildcard: false, index: 'index.html' }`, no
 * compression, the plugin's default cache headers), so the files go out as the product sends the
 * console's. The product's security headers (`@fastify/helmet`) and API routes are not here.
 *
 * Environment: `ROOT` (the built folder), `PORT` (0: any). Prints one JSON line
 * `{"ready":true,"port":…}` when it listens.
 */
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';

const root = process.env.ROOT;
if (!root) throw new Error('ROOT (the folder to serve) is not set');
const app = Fastify({ logger: false });
await app.register(fastifyStatic, { root, wildcard: false, index: 'index.html' });
const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
console.log(JSON.stringify({ ready: true, port: Number(new URL(address).port) }));
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
