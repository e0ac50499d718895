/**
 * Every socket refuses what it must, on the real product (voice engine, embedded realtime
 * endpoint): the signalling gateway refuses expired, forged and foreign tokens; a login that
 * ends (a logout, a removed user) loses its softphone and realtime sockets within seconds, and
 * the user's other login keeps its own. The realtime clients are pusher-js as the console runs
 * it, authorised through `POST /api/v1/pusher/auth` with the login's cookie.
 */
import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { SignJWT, decodeJwt } from 'jose';
import PusherJs from 'pusher-js';
import type { Channel } from 'pusher-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PStreamTestClient } from '@leadline/voice/testing';
import { ACCESS_TOKEN_CONTENT_TYPE } from '@leadline/contracts';
import { DEMO_PASSWORD } from '../db/seed';
import { sessions, users } from '../db/schema';
import { accountChannelOf, userChannelOf } from '../realtime/channels';
import { AgentClient } from '../test-support/agent-client';
import { HttpSession } from '../test-support/http-session';
import { startRealLeadline, type RealLeadline } from '../test-support/real-engine';
import { waitUntil } from '../test-support/wait-until';
import { hashPassword } from './password';

const TOKEN_SECRET = 'socket-access-test-secret-socket-access-test-secret';
const AGENT = 'agent1@example.com';
/** A user of another account. */
const FOREIGN = 'agent@a6671.example.com';
const TONES = { agent: 1000, lead: 440 } as const;

let product: RealLeadline;
const realtimeClients: PusherJs[] = [];

beforeAll(async () => {
  product = await startRealLeadline({ env: { TOKEN_SECRET } });
}, 120_000);

afterAll(async () => {
  for (const client of realtimeClients) client.disconnect();
  await product?.close();
}, 60_000);

/** A raw signalling socket that sends `listen` with `token`; resolves with the first answer. */
async function listenWith(token: string): Promise<{ type: string; payload: unknown }> {
  const client = await PStreamTestClient.connect(product.signalUrl);
  product.addCleanup(() => client.ws.close());
  client.send('listen', { token, browserinfo: {}, reconnectTimeout: 0 });
  await waitUntil(() => (client.frames.length > 0 ? true : undefined), 'an answer to listen');
  const [frame] = client.frames;
  return { type: frame!.type, payload: frame!.payload };
}

