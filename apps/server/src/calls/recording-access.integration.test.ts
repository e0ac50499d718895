/**
 * Recordings (issue 36 item 6): an agent plays only the recordings of calls they took part in
 * (the call's agent, or a user who joined it); a supervisor plays the account's; a user rung who
 * did not answer, or who was never on the call, is refused with 403 and its sentence, and their
 * history links no recording. Only a file under the recordings folder (`DATA_DIR/recordings`)
 * is ever sent: a path elsewhere, `..` out of it, a link out of it, a folder, and the rest of the
 * data folder (its secrets, TLS key and PGlite files) are 'Recording not found.'; with the
 * provider's recordings (Twilio) a local file is never sent, even one under the data folder.
 */
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixture, type Fixture } from '../test-support/fixture';
import { login, startTestApp, type TestApp } from '../test-support/test-app';
import { findUserById } from '../users/users-repo';
import { RECORDING_NOT_YOURS } from './recording-access';

let f: Fixture;
beforeAll(async () => {
  f = await startFixture();
});
afterAll(() => f.t.close());

const play = (agent: Fixture['agent1'], callId: number) =>
  f.t.app.inject({
    method: 'GET',
    url: `/api/v1/calls/${callId}/recording`,
    headers: f.auth(agent, false),
  });

const historyUrl = async (agent: Fixture['agent1'], callId: number) => {
  const res = await f.t.app.inject({
    method: 'GET',
    url: '/api/v1/mycalls?limit=5&page=1',
    headers: f.auth(agent, false),
  });
  const rows = res.json<{ data: Array<{ id: number; recording_url: string | null }> }>().data;
  return rows.find((row) => row.id === callId);
};

/** A recorded call of agent 1 to which agent 2 was rung for a conference; `joined`: answered. */
async function conferenceCall(joined: boolean) {
  const { call } = await f.liveCall(f.agent1);
  const asked = await f.t.app.inject({
    method: 'POST',
    url: '/api/v1/calls/conference',
    headers: f.auth(f.agent1),
    payload: { user_id: f.agent2.userId },
  });
  expect(asked.json()).toEqual({ success: true });
  if (joined) {
    f.t.telephony.emit({
      type: 'agent.answered',
      callSid: call.sid,
      identity: String(f.agent2.userId),
    });
    await f.t.flows.idle();
  }
  await f.endCall(call);
  const wav = await f.recordCall(call);
  return { call, wav };
}

describe('who plays a recording', () => {
  it('the call’s agent and a supervisor do; an agent rung who did not answer, and one never on the call, get 403 and no link', async () => {
    const { call, wav } = await conferenceCall(false);
    const own = await play(f.agent1, call.id);
    expect(own.statusCode).toBe(200);
    expect(own.rawPayload.equals(wav)).toBe(true);
    expect((await historyUrl(f.agent1, call.id))?.recording_url).toBe(
      `/api/v1/calls/${call.id}/recording`,
    );
    expect((await play(f.supervisor, call.id)).statusCode).toBe(200);
    for (const agent of [f.agent2, f.basic]) {
      const refused = await play(agent, call.id);
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toEqual({ success: false, error: RECORDING_NOT_YOURS });
    }
    expect(RECORDING_NOT_YOURS).toBe('You can play only the recordings of calls you took part in.');
    // Agent 2 was rung: the call is in their history, without a recording to play.
    expect(await historyUrl(f.agent2, call.id)).toMatchObject({ recording_url: null });
  });

  it('an agent who joined the call does', async () => {
    const { call, wav } = await conferenceCall(true);
    const joined = await play(f.agent2, call.id);
    expect(joined.statusCode).toBe(200);
    expect(joined.rawPayload.equals(wav)).toBe(true);
    expect((await historyUrl(f.agent2, call.id))?.recording_url).toBe(
      `/api/v1/calls/${call.id}/recording`,
    );
  });

  it('another account’s user gets 404, as for any call not of their account', async () => {
    const { call } = await conferenceCall(false);
    expect((await play(f.agentB, call.id)).statusCode).toBe(404);
  });
});

