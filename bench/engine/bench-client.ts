/**
 * The bench's client side (`taskset -c 1 node --import tsx bench-client.ts`): N light werift
 * legs, each on its own PStream socket, each placing an outgoing call to `TO` (the engine dials a
 * virtual lead into the room: a two-party call), all at once. Every leg sends a 1000 Hz PCMU
 * frame every 20 ms, as a browser does.
 *
 * It measures what a browser would feel: leg setup time (from `invite` sent to media connected),
 * then, over a window, the arrival of every PCMU frame from the engine, timestamped when its
 * datagram reaches the client's socket (before werift decrypts it; RTP headers travel in the
 * clear in SRTP). Output: JSON lines on stdout (`phase` lines, then the `result`).
 *
 * Environment: `URL` (ws://…/signal), `TOKEN`, `N`, `TO`, `WARMUP_MS`, `WINDOW_MS`.
 */
import type { Socket } from 'node:dgram';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { RTCPeerConnection, type RTCRtpTransceiver } from 'werift';
import { generateTone } from '@leadline/voice/dsp';
import {
  disableDefaultStunServer,
  encodeMuLaw,
  engineAudioCodecs,
  PStreamTestClient,
  RtpPacketizer,
} from '@leadline/voice/testing';

const url = process.env.URL ?? 'ws://127.0.0.1:3000/signal';
const token = process.env.TOKEN ?? 'bench';
const legs = Number(process.env.N ?? 25);
const to = process.env.TO ?? '+15550100042';
const warmupMs = Number(process.env.WARMUP_MS ?? 3000);
const windowMs = Number(process.env.WINDOW_MS ?? 20_000);

const FRAME_MS = 20;
const FRAME_SAMPLES = 160;
/** A frame of 1000 Hz: 20 whole cycles, so every frame is the same. */
const TONE_FRAME = Buffer.from(
  encodeMuLaw(generateTone({ frequencyHz: 1000, sampleRateHz: 8000, dbfs: -10 }, FRAME_SAMPLES)),
);

