/**
 * The embedded voice engine in this process, with no database and no server: a `VoiceEngine`
 * over a `WorkerMediaEngine` (real werift legs, the sandbox phone network, recorders) behind an
 * HTTP server on 127.0.0.1 that serves a blank page, our SDK bundled for the browser
 * (`/softphone.js`, global `Softphone`) and the signalling socket (`/signal`).
 *
 * Browser tests of the SDK and of the engine drive calls through the engine's own room-control
 * interface (`ringAgent`, `dial`, `setRole`, `hold`, `hangup`, …) and listen to what each party
 * hears. Tokens: the token is the identity, optionally followed by `;ttl=<seconds>` for a
 * short-lived token and `;expired` or `;invalid` for the gateway's refusals.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { generate as generateCertificate } from 'selfsigned';
import { encodeWav } from '@leadline/voice/dsp';
import type { Page } from 'playwright-core';
import {
  VoiceEngine,
  WorkerMediaEngine,
  type OutgoingCallDecision,
  type TelephonyEvent,
} from '@leadline/voice';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The SDKs a harness page can run: ours, or the official `@twilio/voice-sdk`. */
export type HarnessSdk = 'leadline' | 'twilio';

/** Options of the harness. */
export interface EngineHarnessOptions {
  /**
   * Serve HTTPS and WSS with a self-signed certificate (Chromium needs
   * `--ignore-certificate-errors`). The official SDK speaks only `wss://`.
   */
  tls?: boolean;
  /** How long sandbox numbers ring before answering (default 300 ms). */
  answerDelayMs?: number;
  /** How long a live call waits for a dropped socket (default 30 s). */
  reconnectGraceMs?: number;
  /** Outgoing calls: the call sid and number to dial from the connect params (default: `To`). */
  authorizeOutgoing?: (
    identity: string,
    params: Record<string, string>,
  ) => Promise<OutgoingCallDecision>;
}

/** A running engine with its page server. */
export interface EngineHarness {
  engine: VoiceEngine;
  /** Every event the engine reported, in order, with the time it was seen (ms since epoch). */
  events: Array<TelephonyEvent & { at: number }>;
  /** `http://127.0.0.1:<port>`: the blank page that loads the SDK. */
  url: string;
  /** `127.0.0.1:<port>`: the Device's `chunderw`. */
  host: string;
  dataDir: string;
  /** Waits for the first event (from `since`, an index into `events`) matching `match`. */
  waitFor<T extends TelephonyEvent['type']>(
    type: T,
    match?: (event: Extract<TelephonyEvent, { type: T }>) => boolean,
    timeoutMs?: number,
    since?: number,
  ): Promise<Extract<TelephonyEvent, { type: T }> & { at: number }>;
  /**
   * Cuts every open signalling socket at the TCP level, as a network failure would (no close
   * frame); returns how many were cut. Clients see the socket drop and reconnect.
   */
  dropSignalling(): number;
  close(): Promise<void>;
}

let sdkBundle: Promise<string> | undefined;

/** Our SDK as one browser script defining `window.Softphone` (built once per process). */
export function softphoneBundle(): Promise<string> {
  sdkBundle ??= build({
    entryPoints: [join(repoRoot, 'packages/softphone/src/index.ts')],
    bundle: true,
    format: 'iife',
    globalName: 'Softphone',
    platform: 'browser',
    target: 'chrome120',
    write: false,
    logLevel: 'silent',
  }).then((result) => result.outputFiles[0]!.text);
  return sdkBundle;
}

let twilioBundle: Promise<string> | undefined;

/** The official Voice SDK as one browser script defining `window.Twilio` (built once). */
export function twilioSdkBundle(): Promise<string> {
  twilioBundle ??= build({
    entryPoints: [fileURLToPath(import.meta.resolve('@twilio/voice-sdk'))],
    bundle: true,
    format: 'iife',
    globalName: 'Twilio',
    platform: 'browser',
    target: 'chrome120',
    write: false,
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
  }).then((result) => result.outputFiles[0]!.text);
  return twilioBundle;
}

/** The sound names both SDKs know; the harness serves each as 50 ms of silence. */
const SOUND_NAMES = [
  'incoming',
  'outgoing',
  'disconnect',
  ...'0123456789'.split('').map((d) => `dtmf${d}`),
  'dtmfs',
  'dtmfh',
];
const SILENCE_WAV = encodeWav(new Int16Array(400), 8000);

/** The harness's sound URLs, so neither SDK fetches its sounds from a CDN. */
export const HARNESS_SOUNDS: Record<string, string> = Object.fromEntries(
  SOUND_NAMES.map((name) => [name, `/sounds/${name}.wav`]),
);

function parseToken(token: string): { identity: string; flags: Map<string, string> } {
  const [identity = '', ...rest] = token.split(';');
  return { identity, flags: new Map(rest.map((flag) => flag.split('=') as [string, string])) };
}

let outgoingCount = 0;

