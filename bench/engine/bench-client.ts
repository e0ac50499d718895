/**
 * The bench's client side (`taskset -c 1 node --import tsx bench-client.ts`): N light werift
 * legs, each on its own PStream socket, each placing an outgoing call to `TO` (the engine dials a
 * virtual lead into the room: a two-party call), at most `CONCURRENCY` setting up at a time (the
 * next as soon as one before it is up; default all at once). Every leg sends a 1000 Hz PCMU
 * frame every 20 ms, as a browser does.
 *
 * It measures what a browser would feel: leg setup time (from `invite` sent to media connected),
 * then, over a window, the arrival of every PCMU frame from the engine, timestamped when its
 * datagram reaches the client's socket (before werift decrypts it; RTP headers travel in the
 * clear in SRTP). A leg not up within `SETUP_TIMEOUT_MS` (or hung up by the engine) counts as
 * failed, with the step it reached; the others go on. Output: JSON lines on stdout (`phase`
 * lines, then the `result`); the `connected` line has each setup step's duration over the legs.
 *
 * Environment: `URL` (ws://…/signal), `TOKEN`, `N`, `TO`, `WARMUP_MS`, `WINDOW_MS`,
 * `SETUP_TIMEOUT_MS` (15000), `CONCURRENCY`, `TRACE=1` (each leg's step times on stderr).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { RTCPeerConnection, type RTCRtpTransceiver } from 'werift';
import { generateTone } from '@leadline/voice/dsp';
import {
  directRtpSend,
  disableDefaultStunServer,
  encodeMuLaw,
  engineAudioCodecs,
  PStreamTestClient,
  RtpPacketizer,
} from '@leadline/voice/testing';
import { pacing, type Arrival } from '../lib/pacing';
import { timeArrivals } from '../lib/socket-timing';

const url = process.env.URL ?? 'ws://127.0.0.1:3000/signal';
const token = process.env.TOKEN ?? 'bench';
const legs = Number(process.env.N ?? 25);
const to = process.env.TO ?? '+15550100042';
const warmupMs = Number(process.env.WARMUP_MS ?? 3000);
const windowMs = Number(process.env.WINDOW_MS ?? 20_000);
const setupTimeoutMs = Number(process.env.SETUP_TIMEOUT_MS ?? 15_000);
/** At most this many legs set up at a time (default: all at once). */
const concurrency = Math.max(1, Number(process.env.CONCURRENCY ?? legs));
/** `TRACE=1`: one stderr line per leg with the time of each setup step. */
const trace = process.env.TRACE === '1';

const FRAME_MS = 20;
/**
 * The legs' sends are spread over the frame in slots of this length (each leg at its own phase,
 * as independent browsers are), so no burst of sends holds the client's event loop, and with it
 * the timestamps of the engine's frames arriving meanwhile.
 */
const SEND_SLOT_MS = 2;
const FRAME_SAMPLES = 160;
/** A frame of 1000 Hz: 20 whole cycles, so every frame is the same. */
const TONE_FRAME = Buffer.from(
  encodeMuLaw(generateTone({ frequencyHz: 1000, sampleRateHz: 8000, dbfs: -10 }, FRAME_SAMPLES)),
);

const say = (line: Record<string, unknown>): void => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

/** The steps of a leg's setup, in order; each is timestamped when it completes. */
const PHASES = [
  'socket', // the PStream WebSocket is open
  'login', // `connected` received for `listen`
  'gathered', // the offer is made and ICE gathering complete
  'invite', // `invite` sent: the setup time starts here
  'reply', // the engine's SDP (`ringing` or `answer`) received
  'remote', // the answer applied (setRemoteDescription)
  'ice', // ICE connected
  'dtls', // DTLS connected
  'connected', // the peer connection is connected: the setup time ends here
] as const;
type Phase = (typeof PHASES)[number];

/** A leg's setup that failed: the step it reached, and why. */
class SetupError extends Error {
  constructor(
    readonly reached: Phase | 'start',
    message: string,
  ) {
    super(`${message} (reached: ${reached})`);
    this.name = 'SetupError';
  }
}