const say = (line: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

/** One frame's arrival: when (ms, performance clock) and its RTP timestamp. */
interface Arrival {
  at: number;
  rtp: number;
}

/** werift internals reached to timestamp datagrams at the socket. */
interface WithSockets {
  connection: {
    protocols?: Array<{
      transport?: { socket?: Socket; onData: (data: Buffer, addr: unknown) => void };
    }>;
  };
}

/** RTP and RTCP datagrams start with version 2 (RFC 7983: first byte 128–191). */
const isRtpOrRtcp = (data: Buffer): boolean =>
  data.length > 0 && data[0]! >= 128 && data[0]! <= 191;

class BenchLeg {
  readonly peer: RTCPeerConnection;
  socket!: PStreamTestClient;
  transceiver!: RTCRtpTransceiver;
  packetizer: RtpPacketizer | undefined;
  setupMs = NaN;
  /** Of the setup: `invite` sent to the engine's SDP received (signalling and the engine's leg). */
  signallingMs = NaN;
  readonly arrivals: Arrival[] = [];
  recording = false;

  constructor(readonly index: number) {
    this.peer = new RTCPeerConnection({
      codecs: { audio: engineAudioCodecs() },
      iceServers: [],
      iceUseIpv4: false,
      iceUseIpv6: false,
      iceAdditionalHostAddresses: ['127.0.0.1'],
    });
  }

  async place(): Promise<void> {
    this.socket = await PStreamTestClient.connect(url, 60_000);
    await this.socket.login(token, false);
    this.transceiver = this.peer.addTransceiver('audio', { direction: 'sendrecv' });
    await this.peer.setLocalDescription(await this.peer.createOffer());
    if (this.peer.iceGatheringState !== 'complete')
      await this.peer.iceGatheringStateChange.watch((state) => state === 'complete');
    const startedAt = performance.now();
    this.socket.send('invite', {
      callsid: `TJSbench${this.index}`,
      sdp: this.peer.localDescription?.sdp,
      twilio: { params: `To=${encodeURIComponent(to)}` },
    });
    const reply = await this.socket.nextOf('ringing', 'answer', 'hangup');
    if (reply.type === 'hangup') throw new Error(`call refused: ${JSON.stringify(reply.payload)}`);
    this.signallingMs = performance.now() - startedAt;
    await this.peer.setRemoteDescription({ type: 'answer', sdp: String(reply.payload.sdp) });
    if (this.peer.connectionState !== 'connected')
      await this.peer.connectionStateChange.watch((state) => state === 'connected');
    this.setupMs = performance.now() - startedAt;
    this.packetizer = new RtpPacketizer({ ssrc: this.transceiver.sender.ssrc });
    this.listen();
  }

  /**
   * Timestamps every PCMU datagram at the socket, before werift handles it. The media itself is
   * then dropped: a load generator need not decrypt what it only times, and decrypting would
   * cost this process the CPU that keeps its timestamps honest. STUN (consent) and DTLS still
   * reach werift, so the engine sees a live peer.
   */
  private listen(): void {
    for (const transport of this.peer.iceTransports as unknown as WithSockets[]) {
      for (const protocol of transport.connection.protocols ?? []) {
        const udp = protocol.transport;
        if (!udp) continue;
        udp.socket?.prependListener('message', (data: Buffer) => {
          if (!this.recording || data.length < 12 || data[0]! >> 6 !== 2) return;
          if ((data[1]! & 0x7f) !== 0) return;
          this.arrivals.push({ at: performance.now(), rtp: data.readUInt32BE(4) });
        });
        const receive = udp.onData;
        udp.onData = (data, addr) => {
          if (!isRtpOrRtcp(data)) receive(data, addr);
        };
      }
    }
  }

  sendFrame(): void {
    const packet = this.packetizer?.packetize(TONE_FRAME, FRAME_SAMPLES);
    if (packet) this.transceiver.sender.sendRtp(packet).catch(() => undefined);
  }

  async hangUp(): Promise<void> {
    this.socket?.send('hangup', { callsid: `TJSbench${this.index}` });
    this.socket?.close();
    await this.peer.close();
  }
}

const quantile = (sorted: number[], q: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

disableDefaultStunServer();
const all = Array.from({ length: legs }, (_, i) => new BenchLeg(i));
const setupStarted = performance.now();
const placed = await Promise.allSettled(all.map((leg) => leg.place()));
const failures = placed.filter((outcome) => outcome.status === 'rejected');
say({
  phase: 'connected',
  legs: legs - failures.length,
  failed: failures.length,
  firstError: failures[0]?.status === 'rejected' ? String(failures[0].reason) : undefined,
  allConnectedMs: performance.now() - setupStarted,
});

// Every leg talks, as a browser's microphone does, from one 20 ms loop.
const sending = setInterval(() => {
  for (const leg of all) leg.sendFrame();
}, FRAME_MS);

await new Promise((resolve) => setTimeout(resolve, warmupMs));
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
const cpuBefore = process.cpuUsage();
say({ phase: 'window-start', at: Date.now() });
for (const leg of all) leg.recording = true;
await new Promise((resolve) => setTimeout(resolve, windowMs));
for (const leg of all) leg.recording = false;
say({ phase: 'window-end', at: Date.now() });
const cpu = process.cpuUsage(cpuBefore);
loopDelay.disable();
clearInterval(sending);

// Inter-arrival deviation from 20 ms, and lateness against each leg's own best path
// (arrival minus RTP time, relative to the leg's earliest frame).
const deviations: number[] = [];
const lateness: number[] = [];
let frames = 0;
let expectedFrames = 0;
for (const leg of all) {
  const { arrivals } = leg;
  if (arrivals.length < 2) continue;
  frames += arrivals.length;
  const first = arrivals[0]!;
  const last = arrivals.at(-1)!;
  expectedFrames += Math.round(((last.rtp - first.rtp) >>> 0) / FRAME_SAMPLES) + 1;
  const delays = arrivals.map((a) => a.at - ((a.rtp - first.rtp) >>> 0) / 8);
  const best = Math.min(...delays);
  for (let i = 0; i < arrivals.length; i++) {
    lateness.push(delays[i]! - best);
    if (i > 0) deviations.push(Math.abs(arrivals[i]!.at - arrivals[i - 1]!.at - FRAME_MS));
  }
}
deviations.sort((a, b) => a - b);
lateness.sort((a, b) => a - b);
const setups = all
  .map((leg) => leg.setupMs)
  .filter(Number.isFinite)
  .sort((a, b) => a - b);
const signalling = all
  .map((leg) => leg.signallingMs)
  .filter(Number.isFinite)
  .sort((a, b) => a - b);
say({
  phase: 'result',
  legs,
  failed: failures.length,
  setupMs: { p50: quantile(setups, 0.5), max: setups.at(-1) ?? NaN },
  signallingMs: { p50: quantile(signalling, 0.5), max: signalling.at(-1) ?? NaN },
  frames,
  lostFrames: Math.max(0, expectedFrames - frames),
  interArrivalDeviationMs: {
    p50: quantile(deviations, 0.5),
    p99: quantile(deviations, 0.99),
    max: deviations.at(-1) ?? NaN,
  },
  latenessMs: {
    p50: quantile(lateness, 0.5),
    p99: quantile(lateness, 0.99),
    max: lateness.at(-1) ?? NaN,
  },
  framesLaterThan60Ms: lateness.filter((value) => value > 60).length,
  client: {
    cpuPercent: ((cpu.user + cpu.system) / 1000 / windowMs) * 100,
    loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
    loopDelayMaxMs: loopDelay.max / 1e6,
  },
});
await Promise.allSettled(all.map((leg) => leg.hangUp()));
process.exit(0);
