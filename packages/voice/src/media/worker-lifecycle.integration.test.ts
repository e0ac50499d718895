import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_NUMBERS } from '../constants';
import type { MediaEvent } from './media-engine';
import { defaultMediaWorkerUrl } from './media-worker-url';
import { WeriftBrowser } from './werift-browser';
import { WorkerMediaEngine } from './worker-media-engine';

function waitFor(
  events: MediaEvent[],
  test: (event: MediaEvent) => boolean,
  timeoutMs = 20_000,
): Promise<MediaEvent> {
  const until = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = (): void => {
      const found = events.find(test);
      if (found) resolve(found);
      else if (Date.now() > until)
        reject(new Error(`event not seen; got ${JSON.stringify(events)}`));
      else setTimeout(poll, 20);
    };
    poll();
  });
}

describe('media worker lifecycle', () => {
  let sandboxDir: string;

  beforeAll(async () => {
    sandboxDir = await mkdtemp(join(tmpdir(), 'leadline-lifecycle-'));
  });

  afterAll(async () => {
    await rm(sandboxDir, { recursive: true, force: true });
  });

  it('a worker that crashes rejects the request under way, ends its participants and rejects later commands', async () => {
    const errors: string[] = [];
    const events: MediaEvent[] = [];
    const engine = new WorkerMediaEngine({
      iceAddresses: ['127.0.0.1'],
      sandboxDir,
      answerDelayMs: 50,
      // One thread, so the crash takes the agent's room with it.
      workers: 1,
      workerUrl: new URL('../testing/crash-test-worker.ts', import.meta.url),
      logger: { warn: () => undefined, error: (message) => errors.push(message) },
    });
    engine.subscribe((event) => events.push(event));
    await engine.start();
    const browser = new WeriftBrowser();
    try {
      await engine.acceptAnswer(
        'agent',
        await browser.answer(await engine.createOfferLeg('room', 'agent')),
      );
      await waitFor(events, (event) => event.type === 'leg.connected');
      // The no-answer number rings for 30 s: still ringing when the worker crashes, however busy
      // the machine (a test lead would answer 50 ms after it rang).
      engine.dial('room', 'ringing-party', SANDBOX_NUMBERS.noAnswer);
      await waitFor(events, (event) => event.type === 'party.ringing');

      await expect(engine.createOfferLeg('crash-room', 'victim')).rejects.toMatchObject({
        name: 'WorkerCrashed',
        code: 53_003,
      });
      expect(engine.state).toBe('failed');
      expect(events).toContainEqual(
        expect.objectContaining({ type: 'leg.failed', participantId: 'agent', roomId: 'room' }),
      );
      expect(events).toContainEqual({
        type: 'party.unanswered',
        participantId: 'ringing-party',
        roomId: 'room',
        reason: 'failed',
      });
      expect(errors.join('\n')).toMatch(/WorkerCrashed \(53003\).*simulated media worker crash/);
      await expect(engine.createAnswerLeg('room', 'late', 'v=0')).rejects.toMatchObject({
        name: 'EngineNotRunning',
      });
      expect(() => engine.remove('agent')).not.toThrow();
    } finally {
      await browser.close();
      await engine.close();
    }
    expect(engine.state).toBe('closed');
  }, 60_000);

  it('a worker that cannot start rejects start()', async () => {
    const engine = new WorkerMediaEngine({
      iceAddresses: ['127.0.0.1'],
      sandboxDir,
      workerUrl: new URL('./no-such-worker.ts', import.meta.url),
      logger: { warn: () => undefined, error: () => undefined },
    });
    await expect(engine.start()).rejects.toMatchObject({ name: 'WorkerStartFailed' });
    await expect(engine.createOfferLeg('room', 'p')).rejects.toMatchObject({
      name: 'EngineNotRunning',
    });
    await engine.close();
    expect(engine.state).toBe('closed');
  }, 30_000);

  it('runs from an esbuild bundle: media-worker.js beside main.js, as the server builds it', async () => {
    // Inside the repository so the bundle's external npm imports resolve from node_modules.
    const cacheDir = fileURLToPath(new URL('../../../../node_modules/.cache/', import.meta.url));
    await mkdir(cacheDir, { recursive: true });
    const outdir = await mkdtemp(join(cacheDir, 'leadline-media-bundle-'));
    const externalNpmPackages: Plugin = {
      name: 'external-npm-packages',
      setup(b) {
        // As apps/server/build.mjs: workspace packages are compiled in, npm packages stay out.
        b.onResolve({ filter: /^[^./]/ }, (args) =>
          args.path.startsWith('node:') || args.path.startsWith('@leadline/')
            ? undefined
            : { path: args.path, external: true },
        );
      },
    };
    try {
      await build({
        entryPoints: {
          'media-worker': fileURLToPath(new URL('./media-worker.ts', import.meta.url)),
        },
        outdir,
        bundle: true,
        platform: 'node',
        target: 'node20',
        format: 'esm',
        plugins: [externalNpmPackages],
        logLevel: 'silent',
      });
      const workerUrl = defaultMediaWorkerUrl(pathToFileURL(join(outdir, 'main.js')).href);
      expect(workerUrl.href).toBe(pathToFileURL(join(outdir, 'media-worker.js')).href);

      const events: MediaEvent[] = [];
      const engine = new WorkerMediaEngine({
        iceAddresses: ['127.0.0.1'],
        sandboxDir,
        answerDelayMs: 50,
        workerUrl,
      });
      engine.subscribe((event) => events.push(event));
      await engine.start();
      try {
        engine.dial('bundle-room', 'bundle-party', '+15550100042');
        await waitFor(events, (event) => event.type === 'party.answered');
        engine.closeRoom('bundle-room');
        await waitFor(events, (event) => event.type === 'party.recorded');
      } finally {
        await engine.close();
      }
    } finally {
      await rm(outdir, { recursive: true, force: true });
    }
  }, 60_000);
});
