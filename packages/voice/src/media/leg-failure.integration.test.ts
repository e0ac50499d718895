import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaEvent } from './media-engine';
import { WeriftBrowser } from './werift-browser';
import { WorkerMediaEngine } from './worker-media-engine';

function waitFor(
  events: MediaEvent[],
  test: (event: MediaEvent) => boolean,
  timeoutMs: number,
): Promise<MediaEvent> {
  const until = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = (): void => {
      const found = events.find(test);
      if (found) resolve(found);
      else if (Date.now() > until)
        reject(new Error(`event not seen; got ${JSON.stringify(events)}`));
      else setTimeout(poll, 50);
    };
    poll();
  });
}

// Its own file because it is slow: werift sends no DTLS close_notify when it closes (Chrome
// does, and the leg then fails at once), so the engine notices this client is gone only when ICE
// consent expires (RFC 7675: 30 s without consent responses).
describe('a WebRTC leg whose client disappears', () => {
  let sandboxDir: string;
  let engine: WorkerMediaEngine;
  const events: MediaEvent[] = [];

  beforeAll(async () => {
    sandboxDir = await mkdtemp(join(tmpdir(), 'leadline-leg-failure-'));
    engine = new WorkerMediaEngine({ iceAddresses: ['127.0.0.1'], sandboxDir });
    engine.subscribe((event) => events.push(event));
    await engine.start();
  }, 30_000);

  afterAll(async () => {
    await engine.close();
    await rm(sandboxDir, { recursive: true, force: true });
  });

  it('fails with leg.failed and leaves its room', async () => {
    const browser = new WeriftBrowser();
    const answer = await browser.answer(await engine.createOfferLeg('room', 'agent'));
    await engine.acceptAnswer('agent', answer);
    await waitFor(events, (event) => event.type === 'leg.connected', 20_000);
    await browser.close();
    const failed = await waitFor(events, (event) => event.type === 'leg.failed', 60_000);
    expect(failed).toMatchObject({ participantId: 'agent', roomId: 'room' });
    expect(failed.type === 'leg.failed' && failed.reason).toBe('ICE or DTLS failed');
    // It has left: removing it again is a no-op and no second failure follows.
    engine.remove('agent');
    expect(events.filter((event) => event.type === 'leg.failed')).toHaveLength(1);
  }, 90_000);
});