/** Starts the engine and its page server on a free loopback port. */
export async function startEngineHarness(
  options: EngineHarnessOptions = {},
): Promise<EngineHarness> {
  const dataDir = mkdtempSync(join(tmpdir(), 'leadline-engine-'));
  const engine = new VoiceEngine({
    media: new WorkerMediaEngine({
      iceAddresses: ['127.0.0.1'],
      sandboxDir: join(dataDir, 'sandbox'),
      recordingsDir: join(dataDir, 'recordings'),
      answerDelayMs: options.answerDelayMs ?? 300,
    }),
    verifyToken: (token) => {
      const { identity, flags } = parseToken(token);
      if (!identity || flags.has('invalid'))
        return Promise.resolve({ ok: false, reason: 'invalid' });
      if (flags.has('expired')) return Promise.resolve({ ok: false, reason: 'expired' });
      const ttlSeconds = Number(flags.get('ttl') ?? 3600);
      return Promise.resolve({ ok: true, identity, expiresAt: Date.now() / 1000 + ttlSeconds });
    },
    authorizeOutgoing:
      options.authorizeOutgoing ??
      ((_identity, params) =>
        Promise.resolve(
          params.To
            ? { callSid: `CAout${++outgoingCount}${Date.now()}`, dial: params.To }
            : { error: { code: 31404, message: 'No number to call.' } },
        )),
    ...(options.reconnectGraceMs === undefined
      ? {}
      : { reconnectGraceMs: options.reconnectGraceMs }),
  });
  const events: EngineHarness['events'] = [];
  const waiters = new Set<() => void>();
  engine.subscribe((event) => {
    events.push({ ...event, at: Date.now() });
    for (const wake of waiters) wake();
  });
  await engine.start();

  const scripts: Record<string, string> = {
    '/softphone.js': await softphoneBundle(),
    ...(options.tls ? { '/twilio.js': await twilioSdkBundle() } : {}),
  };
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    const script = scripts[request.url ?? ''];
    if (script !== undefined) {
      response.writeHead(200, { 'content-type': 'text/javascript' });
      response.end(script);
      return;
    }
    if (request.url?.startsWith('/sounds/')) {
      response.writeHead(200, { 'content-type': 'audio/wav' });
      response.end(SILENCE_WAV);
      return;
    }
    if (request.url === '/favicon.ico') {
      response.writeHead(204).end();
      return;
    }
    // `/`: our SDK; `/twilio.html`: the official one.
    const sdkScript = request.url === '/twilio.html' ? '/twilio.js' : '/softphone.js';
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(`<!doctype html><title>softphone</title><script src="${sdkScript}"></script>`);
  };
  let tls: { cert: string; key: string } | null = null;
  if (options.tls) {
    const pems = await generateCertificate([{ name: 'commonName', value: '127.0.0.1' }], {
      keyType: 'ec',
      curve: 'P-256',
      algorithm: 'sha256',
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
    });
    tls = { cert: pems.cert, key: pems.private };
  }
  const server: Server = tls ? createHttpsServer(tls, handler) : createHttpServer(handler);
  const signalSockets = new Set<Duplex>();
  server.on('upgrade', (request, socket, head) => {
    signalSockets.add(socket);
    socket.once('close', () => signalSockets.delete(socket));
    engine.handleUpgrade(request, socket, head);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  const harness: EngineHarness = {
    engine,
    events,
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    dataDir,
    waitFor(type, match = () => true, timeoutMs = 15_000, since = 0) {
      type Found = Extract<TelephonyEvent, { type: typeof type }> & { at: number };
      const find = (): Found | undefined =>
        events.slice(since).find((e): e is Found => e.type === type && match(e as never));
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = find();
          if (!found) return;
          cleanup();
          resolve(found);
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(
            new Error(
              `no ${type} event in ${timeoutMs} ms; saw: ${events.map((e) => e.type).join(', ')}`,
            ),
          );
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    dropSignalling() {
      const open = [...signalSockets];
      for (const socket of open) socket.destroy();
      signalSockets.clear();
      return open.length;
    },
    async close() {
      await engine.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return harness;
}

/**
 * Opens the harness page in `page`, creates `window.device` (a Device of `sdk`, our SDK by
 * default, for `token`, gateway `host`) and registers it; resolves once it is registered.
 * Incoming calls are kept in `window.calls` (newest last), device errors in
 * `window.deviceErrors`. The official SDK gets what it needs
 * against the embedded engine: `chunderw`, no insights upload, the harness's sounds, PCMU first
 * and `maxCallSignalingTimeoutMs` for signalling reconnects (the harness must serve TLS).
 */
export async function openSoftphone(
  page: Page,
  harness: Pick<EngineHarness, 'url' | 'host'>,
  token: string,
  deviceOptions: Record<string, unknown> = {},
  sdk: HarnessSdk = 'leadline',
): Promise<void> {
  await page.goto(sdk === 'twilio' ? `${harness.url}/twilio.html` : harness.url);
  const sdkOptions =
    sdk === 'twilio'
      ? {
          publishEvents: false,
          sounds: HARNESS_SOUNDS,
          maxCallSignalingTimeoutMs: 30_000,
          codecPreferences: ['pcmu', 'opus'],
          logLevel: 'error',
        }
      : {};
  await page.evaluate(
    async ({ token, host, deviceOptions, global }) => {
      const w = window as unknown as Record<string, unknown>;
      const sdkModule = w[global] as { Device: new (token: string, options: object) => unknown };
      const device = new sdkModule.Device(token, { chunderw: host, ...deviceOptions }) as {
        on(event: string, listener: (...args: unknown[]) => void): void;
        register(): Promise<void>;
      };
      const calls: unknown[] = [];
      const deviceErrors: string[] = [];
      w.device = device;
      w.calls = calls;
      w.deviceErrors = deviceErrors;
      device.on('incoming', (call) => calls.push(call));
      // Like any application: the official SDK's emitter throws on an 'error' nobody listens
      // to, which would cut its socket-close handling short (no reconnect until a heartbeat
      // timeout).
      device.on('error', (error) => deviceErrors.push(String(error)));
      await device.register();
    },
    {
      token,
      host: harness.host,
      deviceOptions: { ...sdkOptions, ...deviceOptions },
      global: sdk === 'twilio' ? 'Twilio' : 'Softphone',
    },
  );
}
