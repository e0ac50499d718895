/**
 * The modes at start (issue 36, item 1), as `npm start` runs the product (a child process of
 * `main.ts`): what it refuses, with the exit code and each line it prints, and what it warns of.
 *
 * - Embedded mode refuses `TELEPHONY_PROVIDER=twilio`, naming the fix; listening beyond
 *   loopback it starts and warns that the demo logins are reachable from the network.
 * - Production names every problem of its settings at once, one per line.
 * - On PostgreSQL (`DATABASE_URL`, CI's second pass; production refuses PGlite): a database an
 *   embedded start seeded is refused with the demo's logins and key named and the command that
 *   removes them; `npm run remove-demo` removes them; then production starts, its session cookie
 *   `__Host-` and `Secure` over plain HTTP, HSTS on every answer. A tenant admin then gives users
 *   the demo's e-mail addresses (a new one, a renamed one) and production starts again; the
 *   demo's password signs nobody in (the operator is told how to reset it) and is given to nobody.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from './auth/password';
import { DEMO_API_KEY } from './db/demo-logins';
import { users } from './db/schema';
import { ensureApiKey, seedDemo } from './db/seed';
import { serverRoot } from './lib/app-root';
import { ChildLeadline, runUntilRefused } from './test-support/child-leadline';
import { requestJson } from './test-support/http-json';
import { HttpSession } from './test-support/http-session';
import { OPERATOR_PASSWORD, seedOperatorAccount } from './test-support/operator-account';
import { createPersistedDatabase, type PersistedDatabase } from './test-support/persisted-database';
import { TWILIO_TEST_ENV } from './test-support/twilio-leadline';
import { waitUntil } from './test-support/wait-until';

/** A production start's settings with nothing wrong (the database is the test's). */
const PRODUCTION = {
  LEADLINE_MODE: 'production',
  TOKEN_SECRET: 'production-token-secret-0123456789abcdef',
  PUSHER_SECRET: 'production-pusher-secret-0123',
  LEADLINE_API_KEY: 'production-lead-source-key-0123456789',
};

/** What `main.ts` printed on stderr, a line each. */
const linesOf = (text: string) => text.trimEnd().split('\n');

let dataDir: string;
const cleanups: Array<() => Promise<unknown>> = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'leadline-modes-'));
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 120_000);

describe('embedded mode', () => {
  it('refuses TELEPHONY_PROVIDER=twilio with a sentence that names the fix', async () => {
    const refused = await runUntilRefused({ dataDir, env: { ...TWILIO_TEST_ENV } });
    expect(refused.exit).toEqual({ code: 1, signal: null });
    expect(linesOf(refused.stderr)).toEqual([
      'TELEPHONY_PROVIDER=twilio needs LEADLINE_MODE=production: Twilio reaches this server from the internet, where the demo logins and demo-api-key must not be. Set LEADLINE_MODE=production with DATABASE_URL, TOKEN_SECRET, PUSHER_SECRET and a LEADLINE_API_KEY of your own (docs/deployment.md).',
    ]);
  }, 240_000);

  it('listening beyond loopback, says at start that the demo logins are reachable from the network', async () => {
    const product = await ChildLeadline.start({
      dataDir: join(dataDir, 'lan'),
      env: { HOST: '0.0.0.0' },
    });
    cleanups.push(() => product.dispose());
    const warnings = product
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string })
      .filter((entry) => entry.level === 40)
      .map((entry) => entry.msg);
    expect(warnings).toContain(
      'HOST=0.0.0.0 listens beyond this machine in embedded mode: the demo logins (password leadline-demo, published in the README) and the API key demo-api-key are reachable from the network. Keep HOST=127.0.0.1 for a trial on this machine, or run LEADLINE_MODE=production (docs/deployment.md).',
    );
    expect((await product.stop()).code).toBe(0);
  }, 240_000);
});

