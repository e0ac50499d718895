/**
 * The DTLS handshake of a leg whose client is its DTLS server (the client offered, as the
 * bench's werift legs do), when the server answers the engine's ClientHello more than once: a
 * burst of legs makes either side slow, the engine's DTLS client retransmits its ClientHello
 * after 500 ms, and a server that answers both copies sends its HelloVerifyRequest twice.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MediaEvent } from './media-engine';
import { WeriftBrowser } from './werift-browser';
import { WorkerMediaEngine } from './worker-media-engine';

/** DTLS record content type of a handshake, and handshake type of a HelloVerifyRequest. */
const DTLS_HANDSHAKE = 22;
const HELLO_VERIFY_REQUEST = 3;
/** Bytes of a DTLS record header; the handshake type is the first byte after it. */
const DTLS_RECORD_HEADER_BYTES = 13;

/** werift's UDP transports of a peer (private in its typings). */
interface SocketInternals {
  connection: {
    protocols?: Array<{ transport?: { send: (data: Buffer, addr?: unknown) => Promise<void> } }>;
  };
}

/**
 * Makes `browser` send every HelloVerifyRequest twice, as a DTLS server does that answers a
 * ClientHello and its retransmission. Returns how many it has doubled so far.
 */
function doubleHelloVerifyRequests(browser: WeriftBrowser): () => number {
  let doubled = 0;
  for (const iceTransport of browser.peer.iceTransports as unknown as SocketInternals[]) {
    for (const protocol of iceTransport.connection.protocols ?? []) {
      const transport = protocol.transport;
      if (!transport) continue;
      const send = transport.send.bind(transport);
      transport.send = async (data, addr) => {
        await send(data, addr);
        if (data[0] === DTLS_HANDSHAKE && data[DTLS_RECORD_HEADER_BYTES] === HELLO_VERIFY_REQUEST) {
          doubled++;
          await send(data, addr);
        }
      };
    }
  }
  return () => doubled;
}

/** The first `leg.connected` or `leg.failed` of `participantId`. */
function outcome(
  engine: WorkerMediaEngine,
  participantId: string,
  timeoutMs: number,
): Promise<MediaEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      unsubscribe();
      reject(new Error(`leg ${participantId} neither connected nor failed`));
    }, timeoutMs);
    const unsubscribe = engine.subscribe((event) => {
      if (
        (event.type === 'leg.connected' || event.type === 'leg.failed') &&
        event.participantId === participantId
      ) {
        clearTimeout(timer);
        unsubscribe();
        resolve(event);
      }
    });
  });
}

describe('a leg whose DTLS server repeats its HelloVerifyRequest', () => {
  let sandboxDir: string;
  let engine: WorkerMediaEngine;
  const warnings: string[] = [];

  beforeAll(async () => {
    sandboxDir = await mkdtemp(join(tmpdir(), 'leadline-dtls-'));
    engine = new WorkerMediaEngine({
      iceAddresses: ['127.0.0.1'],
      sandboxDir,
      workers: 1,
      logger: {
        warn: (message) => warnings.push(message),
        error: (message) => warnings.push(message),
      },
    });
    await engine.start();
  }, 30_000);

  afterAll(async () => {
    await engine.close();
    await rm(sandboxDir, { recursive: true, force: true });
  });

  it('connects (the repeated request is ignored, not a handshake failure)', async () => {
    const browser = new WeriftBrowser();
    try {
      const offer = await browser.createOffer();
      const doubled = doubleHelloVerifyRequests(browser);
      const result = outcome(engine, 'agent', 20_000);
      await browser.acceptAnswer(await engine.createAnswerLeg('room', 'agent', offer));
      expect(await result).toMatchObject({ type: 'leg.connected', participantId: 'agent' });
      await browser.connected();
      expect(browser.peer.connectionState).toBe('connected');
      expect(doubled()).toBeGreaterThanOrEqual(1);
      expect(warnings).toEqual([]);
    } finally {
      engine.remove('agent');
      await browser.close();
    }
  }, 30_000);
});
