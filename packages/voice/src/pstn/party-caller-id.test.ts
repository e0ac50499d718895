/**
 * Caller IDs through the media core (fake clock): a dialled number keeps the caller ID it was
 * dialled from and writes it in its sandbox record (`from`), answered or not; an inbound caller's
 * `from` is its own number.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SANDBOX_NUMBERS } from '../constants';
import { FakeClock } from '../testing/fake-clock';
import { MediaCore } from '../media/media-core';
import { defaultAssetsDir } from './clips';
import type { PartyRecord } from './virtual-party';

describe('caller IDs of virtual parties (media core, fake clock)', () => {
  let dir: string;
  let clock: FakeClock;
  let core: MediaCore;

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'leadline-caller-id-'));
    clock = new FakeClock();
    core = new MediaCore({
      iceAddresses: ['127.0.0.1'],
      sandboxDir: dir,
      recordingsDir: join(dir, 'recordings'),
      assetsDir: defaultAssetsDir(),
      answerDelayMs: 1000,
      emit: () => undefined,
      warn: (message) => {
        throw new Error(message);
      },
      clock,
      scheduler: clock,
    });
    await core.start();
  });

  afterEach(async () => {
    await core.shutdown();
    await rm(dir, { recursive: true, force: true });
  });

  const record = async (participantId: string): Promise<PartyRecord> =>
    JSON.parse(await readFile(join(dir, `${participantId}.json`), 'utf8')) as PartyRecord;

  it('a dialled number records the caller ID it was dialled from, or null without one', async () => {
    core.dial('room', 'with-id', '+15550100042', { from: '+15550142000' });
    core.dial('room', 'without-id', '+15550100043');
    core.dial('room', 'busy', SANDBOX_NUMBERS.busy, { from: '+15550142010' });
    clock.advance(2000);
    core.closeRoom('room');
    await core.settled();
    expect(await record('with-id')).toMatchObject({
      direction: 'outbound',
      number: '+15550100042',
      from: '+15550142000',
      outcome: 'answered',
    });
    expect(await record('without-id')).toMatchObject({ number: '+15550100043', from: null });
    expect(await record('busy')).toMatchObject({
      number: SANDBOX_NUMBERS.busy,
      from: '+15550142010',
      outcome: 'unanswered',
      failure: 'busy',
    });
  });

  it('an inbound caller comes from its own number', async () => {
    core.addCaller('room', 'caller', '+15550100777', '+15550142000');
    clock.advance(500);
    core.remove('caller');
    await core.settled();
    expect(await record('caller')).toMatchObject({
      direction: 'inbound',
      number: '+15550100777',
      from: '+15550100777',
      to: '+15550142000',
    });
  });
});