describe('production', () => {
  it('names every problem of its settings, one per line, and exits 1', async () => {
    const refused = await runUntilRefused({
      dataDir,
      env: {
        ...PRODUCTION,
        // Nothing listens on port 1: the database cannot be checked either, and says so.
        DATABASE_URL: 'postgres://leadline@127.0.0.1:1/leadline',
        LEADLINE_API_KEY: DEMO_API_KEY,
        PUSHER_SECRET: PRODUCTION.TOKEN_SECRET,
        ...TWILIO_TEST_ENV,
        TWILIO_API_BASE_URL: 'https://twilio-api.attacker.example',
      },
    });
    expect(refused.exit).toEqual({ code: 1, signal: null });
    const lines = linesOf(refused.stderr);
    expect(lines.slice(0, 4)).toEqual([
      'Leadline refuses to start in production mode:',
      "- LEADLINE_API_KEY is the demo's key (demo-api-key), published in the README: set a random key of at least 32 characters (openssl rand -hex 32).",
      '- TOKEN_SECRET equals PUSHER_SECRET: give each its own random value (openssl rand -hex 32).',
      "- TWILIO_API_BASE_URL is https://twilio-api.attacker.example: it must be Twilio's API (https://api.twilio.com) or a stand-in on a loopback address (tests). Unset it.",
    ]);
    expect(lines.slice(4)).toEqual([
      expect.stringMatching(
        /^- The database at DATABASE_URL could not be checked for the demo seed's logins: connect ECONNREFUSED 127\.0\.0\.1:1$/,
      ) as string,
    ]);
  }, 240_000);

  it('refuses a short lead-intake key', async () => {
    const refused = await runUntilRefused({
      dataDir,
      env: {
        ...PRODUCTION,
        DATABASE_URL: 'postgres://leadline@127.0.0.1:1/leadline',
        LEADLINE_API_KEY: 'a-key-of-24-characters!!',
      },
    });
    expect(refused.exit.code).toBe(1);
    expect(linesOf(refused.stderr).slice(0, 2)).toEqual([
      'Leadline refuses to start in production mode:',
      '- LEADLINE_API_KEY has 24 characters: a lead-intake key needs at least 32 (openssl rand -hex 32).',
    ]);
  }, 240_000);

  describe.runIf(process.env.DATABASE_URL)('on a database an embedded start seeded', () => {
    let database: PersistedDatabase;
    let product: ChildLeadline;

    it('is refused with the demo logins, the demo key and the command that removes them', async () => {
      database = await createPersistedDatabase(join(dataDir, 'seeded'));
      cleanups.push(() => database.drop());
      const seeded = await database.open();
      await seedDemo(seeded.db);
      await ensureApiKey(seeded.db, DEMO_API_KEY);
      await seedOperatorAccount(seeded.db, {
        callerNumber: '+15550100999',
        agents: ['pat@operator.example'],
        admins: ['olive@operator.example'],
      });
      await seeded.close();

      const refused = await runUntilRefused({
        dataDir,
        env: { ...PRODUCTION, ...database.env },
      });
      expect(refused.exit).toEqual({ code: 1, signal: null });
      expect(linesOf(refused.stderr)).toEqual([
        'Leadline refuses to start in production mode:',
        "- The database holds the demo seed's logins agent1@example.com, agent2@example.com, supervisor@example.com, admin@example.com, agent@a6671.example.com, agent@a9920.example.com, agent@a9420.example.com, agent@a781.example.com (password leadline-demo, published in the README): remove them with npm run admin -- remove-demo (with this DATABASE_URL).",
        '- The database holds the demo API key (demo-api-key, published in the README): remove it with npm run admin -- remove-demo (with this DATABASE_URL).',
      ]);
    }, 240_000);

    it('`npm run remove-demo` removes them; production then starts with Secure __Host- cookies and HSTS', async () => {
      const removal = await npmRun(['run', 'remove-demo'], { ...PRODUCTION, ...database.env });
      expect(removal.code).toBe(0);
      expect(linesOf(removal.stdout).filter((line) => line.startsWith('Removed'))).toEqual([
        "Removed the demo seed's logins agent1@example.com, agent2@example.com, supervisor@example.com, admin@example.com, agent@a6671.example.com, agent@a9920.example.com, agent@a9420.example.com, agent@a781.example.com from the database at DATABASE_URL.",
        'Removed the demo API key from the database at DATABASE_URL.',
      ]);

      product = await ChildLeadline.start({
        dataDir,
        env: { ...PRODUCTION, ...database.env },
      });
      cleanups.push(() => product.dispose());
      // The demo's login and key are gone (and the demo's password signs nobody in anyway); the
      // operator's login works.
      const demo = await requestJson('POST', `${product.url}/api/v1/user/login`, undefined, {
        email: 'agent1@example.com',
        password: 'leadline-demo',
      });
      expect(demo.status).toBe(403);
      const lead = await requestJson(
        'POST',
        `${product.url}/api/v1/leads`,
        { authorization: `Bearer ${DEMO_API_KEY}` },
        { fname: 'Demo', lname: 'Key', phone_number: '+15550100077' },
      );
      expect(lead.status).toBe(401);

      const login = await requestJson('POST', `${product.url}/api/v1/user/login`, undefined, {
        email: 'pat@operator.example',
        password: OPERATOR_PASSWORD,
      });
      expect(login.status).toBe(200);
      const [cookie] = login.headers.getSetCookie();
      expect(cookie).toMatch(/^__Host-leadline_session=[^;]+; /);
      expect(cookie!.split('; ').slice(1).sort()).toEqual(
        expect.arrayContaining(['HttpOnly', 'Path=/', 'SameSite=Lax', 'Secure']),
      );
      expect(login.headers.get('strict-transport-security')).toBe(
        'max-age=31536000; includeSubDomains',
      );
      const agent = await HttpSession.login(product.url, 'pat@operator.example', OPERATOR_PASSWORD);
      expect(agent.cookie).toMatch(/^__Host-leadline_session=/);
      const me = await agent.api<{ user: { email: string } }>(
        'GET',
        `/api/v1/user?time=${Date.now()}`,
      );
      expect(me.body.user.email).toBe('pat@operator.example');
      expect(me.headers.get('strict-transport-security')).toBe(
        'max-age=31536000; includeSubDomains',
      );
    }, 240_000);

    it('a tenant admin gives users the demo’s e-mails, and production still starts; the demo’s password signs nobody in and is given to nobody', async () => {
      const admin = await HttpSession.login(
        product.url,
        'olive@operator.example',
        OPERATOR_PASSWORD,
      );
      const created = await admin.api<{ data: { id: number } }>('POST', '/api/v1/admin/users', {
        full_name: 'Their Own Admin',
        email: 'admin@example.com',
        password: 'violet harbour lantern 42',
        role: 'admin',
        permissions: [],
        team_ids: [],
      });
      expect(created.status).toBe(201);
      const pat = await userIdOf(admin, 'pat@operator.example');
      const renamed = await admin.api('PATCH', `/api/v1/admin/users/${pat}`, {
        email: 'agent1@example.com',
      });
      expect(renamed.status).toBe(200);

      // The demo's password, given by an admin: refused, with the sentence.
      const demoSet = await admin.api('PATCH', `/api/v1/admin/users/${created.body.data.id}`, {
        password: 'leadline-demo',
      });
      expect(demoSet).toMatchObject({
        status: 422,
        body: {
          error: "The password may not be the public demo's (leadline-demo): choose another.",
        },
      });
      // A user whose stored hash is of the demo's password (as a demo login renamed before the
      // seed marked its rows would be): refused at sign-in, and the operator told what to do.
      const seeded = await database.open();
      await seeded.db
        .update(users)
        .set({ passwordHash: await hashPassword('leadline-demo') })
        .where(eq(users.id, pat));
      await seeded.close();
      const demoLogin = await requestJson('POST', `${product.url}/api/v1/user/login`, undefined, {
        email: 'agent1@example.com',
        password: 'leadline-demo',
      });
      expect(demoLogin).toMatchObject({
        status: 403,
        body: {
          success: false,
          error:
            "This password is the public demo's: it signs nobody in here. Ask your administrator for a new one.",
        },
      });
      await waitUntil(
        () =>
          product
            .output()
            .includes(
              "The user agent1@example.com signed in with the demo's published password (leadline-demo), refused in production: give them a new one with npm run admin -- reset-password --email agent1@example.com --password-stdin",
            ) || undefined,
        'the operator to be told how to reset the demo password',
      );

      // The next start of production starts: nothing a tenant did looks like the demo.
      expect((await product.stop()).code).toBe(0);
      product = await ChildLeadline.start({ dataDir, env: { ...PRODUCTION, ...database.env } });
      cleanups.push(() => product.dispose());
      const again = await requestJson('POST', `${product.url}/api/v1/user/login`, undefined, {
        email: 'admin@example.com',
        password: 'violet harbour lantern 42',
      });
      expect(again.status).toBe(200);
    }, 240_000);
  });
});

/** The id of the user with `email`, as the admin's list shows it. */
async function userIdOf(admin: HttpSession, email: string): Promise<number> {
  const list = await admin.api<{ data: Array<{ id: number; email: string }> }>(
    'GET',
    `/api/v1/admin/users?search=${encodeURIComponent(email)}`,
  );
  const found = list.body.data.find((user) => user.email === email);
  if (!found) throw new Error(`${email} is not in the admin's list`);
  return found.id;
}

/** Runs `npm <args>` at the repository's root with `env` over the test's; its exit and output. */
function npmRun(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('npm', args, {
    cwd: join(serverRoot(), '..', '..'),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stdout, stderr })));
}
