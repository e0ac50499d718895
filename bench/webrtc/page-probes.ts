/**
 * Page-side probes shared by the WebRTC benchmarks (call-setup-floor.ts, mouth-to-ear.ts), so
 * that ours and the floor are measured by the very same code:
 *
 * - `installProbes(page)`: an init script that wraps `RTCPeerConnection` and
 *   `getUserMedia` in every page. Each remote audio track (and, with `mic`, each microphone
 *   track) is fed through an AudioWorklet that finds onsets: the first sample above −40 dBFS
 *   (|x| > 0.01) after at least `gapMs` below it (a track's first audio is its first onset).
 *   Each peer connection's phases are timestamped (created, offer/answer, descriptions set, ICE
 *   and DTLS connected, the first RTP packet received, from `getStats` polled every 5 ms), and
 *   so is every click, by a capture-phase listener on the document, and every PStream
 *   `invite` the page's sockets receive (a ring, before the SDK sees it). The page's peer
 *   connections are kept in `window.__probePcs` (for `getStats` at the end).
 * - `startStaticServer()`: a plain loopback HTTP server with the floor's pages.
 *
 * Clock: every time is epoch milliseconds in the page's clock, `performance.timeOrigin +
 * performance.now()`, which pages of one browser share. An onset is found in audio time (the
 * worklet's `currentTime` plus the sample's offset in its 128-sample block, so 1/48 ms
 * resolution); audio time is mapped to the page's clock by the smallest (message received −
 * block time) seen over the last second, from a silent clock node that posts every block. That
 * mapping is late by at most one audio callback (≈10 ms) and by the same amount on both sides of
 * a comparison, which therefore cancels.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';

/** What the probes saw in a page (times: epoch ms in the page's clock). */
export interface ProbeRecord {
  clicks: number[];
  /**
   * When each PStream `invite` (a call ringing the page's softphone) reached the page: the
   * WebSocket message event's own time, before any handler (the SDK's) ran.
   */
  invites: number[];
  gum: Array<{ start: number; end?: number }>;
  pcs: Array<{ id: number; phases: Record<string, number> }>;
  onsets: Array<{ kind: 'remote' | 'mic'; pc: number; track: string; t: number }>;
}

/** Probe options. */
export interface ProbeOptions {
  /** Also find onsets on the page's own microphone tracks. */
  mic?: boolean;
  /** Silence (ms) needed before an onset counts. */
  gapMs?: number;
}

/** Installs the probes in `page` (before its documents load). */
export async function installProbes(page: Page, options: ProbeOptions = {}): Promise<void> {
  // tsx keeps function names with a `__name` helper that page functions then lack.
  await page.addInitScript('window.__name = (f) => f;');
  await page.addInitScript(probeScript, {
    mic: options.mic ?? false,
    gapMs: options.gapMs ?? 300,
    threshold: 0.01,
  });
}

/** The probes' record of `page`. */
export function probeRecord(page: Page): Promise<ProbeRecord> {
  return page.evaluate(() => (window as unknown as { __probe: ProbeRecord }).__probe);
}