class BenchLeg {
  readonly peer: RTCPeerConnection;
  socket: PStreamTestClient | undefined;
  transceiver!: RTCRtpTransceiver;
  packetizer: RtpPacketizer | undefined;
  /** Sends one RTP packet (werift's SRTP and ICE, without its costlier `RTCRtpSender` path). */
  sendRtp: ReturnType<typeof directRtpSend> | undefined;
  /** When this leg's next frame is due (ms, performance clock). */
  nextSendAt = NaN;
  /** When each setup step completed (ms, performance clock). */
  readonly marks = new Map<Phase | 'start', number>();
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
    this.peer.iceConnectionStateChange.subscribe((state) => {
      if (state === 'connected') this.mark('ice');
    });
  }

  /** The last step reached. */
  get reached(): Phase | 'start' {
    return [...this.marks.keys()].at(-1) ?? 'start';
  }

  /**
   * Sets the leg up: socket, login, offer, `invite`, answer, ICE and DTLS. Rejects with a
   * {@link SetupError} if a step fails or the whole takes longer than `setupTimeoutMs`.
   */
  async place(): Promise<void> {
    this.mark('start');
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new SetupError(this.reached, `setup timed out after ${setupTimeoutMs} ms`)),
        setupTimeoutMs,
      );
    });
    try {
      await Promise.race([this.setUp(), timedOut]);
    } catch (error) {
      throw error instanceof SetupError
        ? error
        : new SetupError(this.reached, error instanceof Error ? error.message : String(error));
    } finally {
      clearTimeout(timer);
    }
  }

  private async setUp(): Promise<void> {
    // Each wait is bounded by `place`'s timeout; the socket's own waits are longer than it.
    this.socket = await PStreamTestClient.connect(url, setupTimeoutMs * 2);
    this.mark('socket');
    await this.socket.login(token, false);
    this.mark('login');
    this.transceiver = this.peer.addTransceiver('audio', { direction: 'sendrecv' });
    await this.peer.setLocalDescription(await this.peer.createOffer());
    if (this.peer.iceGatheringState !== 'complete')
      await this.peer.iceGatheringStateChange.watch((state) => state === 'complete');
    this.mark('gathered');
    const startedAt = this.mark('invite');
    this.socket.send('invite', {
      callsid: `TJSbench${this.index}`,
      sdp: this.peer.localDescription?.sdp,
      twilio: { params: `To=${encodeURIComponent(to)}` },
    });
    const reply = await this.socket.nextOf('ringing', 'answer', 'hangup');
    if (reply.type === 'hangup') throw new Error(`call refused: ${JSON.stringify(reply.payload)}`);
    this.signallingMs = this.mark('reply') - startedAt;
    const dtls = this.peer.dtlsTransports[0];
    dtls?.onStateChange.subscribe((state) => {
      if (state === 'connected') this.mark('dtls');
    });
    // The engine hangs up if its side of the leg fails: no need to wait for the timeout then.
    const hungUp = this.socket.nextOf('hangup').then(
      (frame) => Promise.reject(new Error(`the engine hung up: ${JSON.stringify(frame.payload)}`)),
      () => new Promise<never>(() => undefined),
    );
    hungUp.catch(() => undefined); // a hangup after the leg is up is not a setup failure
    await this.peer.setRemoteDescription({ type: 'answer', sdp: String(reply.payload.sdp) });
    this.mark('remote');
    if (this.peer.connectionState !== 'connected') await Promise.race([this.connected(), hungUp]);
    this.setupMs = this.mark('connected') - startedAt;
    this.packetizer = new RtpPacketizer({ ssrc: this.transceiver.sender.ssrc });
    this.sendRtp = directRtpSend(this.transceiver.sender);
    this.listen();
  }

  /** Resolves when the peer connects; rejects if it fails or closes first. */
  private connected(): Promise<void> {
    return new Promise((resolve, reject) => {
      const { unSubscribe } = this.peer.connectionStateChange.subscribe((state) => {
        if (state === 'connected') resolve();
        else if (state === 'failed' || state === 'closed')
          reject(new Error(`the connection ${state}`));
        else return;
        unSubscribe();
      });
    });
  }

  private mark(phase: Phase | 'start'): number {
    const at = performance.now();
    if (!this.marks.has(phase)) this.marks.set(phase, at);
    return at;
  }

  /**
   * Timestamps every PCMU datagram at the socket, before werift handles it. The media itself is
   * then dropped: a load generator need not decrypt what it only times, and decrypting would
   * cost this process the CPU that keeps its timestamps honest. STUN (consent) and DTLS still
   * reach werift, so the engine sees a live peer.
   */
  private listen(): void {
    timeArrivals(
      this.peer,
      () => this.recording,
      (at, rtp) => this.arrivals.push({ at, rtp }),
    );
  }

  sendFrame(): void {
    const packet = this.packetizer?.packetize(TONE_FRAME, FRAME_SAMPLES);
    if (packet) this.sendRtp?.(packet.payload, packet.header).catch(() => undefined);
  }

  async hangUp(): Promise<void> {
    this.socket?.send('hangup', { callsid: `TJSbench${this.index}` });
    this.socket?.close();
    await this.peer.close();
  }
}

