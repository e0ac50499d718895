import { describe, expect, it } from 'vitest';
import { StatsMonitor, type CallSample, type QualityWarningName } from './stats-monitor';
import { FakeClock } from '../testing/fake-clock';
import { FakePeerConnection } from '../testing/fake-platform';
import { flush } from '../testing/scenarios';

/** What the network does during the next samples. */
interface Conditions {
  send: boolean;
  receive: boolean;
  /** packets lost of every 50 */
  lost: number;
  /** seconds */
  jitter: number;
  roundTripTime: number;
}

const GOOD: Conditions = { send: true, receive: true, lost: 0, jitter: 0.005, roundTripTime: 0.05 };

/** A monitor over a fake connection: every `getStats()` is one second of traffic. */
function harness() {
  const clock = new FakeClock();
  const pc = new FakePeerConnection(clock);
  const conditions: Conditions = { ...GOOD };
  const monitor = new StatsMonitor(() => {
    pc.flow(1000, conditions);
    pc.stats.jitter = conditions.jitter;
    pc.stats.roundTripTime = conditions.roundTripTime;
    return pc.getStats();
  }, clock);
  const log: Array<[string, QualityWarningName, number]> = [];
  const samples: CallSample[] = [];
  monitor.on('warning', (w) => log.push(['raised', w.name, clock.now()]));
  monitor.on('warning-cleared', (w) => log.push(['cleared', w.name, clock.now()]));
  monitor.on('sample', (s) => samples.push(s));
  /** Moves time, stopping at each sampling boundary to let the sample land. */
  async function tick(ms: number) {
    let left = ms;
    while (left > 0) {
      const step = Math.min(left, 1000 - (clock.now() % 1000));
      clock.tick(step);
      left -= step;
      await flush();
    }
  }
  monitor.start();
  return { clock, monitor, conditions, log, samples, tick };
}

describe('call quality samples', () => {
  it('are per-second deltas with loss %, jitter and rtt in ms, MOS and the codec', async () => {
    const h = harness();
    Object.assign(h.conditions, { lost: 5, jitter: 0.012, roundTripTime: 0.08 });
    h.monitor.addVolumes(0.2, 0.4);
    h.monitor.addVolumes(0.4, 0.6);
    await h.tick(2000);
    expect(h.samples).toHaveLength(2);
    const [first, second] = h.samples;
    expect(first).toMatchObject({
      bytesSent: 8000,
      bytesReceived: 7200,
      packetsSent: 50,
      packetsReceived: 45,
      packetsLost: 5,
      packetsLostFraction: 10,
      jitter: 12,
      rtt: 80,
      mos: null,
      codecName: 'pcmu',
      totals: { bytesSent: 8000, bytesReceived: 7200 },
    });
    expect(first!.audioInputLevel).toBeCloseTo(0.3);
    expect(first!.audioOutputLevel).toBeCloseTo(0.5);
    expect(second).toMatchObject({ bytesSent: 8000, packetsLostFraction: 10, audioInputLevel: 0 });
    // latency 80 + 2 × 12 + 10 = 114 ms → R = 94.768 − 2.85 − 10 × 2.5 = 66.918 → MOS 3.449
    expect(second!.mos).toBeCloseTo(3.449, 3);
    expect(second!.totals.bytesSent).toBe(16000);
  });

  it('samples every 1,000 ms', async () => {
    const h = harness();
    await h.tick(999);
    expect(h.samples).toHaveLength(0);
    await h.tick(1);
    expect(h.samples).toHaveLength(1);
    await h.tick(3000);
    expect(h.samples).toHaveLength(4);
    h.monitor.stop();
    await h.tick(5000);
    expect(h.samples).toHaveLength(4);
  });

  it('measures how long no audio arrived', async () => {
    const h = harness();
    await h.tick(3000);
    expect(h.monitor.silenceMs).toBe(0);
    h.conditions.receive = false;
    await h.tick(2000);
    expect(h.monitor.silenceMs).toBe(2000);
    h.conditions.receive = true;
    await h.tick(1000);
    expect(h.monitor.silenceMs).toBe(0);
  });
});

describe('call quality warnings', () => {
  it('are enabled 5,000 ms after start', async () => {
    const h = harness();
    h.conditions.jitter = 0.05;
    await h.tick(4990);
    expect(h.log).toEqual([]);
    await h.tick(20);
    expect(h.log).toEqual([['raised', 'high-jitter', 5000]]);
  });

  it('clear only after 5,000 ms back within the threshold', async () => {
    const h = harness();
    h.conditions.send = false;
    await h.tick(5000);
    expect(h.log).toEqual([['raised', 'low-bytes-sent', 5000]]);
    h.conditions.send = true; // the sample at 6,000 ms is the first good one
    await h.tick(1000 + 4990);
    expect(h.log).toHaveLength(1);
    await h.tick(20);
    expect(h.log).toEqual([
      ['raised', 'low-bytes-sent', 5000],
      ['cleared', 'low-bytes-sent', 11000],
    ]);
  });

  it('start the 5,000 ms again after a bad sample', async () => {
    const h = harness();
    h.conditions.send = false;
    await h.tick(5000);
    h.conditions.send = true;
    await h.tick(2000); // good at 6,000 and 7,000
    h.conditions.send = false;
    await h.tick(1000); // bad at 8,000
    h.conditions.send = true; // good from 9,000
    await h.tick(5990);
    expect(h.log).toHaveLength(1);
    await h.tick(20);
    expect(h.log.at(-1)).toEqual(['cleared', 'low-bytes-sent', 14000]);
  });

  // Raised when 3 of the last 10 samples (3 of 3 for bytes) cross the threshold, or the average
  // of 7 does; cleared when none (at most 2 of 3 for bytes; average ≤ 1 %) do and the latest
  // samples have been good for 5,000 ms. MOS is null on the first sample, and a window holding a
  // null decides nothing, so the MOS warning can only rise from the 11th sample.
  it.each<[QualityWarningName, Partial<Conditions>, number, number]>([
    ['high-jitter', { jitter: 0.031 }, 5000, 15000],
    ['high-rtt', { roundTripTime: 0.401 }, 5000, 15000],
    ['low-mos', { roundTripTime: 1 }, 11000, 21000],
    ['high-packet-loss', { lost: 1 }, 5000, 15000],
    ['high-packets-lost-fraction', { lost: 2 }, 7000, 18000],
    ['low-bytes-received', { receive: false }, 5000, 11000],
    ['low-bytes-sent', { send: false }, 5000, 11000],
  ])('%s: raised at %i ms, cleared at the boundary', async (name, bad, raisedAt, clearedAt) => {
    const h = harness();
    Object.assign(h.conditions, bad);
    const mine = () => h.log.filter(([, n]) => n === name);
    await h.tick(raisedAt - 10);
    expect(mine()).toEqual([]);
    await h.tick(20);
    expect(mine()).toEqual([['raised', name, raisedAt]]);
    // Good from the next sample on (raisedAt + 1,000 ms).
    Object.assign(h.conditions, GOOD);
    await h.tick(990);
    await h.tick(clearedAt - h.clock.now() - 10);
    expect(mine()).toHaveLength(1);
    await h.tick(20);
    expect(mine()).toEqual([
      ['raised', name, raisedAt],
      ['cleared', name, clearedAt],
    ]);
    expect(h.monitor.hasActiveWarning(name)).toBe(false);
  });

  it('stay quiet on a good call', async () => {
    const h = harness();
    await h.tick(60_000);
    expect(h.log).toEqual([]);
  });
});