/** A token shaped as the product's, signed with `secret`, with `claims` over the real one's. */
function tokenLike(
  real: string,
  claims: Record<string, unknown>,
  secret = TOKEN_SECRET,
): Promise<string> {
  const payload = { ...decodeJwt(real), ...claims };
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', cty: ACCESS_TOKEN_CONTENT_TYPE })
    .sign(new TextEncoder().encode(secret));
}

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** pusher-js as the console runs it, authorised with `agent`'s login. */
function realtimeOf(agent: AgentClient): PusherJs {
  const port = new URL(product.url).port;
  const client = new PusherJs(product.config.pusher.key, {
    cluster: product.config.pusher.cluster,
    wsHost: '127.0.0.1',
    wsPort: Number(port),
    forceTLS: false,
    enabledTransports: ['ws'],
    disableStats: true,
    channelAuthorization: {
      customHandler: ({ socketId, channelName }, callback) => {
        void fetch(`${product.url}/api/v1/pusher/auth`, {
          method: 'POST',
          headers: {
            cookie: agent.cookie,
            'x-csrf-token': agent.csrf,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body: new URLSearchParams({ socket_id: socketId, channel_name: channelName }),
        }).then(async (res) =>
          res.ok
            ? callback(null, (await res.json()) as { auth: string })
            : callback(new Error(`auth ${res.status}`), null),
        );
      },
    },
  });
  realtimeClients.push(client);
  return client;
}

/** Subscribes; resolves once the subscription succeeded. */
function subscribed(client: PusherJs, name: string): Promise<Channel> {
  const channel = client.subscribe(name);
  return new Promise((resolve, reject) => {
    channel.bind('pusher:subscription_succeeded', () => resolve(channel));
    channel.bind('pusher:subscription_error', (error: unknown) =>
      reject(new Error(`subscription to ${name} refused: ${JSON.stringify(error)}`)),
    );
  });
}

/** The console's two subscriptions on one socket, as the console makes them. */
async function consoleRealtime(agent: AgentClient): Promise<PusherJs> {
  const client = realtimeOf(agent);
  await subscribed(client, userChannelOf(agent.userId));
  await subscribed(client, accountChannelOf(agent.accountId));
  return client;
}

/** Resolves with the code the realtime socket was closed with (by the server). */
function realtimeClosedCode(client: PusherJs): Promise<number> {
  return new Promise((resolve) => {
    client.connection.bind('error', (error: { data?: { code?: number } }) => {
      if (error.data?.code !== undefined) resolve(error.data.code);
    });
  });
}

const signallingClosed = (agent: AgentClient): Promise<void> =>
  agent.signal.ws.readyState === agent.signal.ws.CLOSED
    ? Promise.resolve()
    : new Promise((resolve) => agent.signal.ws.once('close', () => resolve()));

describe('the signalling gateway refuses tokens it must', () => {
  it('refuses expired, forged, unsigned, altered and login-less tokens; a valid one is let in', async () => {
    const agent = await AgentClient.login(product, AGENT, { toneHz: TONES.agent });
    const real = agent.token;
    const { exp } = decodeJwt(real);
    const [header, body, signature] = real.split('.');
    const refusals: Array<[string, string, number]> = [
      ['expired', await tokenLike(real, { exp: Math.floor(Date.now() / 1000) - 5 }), 31205],
      ['signed with another secret', await tokenLike(real, {}, 'x'.repeat(48)), 31204],
      ['unsigned (alg none)', `${base64url({ alg: 'none', typ: 'JWT' })}.${body}.`, 31204],
      [
        'another identity, the signature kept',
        `${header}.${base64url({ ...decodeJwt(real), grants: { identity: '2' } })}.${signature}`,
        31204,
      ],
      ['valid signature, no login', await tokenLike(real, { sid: undefined }), 31204],
      ['a login that is not this user’s', await tokenLike(real, { sid: 'f'.repeat(32) }), 31204],
      ['not a JWT', 'not-a-token', 31204],
    ];
    for (const [what, token, code] of refusals) {
      const answer = await listenWith(token);
      expect({ what, answer }).toMatchObject({
        what,
        answer: { type: 'error', payload: { error: { code } } },
      });
    }
    // The real token, to show the refusals are the token's doing.
    const accepted = await listenWith(real);
    expect(accepted).toMatchObject({
      type: 'connected',
      payload: { token: { identity: agent.identity } },
    });
    expect(exp).toBeGreaterThan(Date.now() / 1000);
    await agent.close();
  });
});

describe('a login that ends loses its sockets', () => {
  it('a logout closes that login’s softphone (its call ends at once) and realtime sockets; the other login keeps its own; another account cannot touch the call', async () => {
    const ending = await AgentClient.login(product, AGENT, { toneHz: TONES.agent });
    const kept = await AgentClient.login(product, AGENT, { toneHz: TONES.agent });
    const foreign = await AgentClient.login(product, FOREIGN, { toneHz: 1500 });
    const endingRealtime = await consoleRealtime(ending);
    const keptRealtime = await consoleRealtime(kept);

    // A lead rings both devices of the agent; the ending login takes it.
    const posted = await product.postLead({ fname: 'Lee', phone_number: '+15550100046' });
    expect(posted.status).toBe(201);
    const callId = posted.body.call.id;
    const invite = await ending.nextInvite();
    await ending.accept(invite);
    await waitUntil(
      async () => ((await ending.hears(TONES.lead, 0.5)) ? true : undefined),
      'the agent to hear the lead',
    );
    // Another account's softphone aims at the call: refused, the call goes on.
    foreign.signal.send('hangup', { callsid: invite.callsid });
    foreign.signal.send('answer', { callsid: invite.callsid, sdp: 'v=0' });
    const refused = await foreign.nextFrame((f) => f.type === 'error', 'an error');
    expect(refused.payload).toMatchObject({ callsid: invite.callsid, error: { code: 31404 } });
    expect(await ending.hears(TONES.lead, 0.5)).toBe(true);

    const realtimeClosed = realtimeClosedCode(endingRealtime);
    const socketClosed = signallingClosed(ending);
    const loggedOut = await ending.api('POST', '/api/v1/user/logout');
    expect(loggedOut.status).toBe(200);

    // The softphone is told, its call ends, its socket closes; the realtime socket closes 4009.
    const hangup = await ending.nextFrame((f) => f.type === 'hangup', 'a hangup', 10_000);
    expect(hangup.payload).toMatchObject({ callsid: invite.callsid, error: { code: 31204 } });
    await socketClosed;
    expect(await realtimeClosed).toBe(4009);
    const ended = await product.waitForCall(callId, (row) => row.status !== 'in-progress');
    expect(ended.status).toBe('completed');
    // Its token no longer lets anyone in.
    expect(await listenWith(ending.token)).toMatchObject({
      type: 'error',
      payload: { error: { code: 31204 } },
    });

    // The other login of the same user is untouched: registered, subscribed, let in again.
    expect(product.engine.isOnline(kept.identity)).toBe(true);
    expect(keptRealtime.connection.state).toBe('connected');
    expect(keptRealtime.channel(userChannelOf(kept.userId))?.subscribed).toBe(true);
    kept.signal.send('register', { media: { audio: true } });
    await kept.nextFrame((f) => f.type === 'ready', 'ready');
    await kept.close();
    await foreign.close();
  });

  it('a removed user loses every socket within seconds, with no logout', async () => {
    const email = 'removed.agent@example.com';
    const [demo] = await product.db
      .select({ accountId: users.accountId })
      .from(users)
      .where(eq(users.email, AGENT));
    const [created] = await product.db
      .insert(users)
      .values({
        accountId: demo!.accountId,
        email,
        passwordHash: await hashPassword(DEMO_PASSWORD),
        fullName: 'Removed Agent',
      })
      .returning({ id: users.id });
    const agent = await AgentClient.login(product, email);
    const realtime = await consoleRealtime(agent);
    const realtimeClosed = realtimeClosedCode(realtime);
    const socketClosed = signallingClosed(agent);

    // Removed by an administrator: the user row goes, and with it every login.
    await product.db.delete(users).where(eq(users.id, created!.id));
    expect(
      await product.db.select().from(sessions).where(eq(sessions.userId, created!.id)),
    ).toEqual([]);

    const error = await agent.nextFrame((f) => f.type === 'error', 'an error', 30_000);
    expect(error.payload).toMatchObject({ error: { code: 31204 } });
    await socketClosed;
    expect(await realtimeClosed).toBe(4009);
    await waitUntil(
      () => (product.engine.isOnline(agent.identity) ? undefined : true),
      'the removed user to be offline',
    );
  });
});

/** The session row's id of a login (the cookie's secret, hashed as the store keys it). */
const sessionIdOf = (login: { cookie: string }): string =>
  createHash('sha256')
    .update(login.cookie.slice(login.cookie.indexOf('=') + 1))
    .digest('hex');

/** When the login's session was last used, as the database says. */
async function lastSeenOf(login: { cookie: string }): Promise<number | undefined> {
  const [row] = await product.db
    .select({ lastSeenAt: sessions.lastSeenAt })
    .from(sessions)
    .where(eq(sessions.id, sessionIdOf(login)));
  return row?.lastSeenAt.getTime();
}

/** Writes that the login's session was last used `minutes` ago. */
async function lastUsedAgo(login: { cookie: string }, minutes: number): Promise<void> {
  await product.db
    .update(sessions)
    .set({ lastSeenAt: new Date(Date.now() - minutes * 60_000) })
    .where(eq(sessions.id, sessionIdOf(login)));
}

describe('sockets and the idle timeout (issue 36 item 3)', () => {
  it('an open console (its sockets connected) keeps its session in use; a login without sockets is not', async () => {
    const open = await AgentClient.login(product, AGENT, { toneHz: TONES.agent });
    await consoleRealtime(open);
    const httpOnly = await HttpSession.login(product.url, AGENT);
    await lastUsedAgo(open, 30);
    await lastUsedAgo(httpOnly, 30);
    const since = Date.now() - 60_000;
    await waitUntil(
      async () => ((await lastSeenOf(open))! > since ? true : undefined),
      'the open console’s session to be written as in use',
      15_000,
    );
    // The same sweep saw the other login of the user, which has nothing connected.
    expect(await lastSeenOf(httpOnly)).toBeLessThan(since);
    await open.close();
  });

  it('a session idle past its account’s timeout loses its sockets, and its token lets no socket in', async () => {
    const agent = await AgentClient.login(product, AGENT, { toneHz: TONES.agent });
    const realtime = await consoleRealtime(agent);
    const realtimeClosed = realtimeClosedCode(realtime);
    const socketClosed = signallingClosed(agent);
    // Unused for 61 minutes (SESSION_IDLE_MINUTES is 60): as if the sweeps had stopped.
    await lastUsedAgo(agent, 61);

    const error = await agent.nextFrame((f) => f.type === 'error', 'an error', 30_000);
    expect(error.payload).toMatchObject({ error: { code: 31204 } });
    await socketClosed;
    expect(await realtimeClosed).toBe(4009);
    expect(await listenWith(agent.token)).toMatchObject({
      type: 'error',
      payload: { error: { code: 31204 } },
    });
    expect((await agent.api('GET', '/api/v1/user')).status).toBe(401);
  });

  it('Log out everywhere closes the softphone and realtime sockets of every login of the user', async () => {
    const here = await AgentClient.login(product, AGENT, { toneHz: TONES.agent });
    const there = await AgentClient.login(product, AGENT, { toneHz: TONES.agent });
    const colleague = await AgentClient.login(product, 'agent2@example.com', { toneHz: 1500 });
    const hereRealtime = await consoleRealtime(here);
    const thereRealtime = await consoleRealtime(there);
    const colleagueRealtime = await consoleRealtime(colleague);
    const closed = [
      realtimeClosedCode(hereRealtime),
      realtimeClosedCode(thereRealtime),
      signallingClosed(here),
      signallingClosed(there),
    ];
    const res = await here.api('POST', '/api/v1/user/logout-everywhere');
    expect(res.status).toBe(200);
    const told = await there.nextFrame((f) => f.type === 'error', 'an error', 10_000);
    expect(told.payload).toMatchObject({ error: { code: 31204 } });
    expect(await Promise.all(closed)).toEqual([4009, 4009, undefined, undefined]);
    expect(await listenWith(there.token)).toMatchObject({
      type: 'error',
      payload: { error: { code: 31204 } },
    });
    // Another user's console is untouched.
    expect(colleagueRealtime.connection.state).toBe('connected');
    expect(product.engine.isOnline(colleague.identity)).toBe(true);
    await colleague.close();
  });
});