const quantile = (sorted: number[], q: number): number =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;

/** Per step, how long legs took to get there from the step before (p50 / p90 / max, ms). */
function phaseTimes(
  all: readonly BenchLeg[],
): Record<string, { p50: number; p90: number; max: number; n: number }> {
  const out: Record<string, { p50: number; p90: number; max: number; n: number }> = {};
  let previous: Phase | 'start' = 'start';
  for (const phase of PHASES) {
    const durations = all
      .map((leg) => (leg.marks.get(phase) ?? NaN) - (leg.marks.get(previous) ?? NaN))
      .filter(Number.isFinite)
      .sort((a, b) => a - b);
    out[phase] = {
      p50: quantile(durations, 0.5),
      p90: quantile(durations, 0.9),
      max: durations.at(-1) ?? NaN,
      n: durations.length,
    };
    previous = phase;
  }
  return out;
}

/**
 * Places every leg's call, at most `limit` setting up at a time: a leg starts as soon as one
 * before it is up (or has failed). Each leg's setup time is its own, from its `invite`.
 */
async function placeAll(
  legsToPlace: readonly BenchLeg[],
  limit: number,
): Promise<PromiseSettledResult<void>[]> {
  const outcomes: PromiseSettledResult<void>[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < legsToPlace.length) {
      const index = next++;
      try {
        await legsToPlace[index]!.place();
        outcomes[index] = { status: 'fulfilled', value: undefined };
      } catch (reason) {
        outcomes[index] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, legsToPlace.length) }, lane));
  return outcomes;
}

disableDefaultStunServer();
const all = Array.from({ length: legs }, (_, i) => new BenchLeg(i));
say({ phase: 'setup-start', at: Date.now() });
const setupStarted = performance.now();
const placed = await placeAll(all, concurrency);
const failures = placed.filter((outcome) => outcome.status === 'rejected');
if (trace) {
  for (const leg of all) {
    const steps = [...leg.marks].map(([phase, at]) => `${phase}=${(at - setupStarted).toFixed(0)}`);
    process.stderr.write(`leg ${leg.index}: ${steps.join(' ')}\n`);
  }
}
say({
  phase: 'connected',
  legs: legs - failures.length,
  failed: failures.length,
  firstError: failures[0]?.status === 'rejected' ? String(failures[0].reason) : undefined,
  allConnectedMs: performance.now() - setupStarted,
  phases: phaseTimes(all),
});

// Every leg talks every 20 ms, as a browser's microphone does, each at its own phase of the
// frame; a leg that fell behind (the client stalled) sends what it owes at once, as a browser does.
const sendingFrom = performance.now();
all.forEach((leg, index) => (leg.nextSendAt = sendingFrom + (index * FRAME_MS) / all.length));
const sending = setInterval(() => {
  const now = performance.now();
  for (const leg of all) {
    while (leg.nextSendAt <= now) {
      leg.sendFrame();
      leg.nextSendAt += FRAME_MS;
    }
  }
}, SEND_SLOT_MS);

await new Promise((resolve) => setTimeout(resolve, warmupMs));
const LOOP_RESOLUTION_MS = 10;
const loopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
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
// (arrival minus RTP time, relative to the leg's earliest frame): bench/lib/pacing.ts.
const measured = pacing(all);
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
  frames: measured.frames,
  lostFrames: measured.lostFrames,
  interArrivalDeviationMs: measured.interArrivalDeviationMs,
  latenessMs: measured.latenessMs,
  framesLaterThan60Ms: measured.framesLaterThan60Ms,
  client: {
    cpuPercent: ((cpu.user + cpu.system) / 1000 / windowMs) * 100,
    // The histogram holds the sampling timer's whole period: its delay is what exceeds that.
    loopDelayP99Ms: Math.max(0, loopDelay.percentile(99) / 1e6 - LOOP_RESOLUTION_MS),
    loopDelayMaxMs: Math.max(0, loopDelay.max / 1e6 - LOOP_RESOLUTION_MS),
  },
});
await Promise.allSettled(all.map((leg) => leg.hangUp()));
process.exit(0);