/** Runs in the page, at document start. */
function probeScript(config: { mic: boolean; gapMs: number; threshold: number }): void {
  const now = () => performance.timeOrigin + performance.now();
  const probe: ProbeRecord = { clicks: [], invites: [], gum: [], pcs: [], onsets: [] };
  (window as unknown as { __probe: ProbeRecord }).__probe = probe;
  document.addEventListener('click', () => probe.clicks.push(now()), true);
  // Every socket's messages are seen first (this listener is added before the page's own): a
  // ring's time is its message event's timeStamp, on the same clock as `now()`.
  const OriginalSocket = window.WebSocket;
  window.WebSocket = class extends OriginalSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols);
      this.addEventListener('message', (event: MessageEvent) => {
        if (typeof event.data === 'string' && event.data.includes('"type":"invite"'))
          probe.invites.push(performance.timeOrigin + event.timeStamp);
      });
    }
  };

  const worklet = `
    class ProbeOnsets extends AudioWorkletProcessor {
      constructor(options) {
        super();
        this.threshold = options.processorOptions.threshold;
        this.gap = Math.round((options.processorOptions.gapMs / 1000) * sampleRate);
        this.quiet = this.gap;
      }
      process(inputs) {
        const channel = inputs[0] && inputs[0][0];
        let onset = -1;
        if (channel) {
          for (let i = 0; i < channel.length; i++) {
            if (Math.abs(channel[i]) < this.threshold) this.quiet++;
            else {
              if (this.quiet >= this.gap && onset < 0) onset = i;
              this.quiet = 0;
            }
          }
        } else this.quiet += 128;
        this.port.postMessage(onset >= 0 ? [currentTime, onset / sampleRate] : [currentTime]);
        return true;
      }
    }
    registerProcessor('probe-onsets', ProbeOnsets);`;
  const context = new AudioContext({ latencyHint: 'interactive' });
  const sink = context.createGain();
  sink.gain.value = 0;
  sink.connect(context.destination);
  /** The last second of (message received − block time), ms: the clock mapping. */
  const offsets: number[] = [];
  const toPageClock = (audioSeconds: number) => audioSeconds * 1000 + Math.min(...offsets);
  const ready = context.audioWorklet
    .addModule(URL.createObjectURL(new Blob([worklet], { type: 'text/javascript' })))
    .then(() => {
      // The clock: a silent source through a worklet posting every block.
      const clock = new AudioWorkletNode(context, 'probe-onsets', {
        processorOptions: { threshold: 2, gapMs: 0 },
      });
      clock.port.onmessage = (e: MessageEvent<number[]>) => {
        offsets.push(now() - e.data[0]! * 1000);
        if (offsets.length > 375) offsets.shift();
      };
      const silence = context.createConstantSource();
      silence.offset.value = 0;
      silence.connect(clock).connect(sink);
      silence.start();
      void context.resume();
    });

  const watched: Array<{ track: MediaStreamTrack; node: AudioNode; source: AudioNode }> = [];
  const watch = (track: MediaStreamTrack, kind: 'remote' | 'mic', pc: number) => {
    void ready.then(() => {
      if (track.readyState === 'ended') return;
      const source = context.createMediaStreamSource(new MediaStream([track]));
      const node = new AudioWorkletNode(context, 'probe-onsets', {
        processorOptions: { threshold: config.threshold, gapMs: config.gapMs },
      });
      node.port.onmessage = (e: MessageEvent<number[]>) => {
        const [blockTime, within] = e.data;
        if (within !== undefined && offsets.length > 0)
          probe.onsets.push({ kind, pc, track: track.id, t: toPageClock(blockTime! + within) });
      };
      source.connect(node).connect(sink);
      watched.push({ track, node, source });
    });
  };
  // Tracks that ended (calls over) stop being watched.
  setInterval(() => {
    for (let i = watched.length - 1; i >= 0; i--) {
      const w = watched[i]!;
      if (w.track.readyState !== 'ended') continue;
      w.source.disconnect();
      w.node.disconnect();
      watched.splice(i, 1);
    }
  }, 1000);

  const media = navigator.mediaDevices;
  const getUserMedia = media.getUserMedia.bind(media);
  media.getUserMedia = async (constraints?: MediaStreamConstraints) => {
    const entry: { start: number; end?: number } = { start: now() };
    probe.gum.push(entry);
    const stream = await getUserMedia(constraints);
    entry.end = now();
    if (config.mic) for (const track of stream.getAudioTracks()) watch(track, 'mic', -1);
    return stream;
  };

  const Original = window.RTCPeerConnection;
  let count = 0;
  class Probed extends Original {
    readonly probeId = ++count;
    readonly phases: Record<string, number> = { created: now() };
    constructor(configuration?: RTCConfiguration) {
      super(configuration);
      probe.pcs.push({ id: this.probeId, phases: this.phases });
      const w = window as unknown as { __probePcs?: RTCPeerConnection[] };
      (w.__probePcs ??= []).push(this);
      this.addEventListener('iceconnectionstatechange', () =>
        this.mark(`ice-${this.iceConnectionState}`),
      );
      this.addEventListener('connectionstatechange', () => {
        this.mark(`pc-${this.connectionState}`);
        if (this.connectionState === 'connected') void this.pollFirstRtp();
      });
      this.addEventListener('track', (event) => {
        this.mark('track');
        if (event.track.kind === 'audio') watch(event.track, 'remote', this.probeId);
      });
    }
    mark(name: string): void {
      this.phases[name] ??= now();
    }
    /**
     * The first RTP packet received: `getStats` every 5 ms once connected. Chromium caches
     * stats for a while, so the first packet's time is taken back from the stats themselves:
     * the last packet's arrival less one 20 ms packet time per further packet received.
     */
    async pollFirstRtp(): Promise<void> {
      const until = now() + 10_000;
      while (now() < until && this.connectionState === 'connected') {
        const stats = await this.getStats();
        for (const s of stats.values() as IterableIterator<{
          type: string;
          kind?: string;
          packetsReceived?: number;
          lastPacketReceivedTimestamp?: number;
        }>) {
          const packets = s.packetsReceived ?? 0;
          if (s.type !== 'inbound-rtp' || s.kind !== 'audio' || packets === 0) continue;
          const last = s.lastPacketReceivedTimestamp;
          this.mark('first-rtp-seen');
          // Stats times are epoch ms in Chromium; anything else falls back to the poll's time.
          this.phases['first-rtp'] ??=
            last !== undefined && Math.abs(last - now()) < 5000 ? last - (packets - 1) * 20 : now();
          return;
        }
        if (!this.getReceivers().some((r) => r.track.kind === 'audio')) return;
        await new Promise((r) => setTimeout(r, 5));
      }
    }
  }
  // The descriptions' phases (prototype wrappers: the methods' legacy callback overloads keep
  // them from being overridden in the class with types).
  const proto = Original.prototype as unknown as Record<
    string,
    (...args: unknown[]) => Promise<unknown>
  >;
  const phaseOf = (method: string, before: string | null, after: string) => {
    const original = proto[method]!;
    (Probed.prototype as unknown as Record<string, unknown>)[method] = async function (
      this: Probed,
      ...args: unknown[]
    ) {
      if (before) this.mark(before);
      const result = await original.apply(this, args);
      this.mark(after);
      return result;
    };
  };
  phaseOf('createOffer', null, 'offer-created');
  phaseOf('createAnswer', null, 'answer-created');
  phaseOf('setLocalDescription', null, 'local-set');
  phaseOf('setRemoteDescription', 'remote-received', 'remote-set');
  window.RTCPeerConnection = Probed;
}

