/**
 * Chromium for the end-to-end specs: the system browser with fake media devices (a chosen tone
 * as the microphone), every request outside 127.0.0.1 refused and recorded.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { generateTone, writeWavFile } from '@leadline/voice/dsp';
import { auditViews } from './view-audit';
import { watchCspViolations } from './csp-violations';

/** The flags every spec launches Chromium with. */
export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--use-fake-ui-for-media-stream',
  '--use-fake-device-for-media-stream',
  '--allow-loopback-in-peer-connection',
  '--autoplay-policy=no-user-gesture-required',
];

/** Writes a WAV of a steady tone (the fake microphone) and returns its path. */
export async function toneWav(frequencyHz: number, seconds = 10): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'leadline-tone-'));
  const path = join(dir, `tone-${frequencyHz}.wav`);
  const sampleRateHz = 48_000;
  await writeWavFile(
    path,
    generateTone({ frequencyHz, sampleRateHz, dbfs: -6 }, sampleRateHz * seconds),
    sampleRateHz,
  );
  return path;
}

/**
 * Launches Chromium whose microphone plays `micWav`. `acceptSelfSigned` adds
 * `--ignore-certificate-errors`, for a product started with `TLS=self-signed`;
 * `autoplayNeedsGesture` leaves out the flag that lets pages play sound without a click;
 * `extraArgs` are more Chromium flags.
 */
export function launchChromium(
  micWav: string,
  options: {
    acceptSelfSigned?: boolean;
    autoplayNeedsGesture?: boolean;
    extraArgs?: string[];
  } = {},
): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    headless: true,
    args: [
      // `autoplayNeedsGesture`: Chromium's own policy (sound only after a click in the page).
      ...CHROMIUM_ARGS.map((arg) =>
        options.autoplayNeedsGesture && arg.startsWith('--autoplay-policy=')
          ? '--autoplay-policy=document-user-activation-required'
          : arg,
      ),
      `--use-file-for-fake-audio-capture=${micWav}`,
      ...(options.acceptSelfSigned ? ['--ignore-certificate-errors'] : []),
      ...(options.extraArgs ?? []),
    ],
  });
}

/**
 * A browser context that refuses (and records) any request to a host other than 127.0.0.1, and
 * records any WebSocket opened to another host. Every console view its pages show is checked
 * with axe-core (support/view-audit.ts), and every Content-Security-Policy violation in its pages
 * is reported (support/csp-violations.ts). `timezoneId` and `locale` set the browser's zone and
 * language (an agent far from UTC); the machine's by default.
 */
export async function loopbackOnlyContext(
  browser: Browser,
  options: { readonly timezoneId?: string; readonly locale?: string } = {},
): Promise<{ context: BrowserContext; foreignRequests: string[] }> {
  const context = await browser.newContext({
    ignoreHTTPSErrors: true,
    ...(options.timezoneId === undefined ? {} : { timezoneId: options.timezoneId }),
    ...(options.locale === undefined ? {} : { locale: options.locale }),
  });
  await auditViews(context);
  await watchCspViolations(context);
  const foreignRequests: string[] = [];
  const isLocal = (url: URL) =>
    url.protocol === 'data:' || url.protocol === 'blob:' || url.hostname === '127.0.0.1';
  await context.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    if (isLocal(url)) return route.continue();
    foreignRequests.push(url.toString());
    return route.abort('blockedbyclient');
  });
  context.on('page', (page) =>
    page.on('websocket', (ws) => {
      if (!isLocal(new URL(ws.url()))) foreignRequests.push(ws.url());
    }),
  );
  return { context, foreignRequests };
}

/**
 * Makes the page keep every remote WebRTC stream it receives, so the spec can listen to what
 * the agent hears (the app plays them on an <audio> element as usual).
 */
export async function captureRemoteAudio(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { __remoteStreams: MediaStream[] };
    w.__remoteStreams = [];
    const Original = window.RTCPeerConnection;
    class Recording extends Original {
      constructor(configuration?: RTCConfiguration) {
        super(configuration);
        this.addEventListener('track', (event) => {
          w.__remoteStreams.push(event.streams[0] ?? new MediaStream([event.track]));
        });
      }
    }
    window.RTCPeerConnection = Recording;
  });
}

/**
 * The dominant frequency (Hz) of the latest remote stream, measured with a WebAudio
 * AnalyserNode over `ms` milliseconds (spectra averaged), or null when there is no stream.
 */
export function remoteDominantFrequency(page: Page, ms = 1500): Promise<number | null> {
  return page.evaluate(async (durationMs) => {
    const streams = (window as unknown as { __remoteStreams: MediaStream[] }).__remoteStreams;
    const stream = streams.at(-1);
    if (!stream) return null;
    const context = new AudioContext();
    await context.resume();
    const source = context.createMediaStreamSource(stream);
    const analyser = context.createAnalyser();
    analyser.fftSize = 8192;
    analyser.smoothingTimeConstant = 0;
    source.connect(analyser);
    const bins = new Float32Array(analyser.frequencyBinCount);
    const sum = new Float64Array(analyser.frequencyBinCount);
    const started = performance.now();
    let frames = 0;
    while (performance.now() - started < durationMs) {
      await new Promise((r) => setTimeout(r, 100));
      analyser.getFloatFrequencyData(bins);
      for (let i = 0; i < bins.length; i++) sum[i]! += 10 ** (bins[i]! / 10);
      frames++;
    }
    source.disconnect();
    await context.close();
    const binHz = context.sampleRate / analyser.fftSize;
    let best = -1;
    let bestPower = 0;
    // 100 Hz to 4 kHz: where voices and test tones are.
    for (let i = Math.ceil(100 / binHz); i < Math.min(sum.length, 4000 / binHz); i++) {
      if (sum[i]! > bestPower) {
        bestPower = sum[i]!;
        best = i;
      }
    }
    const meanDb = 10 * Math.log10(bestPower / Math.max(1, frames));
    // Silence (nothing above -90 dB) has no dominant frequency.
    return best < 0 || meanDb < -90 ? null : best * binHz;
  }, ms);
}
