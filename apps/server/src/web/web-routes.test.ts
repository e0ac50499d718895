import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import cookie from '@fastify/cookie';
import { afterAll, beforeAll, expect, it } from 'vitest';
import authPlugin from '../auth/auth-plugin';
import { SessionStore } from '../auth/sessions';
import { installErrorHandler } from '../http/error-handler';
import { openTestDatabase } from '../test-support/test-database';
import type { Database } from '../db/database';
import { webRoutes } from './web-routes';

let database: Database;
const app = Fastify({ logger: false });

beforeAll(async () => {
  database = await openTestDatabase();
  const dist = mkdtempSync(join(tmpdir(), 'leadline-dist-'));
  writeFileSync(join(dist, 'index.html'), '<!doctype html><div id="app"></div>');
  writeFileSync(join(dist, 'app.js'), 'console.log(1)');
  installErrorHandler(app);
  await app.register(cookie);
  await app.register(authPlugin, {
    db: database.db,
    sessions: new SessionStore(database.db, 1000),
  });
  app.get('/api/v1/private', async () => ({ secret: true }));
  await app.register(webRoutes(dist));
});

afterAll(async () => {
  await app.close();
  await database.close();
});

it('serves the console without a session, and unknown pages get its index', async () => {
  for (const url of ['/', '/app.js', '/some/deep/link']) {
    const res = await app.inject({ method: 'GET', url });
    expect(res.statusCode, url).toBe(200);
  }
  expect((await app.inject({ method: 'GET', url: '/some/deep/link' })).body).toContain('id="app"');
});

it('keeps API routes behind the session', async () => {
  expect((await app.inject({ method: 'GET', url: '/api/v1/private' })).statusCode).toBe(401);
  expect((await app.inject({ method: 'GET', url: '/api/v1/missing' })).statusCode).toBe(404);
});