/** The floor's page: its button runs two RTCPeerConnections in the page (call-setup floor). */
const FLOOR_PAGE = `<!doctype html><meta charset="utf-8"><title>floor</title>
<button id="start">Start</button><audio id="out" autoplay></audio>
<script>
  const out = document.getElementById('out');
  window.floorCall = null;
  async function start() {
    const stream = await navigator.mediaDevices.getUserMedia({ audio: true });
    const pc1 = new RTCPeerConnection();
    const pc2 = new RTCPeerConnection();
    window.floorCall = { stream, pc1, pc2 };
    pc1.onicecandidate = (e) => e.candidate && pc2.addIceCandidate(e.candidate);
    pc2.onicecandidate = (e) => e.candidate && pc1.addIceCandidate(e.candidate);
    pc2.ontrack = (e) => { out.srcObject = e.streams[0]; void out.play(); };
    pc1.addTrack(stream.getAudioTracks()[0], stream);
    const offer = await pc1.createOffer();
    await pc1.setLocalDescription(offer);
    await pc2.setRemoteDescription(offer);
    const answer = await pc2.createAnswer();
    await pc2.setLocalDescription(answer);
    await pc1.setRemoteDescription(answer);
  }
  window.floorHangUp = () => {
    const c = window.floorCall;
    if (!c) return;
    c.pc1.close();
    c.pc2.close();
    for (const t of c.stream.getTracks()) t.stop();
    out.srcObject = null;
    window.floorCall = null;
  };
  document.getElementById('start').addEventListener('click', () => void start());
</script>`;

/** A plain loopback HTTP server: `/floor.html` (above) and `/` (a blank page). */
export async function startStaticServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' });
    response.end(
      request.url === '/floor.html'
        ? FLOOR_PAGE
        : '<!doctype html><meta charset="utf-8"><title>blank</title>',
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