describe('which files are sent', () => {
  /** A call of agent 1 whose recording the engine reported at `path`. */
  async function recordedAt(path: string) {
    const { call } = await f.liveCall(f.agent1);
    await f.endCall(call);
    f.t.telephony.emit({ type: 'recording.ready', callSid: call.sid, path, seconds: 1 });
    await f.t.flows.idle();
    return call;
  }

  it('anything not a file under the recordings folder is not found, for a supervisor too', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'leadline-elsewhere-'));
    const outside = join(elsewhere, 'secret.wav');
    writeFileSync(outside, 'RIFF not a recording of this product');
    // A recording of the product, to climb out of.
    const { call: recorded } = await f.liveCall(f.agent1);
    await f.endCall(recorded);
    const inside = await f.recordCall(recorded);
    expect(inside.length).toBeGreaterThan(44);
    const recordings = f.t.recordingsRoot!;
    const link = join(recordings, 'link.wav');
    symlinkSync(outside, link);
    const folder = join(recordings, 'a-folder.wav');
    mkdirSync(folder);
    for (const path of [
      outside,
      '/etc/passwd',
      join(recordings, '..', '..', 'x', '..', '..', 'etc', 'passwd'),
      `${recordings}/../../${elsewhere.split('/').pop()}/secret.wav`,
      link,
      folder,
      join(recordings, 'missing.wav'),
    ]) {
      const call = await recordedAt(path);
      for (const agent of [f.agent1, f.supervisor]) {
        const res = await play(agent, call.id);
        expect(res.statusCode, path).toBe(404);
        expect(res.json(), path).toEqual({ error: 'Recording not found.' });
      }
    }
  });

  it('the rest of the data folder (secrets, TLS key, database files) is never sent; a real recording is', async () => {
    const { dataDir } = f;
    expect(f.t.recordingsRoot).toBe(join(dataDir, 'recordings'));
    // What an embedded product keeps beside its recordings.
    const secrets = {
      'token-secret': 'the token secret',
      'pusher-secret': 'the pusher secret',
      'tls/key.pem': '-----BEGIN PRIVATE KEY-----',
      'pglite/PG_VERSION': '17',
    };
    for (const [name, content] of Object.entries(secrets)) {
      mkdirSync(dirname(join(dataDir, name)), { recursive: true });
      writeFileSync(join(dataDir, name), content);
    }
    const { call: recorded } = await f.liveCall(f.agent1);
    await f.endCall(recorded);
    const wav = await f.recordCall(recorded);
    const link = join(f.t.recordingsRoot!, 'token-link.wav');
    symlinkSync(join(dataDir, 'token-secret'), link);
    for (const path of [
      // Relative paths are taken from the recordings folder.
      '../token-secret',
      '../tls/key.pem',
      '../pglite/PG_VERSION',
      ...Object.keys(secrets).map((name) => join(dataDir, name)),
      join(f.t.recordingsRoot!, '..', 'pusher-secret'),
      link,
    ]) {
      const call = await recordedAt(path);
      for (const agent of [f.agent1, f.supervisor]) {
        const res = await play(agent, call.id);
        expect(res.statusCode, path).toBe(404);
        expect(res.json(), path).toEqual({ error: 'Recording not found.' });
      }
    }
    // The engine's recording beside them plays, by its absolute path as the engine reports it
    // and as a path relative to the folder.
    const played = await play(f.agent1, recorded.id);
    expect(played.statusCode).toBe(200);
    expect(played.rawPayload.equals(wav)).toBe(true);
    const relative = await recordedAt(`${recorded.sid}.wav`);
    const again = await play(f.supervisor, relative.id);
    expect(again.statusCode).toBe(200);
    expect(again.rawPayload.equals(wav)).toBe(true);
  });
});

describe('with the provider’s recordings (Twilio)', () => {
  let t: TestApp;
  let fetched: string[];
  beforeAll(async () => {
    fetched = [];
    const dataDir = mkdtempSync(join(tmpdir(), 'leadline-twilio-'));
    t = await startTestApp({
      recordingsRoot: dataDir,
      recordings: {
        owns: (url) => url.startsWith('https://api.twilio.com/'),
        fetch: (url) => {
          fetched.push(url);
          return Promise.resolve(new Response('RIFF', { status: 200 }));
        },
      },
    });
  });
  afterAll(() => t.close());

  it('never sends a local file, even under the data folder', async () => {
    // A supervisor: may play every recording of the account, so only the file decides.
    const agent = await login(t.app, 'supervisor@example.com');
    const user = (await findUserById(t.database.db, agent.userId))!;
    const { call } = await t.flows.retry(user, {
      fname: 'Lee',
      lname: 'Lead',
      phone_number: '+15550109001',
    });
    const local = join(t.recordingsRoot!, 'call.wav');
    writeFileSync(local, 'RIFF a local file');
    t.telephony.emit({ type: 'recording.ready', callSid: call.sid, path: local, seconds: 1 });
    await t.flows.idle();
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/calls/${call.id}/recording`,
      headers: { cookie: agent.cookie },
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ error: 'Recording not found.' });
    expect(fetched).toEqual([]);
  });
});
